/**
 * State merging for device reports (issue: "a report of `toggle.2` keeps `toggle.1`"). A state is
 * keyed by capability; a capability declared with `name`s has one more level keyed by name.
 */
import { isDeepStrictEqual } from 'node:util';
import type { CapabilityObject } from '../../catalog/index.ts';
import { isObject } from '../../lib/object.ts';

/**
 * Capabilities whose report is an event, not a lasting state: a second identical `press` is a
 * second press of the button, and scenes must see it.
 */
const MOMENTARY = new Set(['press', 'multi-press']);

/** Capability names that have a `name` level on this device, with their names. */
export function namedLevels(caps: readonly CapabilityObject[]): Map<string, Set<string>> {
  const named = new Map<string, Set<string>>();
  for (const c of caps) {
    if (c.name === undefined) continue;
    const set = named.get(c.capability) ?? new Set<string>();
    named.set(c.capability, set);
    set.add(c.name);
  }
  return named;
}

/**
 * Merges `report` into `current` and returns the merged state and what changed, shaped like a
 * report (`{toggle:{2:{toggleState:'on'}}}`), holding the whole merged value of each changed
 * capability (or of each changed name of a named capability). `changed` is empty when the
 * report repeats what is known, except for momentary capabilities (presses), which always count
 * unless `repeatPresses` is false (a re-sync of a device is not a press).
 */
export function mergeState(
  current: Record<string, unknown>,
  report: Record<string, unknown>,
  caps: readonly CapabilityObject[],
  opts: { repeatPresses?: boolean } = {},
): { state: Record<string, unknown>; changed: Record<string, unknown> } {
  const named = namedLevels(caps);
  const momentary = (cap: string) => opts.repeatPresses !== false && MOMENTARY.has(cap);
  const state: Record<string, unknown> = { ...current };
  const changed: Record<string, unknown> = {};
  for (const [cap, value] of Object.entries(report)) {
    const old = state[cap];
    const names = named.get(cap);
    if (names && isObject(value) && Object.keys(value).every((k) => names.has(k) && isObject(value[k]))) {
      const base: Record<string, unknown> = isObject(old) ? { ...old } : {};
      const diff: Record<string, unknown> = {};
      for (const [name, fields] of Object.entries(value)) {
        const prev = base[name];
        const next = isObject(prev) && isObject(fields) ? { ...prev, ...fields } : fields;
        if (momentary(cap) || !isDeepStrictEqual(prev, next)) {
          base[name] = next;
          diff[name] = next;
        }
      }
      if (Object.keys(diff).length > 0) {
        state[cap] = base;
        changed[cap] = diff;
      }
      continue;
    }
    const next = isObject(old) && isObject(value) ? { ...old, ...value } : value;
    if (momentary(cap) || !isDeepStrictEqual(old, next)) {
      state[cap] = next;
      changed[cap] = next;
    }
  }
  return { state, changed };
}

/**
 * The part of a state that the capabilities still declare: a capability or channel that a
 * re-sync or a re-interview removed takes its state with it, so D3 never shows state the device
 * cannot have.
 */
export function pruneState(state: Record<string, unknown>, caps: readonly CapabilityObject[]): Record<string, unknown> {
  const declared = new Set(caps.map((c) => c.capability));
  const named = namedLevels(caps);
  const out: Record<string, unknown> = {};
  for (const [cap, value] of Object.entries(state)) {
    if (!declared.has(cap)) continue;
    const names = named.get(cap);
    if (names && isObject(value) && Object.keys(value).some((k) => names.has(k))) {
      const kept: Record<string, unknown> = {};
      for (const [name, v] of Object.entries(value)) if (names.has(name)) kept[name] = v;
      out[cap] = kept;
    } else out[cap] = value;
  }
  return out;
}
