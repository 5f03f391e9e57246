/** Strict validation of a client control command (D4 `state`) against one device's capabilities. */
import type { DeviceEntry } from './device.ts';
import { indexDevice, nameWord } from './device.ts';
import { fmt, isObject } from './format.ts';
import type { CapabilityObject, Result } from './types.ts';

function checkEntry(entry: DeviceEntry, v: unknown, path: string, errors: string[]): void {
  const label = entry.cap.name === undefined ? entry.cap.capability : `${entry.cap.capability} ${entry.cap.name}`;
  const control = entry.body.control;
  if (!control) return void errors.push(`${path}: ${label} has no control body`);
  // identify's countdown is a command although its permission is report only (spec 2.6).
  if (entry.code[0] !== '1' && !control.explicit)
    return void errors.push(`${path}: ${label} cannot be controlled (permission ${entry.code})`);
  control.check(v, path, errors);
}

/** Strict validation of a client control command (D4 `state`) against THIS device's capabilities (incl. device-side narrowing by its settings). Returns the command unchanged on success. */
export function validateCommand(
  caps: CapabilityObject[],
  state: unknown,
  path = 'state',
): Result<Record<string, unknown>> {
  if (!isObject(state)) return { ok: false, errors: [`${path}: expected an object, got ${fmt(state)}`] };
  const index = indexDevice(caps);
  const errors: string[] = [];
  for (const key in state) {
    const p = `${path}.${key}`;
    const dc = index.get(key);
    if (!dc) {
      errors.push(`${p}: the device has no capability ${key}`);
      continue;
    }
    const v = state[key];
    if (dc.compiled.def.naming.kind === 'none') {
      if (dc.single) checkEntry(dc.single, v, p, errors);
      continue;
    }
    if (!isObject(v)) {
      errors.push(`${p}: expected an object, got ${fmt(v)}`);
      continue;
    }
    let any = false;
    for (const name in v) {
      any = true;
      const entry = dc.names.get(name);
      if (!entry) errors.push(`${p}.${name}: the device has no ${nameWord(dc.compiled)} ${name} of ${key}`);
      else checkEntry(entry, v[name], `${p}.${name}`, errors);
    }
    if (!any) errors.push(`${p}: needs at least one ${nameWord(dc.compiled)}`);
  }
  return errors.length ? { ok: false, errors } : { ok: true, value: state };
}
