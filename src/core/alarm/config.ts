/**
 * The alarm settings of one security mode (beyond the spec; docs/security.md): which devices
 * trigger it, its exit and entry delays, and the sound it rings and for how long. Checked here,
 * strictly, with every problem of a body reported as `path: rule`.
 */
import { fmt, isObject } from '../../catalog/format.ts';
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
  get(serial: string): { name: string; capabilities: readonly { capability: string }[] } | undefined;
}

export type ConfigPatch = Partial<AlarmConfig>;
export type PatchOutcome = { ok: true; patch: ConfigPatch } | { ok: false; errors: string[] };

const FIELDS = ['exit_delay', 'entry_delay', 'alarm_sound', 'alarm_duration', 'devices'] as const;

function delay(v: unknown, path: string, errors: string[]): number | undefined {
  const { min, max } = CONFIG_LIMITS.delay;
  if (typeof v !== 'number' || !Number.isInteger(v)) errors.push(`${path}: ${fmt(v)} is not an integer (seconds)`);
  else if (v < min) errors.push(`${path}: ${v} is below min ${min}`);
  else if (v > max) errors.push(`${path}: ${v} is above max ${max}`);
  else return v;
  return undefined;
}

function duration(v: unknown, errors: string[]): number | undefined {
  const { min, max, untilCancelled } = CONFIG_LIMITS.duration;
  if (typeof v !== 'number' || !Number.isInteger(v))
    errors.push(`alarm_duration: ${fmt(v)} is not an integer (seconds)`);
  else if (v !== untilCancelled && (v < min || v > max))
    errors.push(`alarm_duration: ${v} is neither ${untilCancelled} (until cancelled) nor within ${min}-${max}`);
  else return v;
  return undefined;
}

function deviceList(v: unknown, devices: DeviceLookup, errors: string[]): AlarmConfig['devices'] | undefined {
  if (v === ALL_DEVICES) return ALL_DEVICES;
  if (!Array.isArray(v)) {
    errors.push(`devices: ${fmt(v)} is neither "${ALL_DEVICES}" nor an array of serial numbers`);
    return undefined;
  }
  if (v.length > CONFIG_LIMITS.devices) {
    errors.push(`devices: ${v.length} entries is above max ${CONFIG_LIMITS.devices}`);
    return undefined;
  }
  const before = errors.length;
  const seen = new Set<string>();
  for (const [i, serial] of v.entries()) {
    const path = `devices.${i}`;
    if (typeof serial !== 'string') {
      errors.push(`${path}: ${fmt(serial)} is not a serial number (a string)`);
      continue;
    }
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
  return errors.length === before ? (v as string[]) : undefined;
}

/**
 * Checks a PUT body: any subset of the settings (an empty body changes nothing); unknown keys,
 * wrong types, values out of range and devices that do not exist or cannot trigger are refused.
 */
export function parseConfigPatch(body: unknown, devices: DeviceLookup): PatchOutcome {
  if (!isObject(body)) return { ok: false, errors: [`body: expected a JSON object, got ${fmt(body)}`] };
  const errors: string[] = [];
  const patch: ConfigPatch = {};
  for (const key of Object.keys(body)) {
    if (!(FIELDS as readonly string[]).includes(key))
      errors.push(`${key.length > 40 ? `${key.slice(0, 40)}...` : key}: unknown field (known: ${FIELDS.join(', ')})`);
  }
  if (body.exit_delay !== undefined) patch.exit_delay = delay(body.exit_delay, 'exit_delay', errors);
  if (body.entry_delay !== undefined) patch.entry_delay = delay(body.entry_delay, 'entry_delay', errors);
  if (body.alarm_sound !== undefined) {
    if ((ALARM_SOUNDS as readonly unknown[]).includes(body.alarm_sound))
      patch.alarm_sound = body.alarm_sound as AlarmSound;
    else errors.push(`alarm_sound: ${fmt(body.alarm_sound)} is not one of ${ALARM_SOUNDS.join(', ')}`);
  }
  if (body.alarm_duration !== undefined) patch.alarm_duration = duration(body.alarm_duration, errors);
  if (body.devices !== undefined) patch.devices = deviceList(body.devices, devices, errors);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, patch };
}
