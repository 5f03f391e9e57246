/**
 * The alarm settings of one security mode (beyond the spec; docs/security.md): which devices
 * trigger it, its exit and entry delays, and the sound it rings and for how long. A body is checked
 * by its declared schema (compiled strictly, every problem as `path: rule`), then against the
 * devices it names.
 */
import { compileTop } from '../../catalog/compile-strict.ts';
import { fmt, isObject } from '../../catalog/format.ts';
import { arr, doc, int, type ObjectSchema, obj, oneOf, opt, str, union } from '../../catalog/schema.ts';
import { INTRUSION, type IntrusionKind, TRIGGER_CAPABILITIES } from './triggers.ts';

/** The sounds an alarm may ring (spec 2.8 sound names of the alarm family). */
export const ALARM_SOUNDS = ['alarm1', 'alarm2', 'alarm3', 'alarm4', 'alarm5'] as const;
export type AlarmSound = (typeof ALARM_SOUNDS)[number];

/** `devices: "all"`: every device with a trigger capability, including ones added later. */
export const ALL_DEVICES = 'all';

/** The intrusion sensors a mode watches by their kind: every sensor of these, including ones added later. */
export interface ByKind {
  kinds: IntrusionKind[];
}

/** Which intrusion sensors trigger a mode: every one, those of some kinds, or the ones listed. */
export type Watched = typeof ALL_DEVICES | ByKind | string[];

export interface AlarmConfig {
  /** Seconds between an arming request and the mode being armed. */
  exit_delay: number;
  /** Seconds between a trigger and the alarm, for someone coming in to disarm. */
  entry_delay: number;
  alarm_sound: AlarmSound;
  /** Seconds the alarm rings; -1 rings until cancel_alarm or a disarm. */
  alarm_duration: number;
  /** Serial numbers of the devices that trigger this mode, the kinds of sensors that do, or every sensor. */
  devices: Watched;
}

/**
 * The settings of a mode nobody configured. No exit delay: arming from an app is usually done
 * from outside, and S1-S5 keep arming at once as they always did. An entry delay of 30 s gives
 * someone who forgot to disarm the time to take out a phone. Three minutes of siren is a common
 * legal and practical limit. Away mode is watched by every sensor: nobody is home, so any
 * detection is someone who should not be there, and a sensor left out is a hole the user does not
 * know of. Home and Sleep are the modes of people at home: see PERIMETER.
 */
export const DEFAULT_CONFIG: Readonly<AlarmConfig> = Object.freeze({
  exit_delay: 0,
  entry_delay: 30,
  alarm_sound: 'alarm1',
  alarm_duration: 180,
  devices: ALL_DEVICES,
});

/**
 * What Home and Sleep mode watch unless the user chooses: doors and windows, and tamper, never
 * indoor motion. People at home move about (a child in the nursery at night, someone fetching
 * water), and a motion sensor cannot tell them from an intruder; a door or window opening, or a
 * sensor being opened or torn off, is a way in from outside. The hardware gateways arm their Home
 * mode the same way (motion sensors left out). Smoke, gas and leaks ring in every mode anyway.
 */
export const PERIMETER: Readonly<ByKind> = Object.freeze({ kinds: ['contact', 'tamper-alert'] as IntrusionKind[] });

/** The modes whose default is the perimeter (by the names of migration 1). */
const AT_HOME_MODES: ReadonlySet<string> = new Set(['home_mode', 'sleep_mode']);

/** The settings of a mode nobody configured, by its name (docs/security.md has the reasons). */
export function defaultConfig(modeName: string): AlarmConfig {
  return {
    ...DEFAULT_CONFIG,
    devices: AT_HOME_MODES.has(modeName) ? { kinds: [...PERIMETER.kinds] } : DEFAULT_CONFIG.devices,
  };
}

/** Whether a mode watching `devices` is set off by this detection of an intrusion sensor. */
export function watches(devices: Watched, t: { serial_number: string; capability: string }): boolean {
  if (devices === ALL_DEVICES) return true;
  if (Array.isArray(devices)) return devices.includes(t.serial_number);
  return (devices.kinds as readonly string[]).includes(t.capability);
}

/** The intrusion sensors a mode watching `devices` is set off by, each with the kinds of detection it watches. */
export function watchedSensors<D extends { serial_number: string; capabilities: readonly { capability: string }[] }>(
  devices: Watched,
  list: readonly D[],
): { device: D; kinds: IntrusionKind[] }[] {
  const out: { device: D; kinds: IntrusionKind[] }[] = [];
  for (const d of list) {
    const kinds = [...new Set(d.capabilities.map((c) => c.capability))].filter(
      (c): c is IntrusionKind => c in INTRUSION && watches(devices, { serial_number: d.serial_number, capability: c }),
    );
    if (kinds.length > 0) out.push({ device: d, kinds });
  }
  return out;
}

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

/** `devices`: which intrusion sensors trigger a mode (Watched), as data; the API's answers use it too. */
export const WATCHED_SCHEMA = doc(
  union(
    oneOf(ALL_DEVICES),
    arr(str(), { maxItems: CONFIG_LIMITS.devices }),
    obj({ kinds: arr(oneOf(...(Object.keys(INTRUSION) as IntrusionKind[])), { maxItems: 3 }) }),
  ),
  'serial numbers of devices with a trigger capability, {"kinds": [...]} (every sensor of those kinds, including ones added later: contact, motion, tamper-alert), or "all"',
);

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
  devices: opt(WATCHED_SCHEMA),
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
  const kinds = isObject(patch.devices) && !Array.isArray(patch.devices) ? patch.devices.kinds : undefined;
  if (Array.isArray(kinds))
    kinds.forEach((k, i) => {
      if (kinds.indexOf(k) !== i) errors.push(`devices.kinds.${i}: ${fmt(k)} is listed twice`);
    });
  if (errors.length > 0) return { ok: false, errors };
  const known: ConfigPatch = {};
  for (const k of Object.keys(CONFIG_PATCH_SCHEMA.fields) as (keyof AlarmConfig)[])
    if (patch[k] !== undefined) Object.assign(known, { [k]: patch[k] });
  return { ok: true, patch: known };
}
