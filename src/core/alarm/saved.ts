/**
 * What of the alarm survives a restart (kv key `alarm`): the alarm state clients see, a running
 * exit delay, and a pending or sounding alarm. Deadlines are not kept: a box without a real-time
 * clock can boot with its clock far off, so a restart starts delays and the alarm afresh
 * (docs/security.md, "Restarts").
 */
import { isObject } from '../../catalog/format.ts';
import type { KvStore } from '../../store/db.ts';
import { ALARM_SOUNDS, type AlarmSound, CONFIG_LIMITS, DEFAULT_CONFIG } from './config.ts';
import { TRIGGER_CAPABILITIES, type TriggerCapability } from './triggers.ts';

/** The alarm state of `bridge#updateAlarmState`. */
export type AlarmState = 'normal' | 'alarming';

/** What set an alarm off. */
export interface Trigger {
  serial_number: string;
  capability: TriggerCapability;
  /**
   * Present (true) when the gateway held the device offline as its report came: the alarm acts on
   * it all the same (a report is the device speaking), and says so (docs/security.md, "Triggers").
   */
  device_offline?: true;
}

export interface SavedAlarm {
  alarm_state: AlarmState;
  /** The mode whose exit delay was running, if one was. */
  exit_sid: number | null;
  /** A pending (entry delay) or sounding alarm, with the sound and length chosen when it began. */
  alarm: {
    stage: 'entry_delay' | 'alarming';
    trigger: Trigger;
    sound: AlarmSound;
    duration: number;
  } | null;
}

const KEY = 'alarm';
const NOTHING: SavedAlarm = { alarm_state: 'normal', exit_sid: null, alarm: null };

function trigger(v: unknown): Trigger | null {
  if (!isObject(v) || typeof v.serial_number !== 'string') return null;
  if (!(TRIGGER_CAPABILITIES as unknown[]).includes(v.capability)) return null;
  return {
    serial_number: v.serial_number,
    capability: v.capability as TriggerCapability,
    ...(v.device_offline === true ? { device_offline: true as const } : {}),
  };
}

function alarm(v: unknown): SavedAlarm['alarm'] {
  if (!isObject(v) || (v.stage !== 'entry_delay' && v.stage !== 'alarming')) return null;
  const t = trigger(v.trigger);
  if (!t) return null;
  const sound = (ALARM_SOUNDS as readonly unknown[]).includes(v.sound)
    ? (v.sound as AlarmSound)
    : DEFAULT_CONFIG.alarm_sound;
  const d = v.duration;
  const { min, max, untilCancelled } = CONFIG_LIMITS.duration;
  const duration =
    typeof d === 'number' && Number.isInteger(d) && (d === untilCancelled || (d >= min && d <= max))
      ? d
      : DEFAULT_CONFIG.alarm_duration;
  return { stage: v.stage, trigger: t, sound, duration };
}

/**
 * Reads the saved alarm. A value that is missing, or was written by another version and does not
 * fit, reads as far as it can: an unreadable part is "nothing pending", never a crash at boot.
 */
export function loadAlarm(kv: KvStore): SavedAlarm {
  let v: unknown;
  try {
    v = kv.get<unknown>(KEY, NOTHING);
  } catch {
    return { ...NOTHING };
  }
  if (!isObject(v)) return { ...NOTHING };
  return {
    // `cancelled`, which G7 gave before it ended the alarm as issue 11 says, reads as `normal`.
    alarm_state: v.alarm_state === 'alarming' ? 'alarming' : 'normal',
    exit_sid: typeof v.exit_sid === 'number' && Number.isInteger(v.exit_sid) ? v.exit_sid : null,
    alarm: alarm(v.alarm),
  };
}

/** Writes the alarm's state (committed when this returns). */
export function saveAlarm(kv: KvStore, saved: SavedAlarm): void {
  kv.set(KEY, saved);
}
