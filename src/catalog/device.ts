/** A device's capability list indexed for validation: each (capability, name) with its compiled, narrowed body. */
import { type CompiledBody, type CompiledCapability, compileBody, compiledCapability, narrowBody } from './catalog.ts';
import { isObject } from './format.ts';
import { permissionCode } from './permissions.ts';
import type { CapabilityObject, SettingItem } from './types.ts';

/** One capability object of the device with the validators that apply to it. */
export interface DeviceEntry {
  cap: CapabilityObject;
  body: CompiledBody;
  /** The device's permission as a code (words mapped). */
  code: string;
}

/** One capability of the device: its single entry, or its entries by name. */
export interface DeviceCapability {
  compiled: CompiledCapability;
  single?: DeviceEntry;
  names: Map<string, DeviceEntry>;
}

/**
 * Indexes built, by capability list. A device's list is replaced (never changed in place) when
 * the device changes, so its index is built once per change, not once per command or report.
 * A pure memo: what it returns depends only on the list.
 */
const indexes = new WeakMap<readonly CapabilityObject[], Map<string, DeviceCapability>>();

/** Indexes a device's capability list; entries the catalog does not know are skipped. */
export function indexDevice(caps: readonly CapabilityObject[]): Map<string, DeviceCapability> {
  if (!Array.isArray(caps)) return new Map();
  const known = indexes.get(caps);
  if (known) return known;
  const index = build(caps);
  indexes.set(caps, index);
  return index;
}

function build(caps: readonly CapabilityObject[]): Map<string, DeviceCapability> {
  const index = new Map<string, DeviceCapability>();
  for (const cap of caps) {
    if (!isObject(cap as unknown) || typeof cap.capability !== 'string') continue;
    const settings = isObject(cap.settings) ? (cap.settings as Record<string, SettingItem>) : undefined;
    const compiled = compiledCapability(cap.capability);
    if (!compiled) continue;
    let dc = index.get(cap.capability);
    if (!dc) {
      dc = { compiled, names: new Map() };
      index.set(cap.capability, dc);
    }
    const kind = compiled.def.naming.kind;
    const base = kind === 'fixed' ? compiled.names?.get(String(cap.name)) : compiled.body;
    if (!base) continue;
    const narrowed = narrowBody(base.def, settings);
    const entry: DeviceEntry = {
      cap,
      body: narrowed ? compileBody(narrowed) : base,
      code: permissionCode(cap.permission) ?? base.def.permission,
    };
    if (kind === 'none') dc.single = entry;
    else if (typeof cap.name === 'string') dc.names.set(cap.name, entry);
  }
  return index;
}

/** How messages call a name of this capability: `channel` for channels, `name` for fixed names. */
export function nameWord(compiled: CompiledCapability): string {
  return compiled.def.naming.kind === 'fixed' ? 'name' : 'channel';
}
