/** Applies setting values sent by a client (D4 `capabilities`) or reported by a device (T1) onto a capability list. */

import { own } from '../lib/object.ts';
import { bodyDef, capabilityDef, compiledCapability } from './catalog.ts';
import { fmt, isObject } from './format.ts';
import { permissionCode, settingPermissionBits } from './permissions.ts';
import { checkSettingValue } from './settings.ts';
import type { CapabilityObject, Result, SettingItem } from './types.ts';

const keyOf = (capability: unknown, name: unknown) => `${String(capability)}\u0000${name ?? ''}`;

/** D4 `capabilities` / T1 DeviceInformationUpdatedReport: apply the `value` of settings from `incoming` onto `current`; permissions cannot change (error names the path); for T1 only setting values whose setting permission is '11' or '01' are updated (option { source: 'report' }), for D4 only modifiable settings ('10'/'11') (option { source: 'client' }). Returns the new capability list. */
export function applySettingsUpdate(
  current: CapabilityObject[],
  incoming: unknown,
  opts: { source: 'client' | 'report' },
  path = 'capabilities',
): Result<CapabilityObject[]> {
  if (!Array.isArray(incoming)) return { ok: false, errors: [`${path}: expected an array, got ${fmt(incoming)}`] };
  const client = opts.source === 'client';
  const out = [...current];
  const where = new Map(current.map((c, i) => [keyOf(c.capability, c.name), i]));
  const errors: string[] = [];
  for (const [i, inc] of incoming.entries()) {
    const p = `${path}.${i}`;
    if (!isObject(inc)) {
      errors.push(`${p}: expected an object, got ${fmt(inc)}`);
      continue;
    }
    const idx = where.get(keyOf(inc.capability, inc.name));
    if (idx === undefined) {
      const has = current.some((c) => c.capability === inc.capability);
      errors.push(
        has
          ? `${p}.name: the device has no name ${fmt(inc.name)} of ${inc.capability}`
          : `${p}: the device has no capability ${String(inc.capability)}`,
      );
      continue;
    }
    const cur = out[idx] as CapabilityObject;
    if (inc.permission !== undefined && permissionCode(inc.permission) !== permissionCode(cur.permission))
      errors.push(`${p}.permission: permissions cannot be changed (is ${cur.permission})`);
    const def = capabilityDef(cur.capability);
    const settingDefs = def ? bodyDef(def, cur.name)?.settings : undefined;
    let settings = cur.settings;
    if (inc.settings !== undefined) {
      if (!isObject(inc.settings)) {
        errors.push(`${p}.settings: expected an object, got ${fmt(inc.settings)}`);
        continue;
      }
      const next: Record<string, SettingItem> = { ...cur.settings };
      for (const [k, item] of Object.entries(inc.settings)) {
        const sp = `${p}.settings.${k}`;
        // Own keys only: a setting named `constructor` or `toString` is one the device does not have.
        const was = cur.settings ? own(cur.settings, k) : undefined;
        if (!was) {
          if (client) errors.push(`${sp}: the device has no setting ${k}`);
          continue;
        }
        if (!isObject(item)) {
          errors.push(`${sp}: expected an object, got ${fmt(item)}`);
          continue;
        }
        // A report updates only values; a client that sends other fields must send them unchanged.
        if (client && item.permission !== undefined && item.permission !== was.permission)
          errors.push(`${sp}.permission: permissions cannot be changed (is ${was.permission})`);
        if (client && item.type !== undefined && item.type !== was.type)
          errors.push(`${sp}.type: the type cannot be changed (is ${was.type})`);
        if (item.value === undefined) continue;
        const bits = settingPermissionBits(was.permission);
        if (!(client ? bits.modify : bits.view)) {
          if (client) errors.push(`${sp}.value: the setting cannot be modified (permission ${was.permission})`);
          continue;
        }
        checkSettingValue(was, settingDefs ? own(settingDefs, k) : undefined, item.value, `${sp}.value`, errors);
        next[k] = { ...was, value: item.value };
      }
      settings = next;
    }
    let configuration = cur.configuration;
    if (inc.configuration !== undefined) {
      const check = compiledCapability(cur.capability)?.configuration;
      if (!check) errors.push(`${p}.configuration: ${cur.capability} has no configuration`);
      else {
        check(inc.configuration, `${p}.configuration`, errors);
        configuration = inc.configuration as Record<string, unknown>;
      }
    }
    out[idx] = {
      ...cur,
      ...(settings !== undefined ? { settings } : {}),
      ...(configuration !== undefined ? { configuration } : {}),
    };
  }
  return errors.length ? { ok: false, errors } : { ok: true, value: out };
}
