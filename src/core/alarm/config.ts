/**
 * The alarm settings of one security mode (beyond the spec; docs/security.md): which devices
 * trigger it, its exit and entry delays, and the sound it rings and for how long. A body is checked
 * by its declared schema (compiled strictly, every problem as `path: rule`), then against the
 * devices it names.
 */
import { compileTop } from '../../catalog/compile-strict.ts';
import { fmt, isObject } from '../../catalog/format.ts';
import { arr, doc, int, type ObjectSchema, obj, oneOf, opt, str, union } from '../../catalog/schema.ts';
import { TRIGGER_CAPABILITIES } from './triggers.ts';

/** The sounds an alarm may ring (spec 2.8 sound names of the alarm family). */
export const ALARM_SOUNDS = ['alarm1', 'alarm2', 'alarm3', 'alarm4', 'alarm5'] as const;
export type AlarmSound = (typeof ALARM_SOUNDS)[number];

/** `devices: "all"`: every device with a trigger capability, including ones added later. */
export const ALL_DEVICES = 'all';

export interface AlarmConfig {
  /** Seconds between an arming request and the mode being armed. */
  exit_delay: number;
  /** Seconds between a trigger and the alarm, for someone coming in to disarm. */
  entry_delay: number;
  alarm_sound: AlarmSound;
  /** Seconds the alarm rings; -1 rings until cancel_alarm or a disarm. */
  alarm_duration: number;
  /** Serial numbers of the devices that trigger this mode, or every sensor. */
  devices: typeof ALL_DEVICES | string[];
}

/**
 * The settings of a mode nobody configured. No exit delay: arming from an app is usually done
 * from outside, and S1-S5 keep arming at once as they always did. An entry delay of 30 s gives
 * someone who forgot to disarm the time to take out a phone. Three minutes of siren is a common
 * legal and practical limit. Every sensor triggers: a sensor left out by default is a hole the
 * user does not know of; one that triggers too eagerly is noticed and removed from the list.
 */
export const DEFAULT_CONFIG: Readonly<AlarmConfig> = Object.freeze({
  exit_delay: 0,
  entry_delay: 30,
  alarm_sound: 'alarm1',
  alarm_duration: 180,
  devices: ALL_DEVICES,
});

/** Bounds of the settings, inclusive. */
export const CONFIG_LIMITS = Object.freeze({
  delay: { min: 0, max: 3600 },
  duration: { min: 1, max: 3600, untilCancelled: -1 },
  devices: 1000,
});

/** What the checker needs to know of a device named in `devices`. */
export interface DeviceLookup {
  get(serial: string): { name: string; capabilities: readonly { capability: string }[]; online?: boolean } | undefined;
}

export type ConfigPatch = Partial<AlarmConfig>;
export type PatchOutcome = { ok: true; patch: ConfigPatch } | { ok: false; errors: string[] };

const delay = int({ min: CONFIG_LIMITS.delay.min, max: CONFIG_LIMITS.delay.max, unit: 's' });

/**
 * A PUT body as data: any subset of the settings. Closed: this is the gateway's own route, and a
 * misspelt setting silently ignored would leave the user believing it changed. The route documents
 * this schema; parseConfigPatch checks it.
 */
export const CONFIG_PATCH_SCHEMA: ObjectSchema = obj({
  exit_delay: opt(delay),
  entry_delay: opt(delay),
  alarm_sound: opt(oneOf(...ALARM_SOUNDS)),
  // The range first: for 0 or -2 "below min 1" says more than "must be -1".
  alarm_duration: opt(
    doc(
      union(
        int({ min: CONFIG_LIMITS.duration.min, max: CONFIG_LIMITS.duration.max, unit: 's' }),
        oneOf(CONFIG_LIMITS.duration.untilCancelled),
      ),
      'seconds the alarm rings; -1 until cancelled',
    ),
  ),
  devices: opt(
    doc(
      union(oneOf(ALL_DEVICES), arr(str(), { maxItems: CONFIG_LIMITS.devices })),
      'serial numbers of devices with a trigger capability, or "all"',
    ),
  ),
});

const checkPatch = compileTop(CONFIG_PATCH_SCHEMA, 'body');

/** What the schema cannot know: each device named exists, once, and can trigger an alarm. */
function checkDevices(list: readonly string[], devices: DeviceLookup, errors: string[]): void {
  const seen = new Set<string>();
  for (const [i, serial] of list.entries()) {
    const path = `devices.${i}`;
    if (seen.has(serial)) {
      errors.push(`${path}: ${fmt(serial)} is listed twice`);
      continue;
    }
    seen.add(serial);
    const device = devices.get(serial);
    if (!device) errors.push(`${path}: no device has serial number ${fmt(serial)}`);
    else if (!device.capabilities.some((c) => (TRIGGER_CAPABILITIES as readonly string[]).includes(c.capability)))
      errors.push(
        `${path}: device ${fmt(serial)} (${fmt(device.name)}) has none of ${TRIGGER_CAPABILITIES.join(', ')}`,
      );
  }
}

/**
 * Checks a PUT body: any subset of the settings (an empty body changes nothing); unknown keys,
 * wrong types, values out of range and devices that do not exist or cannot trigger are refused.
 */
export function parseConfigPatch(body: unknown, devices: DeviceLookup): PatchOutcome {
  const errors = checkPatch(body);
  const patch = (isObject(body) ? body : {}) as ConfigPatch;
  // Every problem at once: the devices of a well-formed list are looked up even when another field is wrong.
  if (!errors.some((e) => /^devices[.:]/.test(e)) && Array.isArray(patch.devices))
    checkDevices(patch.devices, devices, errors);
  if (errors.length > 0) return { ok: false, errors };
  const known: ConfigPatch = {};
  for (const k of Object.keys(CONFIG_PATCH_SCHEMA.fields) as (keyof AlarmConfig)[])
    if (patch[k] !== undefined) Object.assign(known, { [k]: patch[k] });
  return { ok: true, patch: known };
}
