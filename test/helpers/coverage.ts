/**
 * How a bridge's mapping table covers the catalog (Home Assistant, Matter): every capability, and
 * every fixed name of one, is either mapped by a row or listed as left out.
 */
import { capabilities } from '../../src/catalog/index.ts';

/** Every (capability, fixed name) of the catalog; capabilities without fixed names once. */
export function catalogUnits(): { capability: string; name?: string }[] {
  return capabilities.flatMap((def) =>
    def.naming.kind === 'fixed'
      ? Object.keys(def.naming.names).map((name) => ({ capability: def.capability, name }))
      : [{ capability: def.capability }],
  );
}

/** Whether a table maps a capability (and name), and whether its list leaves it out. */
export function coverage(
  table: readonly { capability: string; name?: string }[],
  leftOut: readonly { capability: string; name?: string }[],
) {
  return {
    mapped: (capability: string, name?: string) =>
      table.some((r) => r.capability === capability && (name === undefined || r.name === name || r.name === '*')),
    omitted: (capability: string, name?: string) =>
      leftOut.some((l) => l.capability === capability && (l.name === undefined || l.name === name)),
  };
}
