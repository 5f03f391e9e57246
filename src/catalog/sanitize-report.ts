/** Lenient validation of what a device reports (T1 state reports, DiscoveryRequest state, Zigbee). */
import { type Clean, DROP } from './compile-lenient.ts';
import { type DeviceEntry, indexDevice, nameWord } from './device.ts';
import { fmt, isObject, keyPath } from './format.ts';
import type { CapabilityObject } from './types.ts';

function cleanEntry(entry: DeviceEntry, v: unknown, path: string, warnings: string[]): unknown {
  const report = entry.body.report;
  if (!report) {
    warnings.push(`${path}: ${entry.cap.capability} has no state (dropped)`);
    return DROP;
  }
  return dropEmpty(report.clean, v, path, warnings);
}

// A body whose every field was dropped says nothing; drop it too rather than keep `{}`.
function dropEmpty(clean: Clean, v: unknown, path: string, warnings: string[]): unknown {
  const c = clean(v, path, warnings);
  if (isObject(c) && Object.keys(c).length === 0 && isObject(v) && Object.keys(v).length > 0) return DROP;
  return c;
}

/** Lenient: a device's state report (T1 DeviceStatesChangeReport, DiscoveryRequest initial state, Zigbee). Keeps the valid part, clamps or drops bad fields field by field. Unknown capabilities (not on the device) are dropped with a warning. */
export function sanitizeReport(
  caps: CapabilityObject[],
  state: unknown,
): { state: Record<string, unknown>; warnings: string[] } {
  const path = 'state';
  const warnings: string[] = [];
  const out: Record<string, unknown> = {};
  if (!isObject(state)) {
    warnings.push(`${path}: expected an object, got ${fmt(state)} (dropped)`);
    return { state: out, warnings };
  }
  const index = indexDevice(caps);
  for (const key in state) {
    const p = keyPath(path, key);
    const dc = index.get(key);
    if (!dc) {
      warnings.push(`${p}: the device has no capability ${key} (dropped)`);
      continue;
    }
    const v = state[key];
    if (dc.compiled.def.naming.kind === 'none') {
      const c = dc.single ? cleanEntry(dc.single, v, p, warnings) : DROP;
      if (c !== DROP) out[key] = c;
      continue;
    }
    if (!isObject(v)) {
      warnings.push(`${p}: expected an object, got ${fmt(v)} (dropped)`);
      continue;
    }
    // A capability-level query result (irrigation) is told apart from named bodies by its `type`.
    if (dc.compiled.result && 'type' in v) {
      const c = dropEmpty(dc.compiled.result, v, p, warnings);
      if (c !== DROP) out[key] = c;
      continue;
    }
    const names: Record<string, unknown> = {};
    for (const name in v) {
      const entry = dc.names.get(name);
      if (!entry) {
        warnings.push(`${keyPath(p, name)}: the device has no ${nameWord(dc.compiled)} ${name} of ${key} (dropped)`);
        continue;
      }
      const c = cleanEntry(entry, v[name], keyPath(p, name), warnings);
      if (c !== DROP) names[name] = c;
    }
    if (Object.keys(names).length > 0) out[key] = names;
  }
  return { state: out, warnings };
}
