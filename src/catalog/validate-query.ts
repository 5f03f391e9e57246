/** Strict validation of a D6 query body (`query_state`) for one capability of a device. */
import { indexDevice, nameWord } from './device.ts';
import { fmt, isObject } from './format.ts';
import type { CapabilityObject, Result } from './types.ts';

/** Strict validation of a D6 query body (`query_state`) for one capability of this device, e.g. power-consumption summarize/rlSummarize, toggle-power-consumption, irrigation. For capabilities without a specific query body, accept `{}` or the capability's state-shaped object. */
export function validateQuery(
  caps: CapabilityObject[],
  capability: string,
  query: unknown,
  path = 'query_state',
): Result<Record<string, unknown>> {
  if (!isObject(query)) return { ok: false, errors: [`${path}: expected an object, got ${fmt(query)}`] };
  const dc = indexDevice(caps).get(capability);
  if (!dc) return { ok: false, errors: [`${path}: the device has no capability ${capability}`] };
  // The spec writes query bodies keyed by the capability (`{power-consumption:{...}}`); the bare body is served too.
  const keys = Object.keys(query);
  const keyed = keys.length === 1 && keys[0] === capability && isObject(query[capability]);
  const body = keyed ? (query[capability] as Record<string, unknown>) : query;
  const p = keyed ? `${path}.${capability}` : path;
  const errors: string[] = [];
  if (dc.compiled.query) dc.compiled.query(body, p, errors);
  else if (dc.compiled.def.naming.kind === 'none') dc.single?.body.query.check(body, p, errors);
  else
    for (const name in body) {
      const entry = dc.names.get(name);
      if (!entry) errors.push(`${p}.${name}: the device has no ${nameWord(dc.compiled)} ${name} of ${capability}`);
      else entry.body.query.check(body[name], `${p}.${name}`, errors);
    }
  return errors.length ? { ok: false, errors } : { ok: true, value: query };
}
