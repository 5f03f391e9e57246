/**
 * The alarm: a state machine over the security modes (S1-S5) that owns `alarm_state`. Two parts
 * move side by side (docs/security.md has the diagram):
 *
 * - the mode: disarmed -> exit delay -> armed, and back to disarmed on a disarm;
 * - the alarm: idle -> entry delay -> alarming -> idle, when its length runs out, on cancel_alarm
 *   (G7) or on a disarm.
 *
 * A detection by a sensor the armed mode lists starts the entry delay; smoke, gas and water
 * leaks ring at once, armed or not. Every change is stored before the call returns, so a restart
 * picks up a sounding alarm and a running delay. Time is the injected Clock: tests move it. The
 * calls of a person (S2-S5, G7) take who asked (`by`): the activity log names them.
 */

import type { Clock } from '../../lib/clock.ts';
import type { Db, KvStore } from '../../store/db.ts';
import type { Actor } from '../actor.ts';
import type { AudioArbiter } from '../audio/arbiter.ts';
import type { BusEvent, EventBus } from '../event-bus.ts';
import type { SecurityMode, SecurityOutcome, SecurityService } from '../security.ts';
import {
  type AlarmConfig,
  type AlarmSound,
  type DeviceLookup,
  defaultConfig,
  parseConfigPatch,
  watches,
} from './config.ts';
import { AlarmConfigStore } from './config-store.ts';
import { type AlarmState, loadAlarm, type SavedAlarm, saveAlarm, type Trigger } from './saved.ts';
import { detections, isLifeSafety } from './triggers.ts';

/** The five stages of the alarm as one value: the alarm's when it is pending or sounding, else the mode's. */
export type AlarmStage = 'disarmed' | 'exit_delay' | 'armed' | 'entry_delay' | 'alarming';

/** What `GET security/alarm` shows. */
export interface AlarmStatus {
  stage: AlarmStage;
  alarm_state: AlarmState;
  /** The mode armed or arming, if any. */
  mode: { sid: number; name: string } | null;
  /** When the running delay or alarm ends (ISO 8601); null when none runs or it rings until cancelled. */
  ends_at: string | null;
  /** What set off the pending or sounding alarm. */
  trigger: Trigger | null;
  /** The sound of the sounding alarm. */
  sound: AlarmSound | null;
}

/** A mode's settings as the API shows them. */
export type ModeConfig = { sid: number; name: string } & AlarmConfig;

export type ConfigOutcome =
  | { ok: true; config: ModeConfig }
  | { ok: false; reason: 'unknown_sid' }
  | { ok: false; reason: 'invalid'; errors: string[] };

/** Told when a mode is really armed (after its exit delay) and when it is disarmed: the beeps. */
export interface ArmSignals {
  armed(): void;
  disarmed(): void;
}

/** The devices as the alarm reads them: to check a configured list and to know states at start. */
export interface AlarmDevices extends DeviceLookup {
  list(): readonly { serial_number: string; state: Record<string, unknown> }[];
}

export interface AlarmDeps {
  db: Db;
  kv: KvStore;
  bus: EventBus;
  security: SecurityService;
  arbiter: Pick<AudioArbiter, 'play' | 'stop'>;
  clock: Clock;
  devices: AlarmDevices;
  signals?: ArmSignals;
  log?: { warn(obj: object, msg: string): void };
}

interface ModePart {
  stage: 'disarmed' | 'exit_delay' | 'armed';
  sid: number | null;
  endsAt: number | null;
}

interface AlarmPart {
  stage: 'idle' | 'entry_delay' | 'alarming';
  trigger: Trigger | null;
  sound: AlarmSound | null;
  /** Seconds it rings (-1: until cancelled), chosen when it began. */
  duration: number;
  endsAt: number | null;
}

type TimerKind = 'exit' | 'entry' | 'ring';

const IDLE: AlarmPart = { stage: 'idle', trigger: null, sound: null, duration: 0, endsAt: null };
const DISARMED: ModePart = { stage: 'disarmed', sid: null, endsAt: null };

export class AlarmService {
  private readonly configs: AlarmConfigStore;
  private mode: ModePart;
  private alarm: AlarmPart;
  private alarmState: AlarmState;
  /** Cancels of the running timers, one per kind. */
  private readonly timers: Partial<Record<TimerKind, () => void>> = {};
  /** Per device, per trigger capability: whether it reads "detected" now. A trigger is a change to detected. */
  private readonly detected = new Map<string, Map<string, boolean>>();
  private off: (() => void) | undefined;

  constructor(private readonly deps: AlarmDeps) {
    // A mode nobody configured has the defaults of its kind (Home and Sleep watch the perimeter).
    this.configs = new AlarmConfigStore(deps.db, (sid) =>
      defaultConfig(deps.security.list().find((m) => m.sid === sid)?.name ?? ''),
    );
    const saved = loadAlarm(deps.kv);
    // The armed mode is the one S1 shows; the saved state only says how far it had got.
    const armed = deps.security.armed();
    this.mode = armed
      ? { stage: saved.exit_sid === armed.sid ? 'exit_delay' : 'armed', sid: armed.sid, endsAt: null }
      : { ...DISARMED };
    const a = saved.alarm;
    // An entry delay belongs to an armed mode; one left over from an inconsistent store is dropped.
    this.alarm =
      a && (a.stage === 'alarming' || this.mode.stage === 'armed')
        ? { stage: a.stage, trigger: a.trigger, sound: a.sound, duration: a.duration, endsAt: null }
        : { ...IDLE };
    this.alarmState = this.alarm.stage === 'alarming' ? 'alarming' : 'normal';
  }

  /**
   * Follows device states, and resumes what a restart interrupted: a running exit or entry delay
   * starts again in full, and an alarm that was sounding sounds again for its full length.
   */
  start(): void {
    if (this.off) return;
    for (const d of this.deps.devices.list()) this.noteDetections(d.serial_number, d.state);
    this.off = this.deps.bus.subscribe((e) => this.onEvent(e));
    if (this.mode.stage === 'exit_delay' && this.mode.sid !== null) this.startExit(this.mode.sid);
    if (this.alarm.stage === 'entry_delay' && this.alarm.trigger) this.startEntry(this.alarm.trigger);
    else if (this.alarm.stage === 'alarming' && this.alarm.trigger && this.alarm.sound)
      this.ring(this.alarm.trigger, this.alarm.sound, this.alarm.duration);
    this.save();
  }

  /** Stops following devices and cancels timers. The stored state stays: the next start resumes it. */
  stop(): void {
    this.off?.();
    this.off = undefined;
    for (const kind of ['exit', 'entry', 'ring'] as const) this.cancelTimer(kind);
  }

  /** The stage, the alarm state and what runs now. */
  status(): AlarmStatus {
    const a = this.alarm.stage;
    const endsAt = a === 'idle' ? this.mode.endsAt : this.alarm.endsAt;
    return {
      stage: a === 'idle' ? this.mode.stage : a,
      alarm_state: this.alarmState,
      mode: this.mode.sid === null ? null : this.modeRef(this.mode.sid),
      ends_at: endsAt === null ? null : new Date(endsAt).toISOString(),
      trigger: this.alarm.trigger,
      sound: this.alarm.stage === 'alarming' ? this.alarm.sound : null,
    };
  }

  // ---- S2-S5 and G7 ----

  /** Arms a mode (S2): the mode armed before is disarmed; the new one is armed after its exit delay. */
  arm(sid: number, by?: Actor): SecurityOutcome {
    const before = this.deps.security.armed()?.sid ?? null;
    const result = this.deps.security.enable(sid, by);
    if (result.ok) this.armed(before, sid, by);
    return result;
  }

  /** One-click arming (S4) of the default mode. */
  armDefault(by?: Actor): SecurityOutcome {
    const before = this.deps.security.armed()?.sid ?? null;
    const result = this.deps.security.enableDefault(by);
    const now = this.deps.security.armed()?.sid;
    if (result.ok && now !== undefined) this.armed(before, now, by);
    return result;
  }

  /** Disarms a mode (S3) at once; when it is the armed one, a pending or sounding alarm stops. */
  disarm(sid: number, by?: Actor): SecurityOutcome {
    const before = this.deps.security.armed()?.sid ?? null;
    const result = this.deps.security.disable(sid, by);
    if (result.ok && before === sid) this.disarmed(by);
    return result;
  }

  /** Disarms every mode (S5) and stops any alarm, a smoke alarm while nothing is armed too. */
  disarmAll(by?: Actor): void {
    const before = this.deps.security.armed();
    this.deps.security.disableAll(by);
    if (before) this.disarmed(by);
    else if (this.alarm.stage !== 'idle') {
      this.endAlarm(by);
      this.save();
    }
  }

  /**
   * cancel_alarm (G7): a sounding or pending alarm stops and `alarm_state` is back to `normal`
   * (issue 11: the alarm ends on G7 as on a disarm); the mode stays armed, so a new detection
   * starts a new alarm. With no alarm it changes nothing and emits nothing.
   */
  cancel(by?: Actor): void {
    this.endAlarm(by);
    this.save();
  }

  // ---- configuration ----

  /** The alarm settings of a mode. */
  config(sid: number): ConfigOutcome {
    const mode = this.deps.security.list().find((m) => m.sid === sid);
    if (!mode) return { ok: false, reason: 'unknown_sid' };
    return { ok: true, config: { sid, name: mode.name, ...this.configs.get(sid) } };
  }

  /**
   * Changes some settings of a mode (a checked body, see config.ts). A running delay or alarm
   * keeps the settings it began with; the next one uses the new ones.
   */
  configure(sid: number, body: unknown): ConfigOutcome {
    const mode = this.deps.security.list().find((m) => m.sid === sid);
    if (!mode) return { ok: false, reason: 'unknown_sid' };
    const parsed = parseConfigPatch(body, this.deps.devices);
    if (!parsed.ok) return { ok: false, reason: 'invalid', errors: parsed.errors };
    const next = { ...this.configs.get(sid), ...parsed.patch };
    this.configs.set(sid, next);
    return { ok: true, config: { sid, name: mode.name, ...next } };
  }

  // ---- transitions ----

  private armed(before: number | null, sid: number, by: Actor | undefined): void {
    if (before !== sid) {
      if (before !== null) this.leaveMode(by);
      this.startExit(sid);
    }
    this.save();
  }

  private disarmed(by: Actor | undefined): void {
    this.leaveMode(by);
    this.save();
  }

  /** The mode is no longer armed (`by` whom): its timers stop, and so does any alarm. */
  private leaveMode(by: Actor | undefined): void {
    this.cancelTimer('exit');
    this.mode = { ...DISARMED };
    if (this.alarm.stage !== 'idle') this.endAlarm(by);
    this.deps.signals?.disarmed();
  }

  private startExit(sid: number): void {
    this.cancelTimer('exit');
    const seconds = this.configs.get(sid).exit_delay;
    if (seconds === 0) {
      this.enterArmed(sid);
      return;
    }
    const now = this.deps.clock.now();
    this.mode = { stage: 'exit_delay', sid, endsAt: now + seconds * 1000 };
    this.timers.exit = this.deps.clock.setTimer(seconds * 1000, () => {
      this.timers.exit = undefined;
      this.enterArmed(sid);
      this.save();
    });
  }

  private enterArmed(sid: number): void {
    this.mode = { stage: 'armed', sid, endsAt: null };
    this.deps.signals?.armed();
  }

  private onEvent(e: BusEvent): void {
    if (e.name === 'device#deleteDevice') {
      this.detected.delete((e as BusEvent<'device#deleteDevice'>).data.endpoint.serial_number);
      return;
    }
    if (e.name !== 'device#updateDeviceState') return;
    const { endpoint, payload } = (e as BusEvent<'device#updateDeviceState'>).data;
    const fresh = this.noteDetections(endpoint.serial_number, payload);
    if (fresh.length === 0) return;
    // A report from a device the gateway holds offline is still the device speaking: a detection
    // is acted on (a missed intrusion or fire is worse than a confusing display), and marked so.
    const offline = this.deps.devices.get(endpoint.serial_number)?.online === false;
    for (const t of fresh) this.trigger(offline ? { ...t, device_offline: true } : t);
  }

  /** Records what a (partial) state says and returns the capabilities that have just become detected. */
  private noteDetections(serial: string, state: Record<string, unknown>): Trigger[] {
    const found = detections(state);
    if (found.length === 0) return [];
    let known = this.detected.get(serial);
    if (!known) {
      known = new Map();
      this.detected.set(serial, known);
    }
    const fresh: Trigger[] = [];
    for (const [capability, now] of found) {
      if (now && !known.get(capability)) fresh.push({ serial_number: serial, capability });
      known.set(capability, now);
    }
    return fresh;
  }

  private trigger(t: Trigger): void {
    if (isLifeSafety(t.capability)) {
      if (this.alarm.stage !== 'alarming') {
        this.noteOffline(t);
        this.startAlarm(t);
      }
      return;
    }
    if (this.mode.stage !== 'armed' || this.mode.sid === null || this.alarm.stage !== 'idle') return;
    if (!watches(this.configs.get(this.mode.sid).devices, t)) return;
    this.noteOffline(t);
    this.startEntry(t);
  }

  /** The person reading the log learns that the alarm acted on a device shown offline. */
  private noteOffline(t: Trigger): void {
    if (!t.device_offline) return;
    const name = this.deps.devices.get(t.serial_number)?.name ?? t.serial_number;
    this.deps.log?.warn(
      { serial_number: t.serial_number, capability: t.capability },
      `alarm set off by ${name} (${t.capability}), which the gateway shows offline: its report is acted on`,
    );
  }

  private startEntry(t: Trigger): void {
    const sid = this.mode.sid;
    const seconds = sid === null ? 0 : this.configs.get(sid).entry_delay;
    if (seconds === 0) {
      this.startAlarm(t);
      return;
    }
    this.cancelTimer('entry');
    this.alarm = { ...IDLE, stage: 'entry_delay', trigger: t, endsAt: this.deps.clock.now() + seconds * 1000 };
    this.timers.entry = this.deps.clock.setTimer(seconds * 1000, () => {
      this.timers.entry = undefined;
      this.startAlarm(t);
    });
    this.save();
  }

  /** The alarm rings with the armed mode's sound; with no mode armed (smoke), the default mode's. */
  private startAlarm(t: Trigger): void {
    this.cancelTimer('entry');
    const sid = this.mode.sid ?? this.deps.security.defaultMode()?.sid;
    const config = sid === undefined ? undefined : this.configs.get(sid);
    this.ring(t, config?.alarm_sound ?? 'alarm1', config?.alarm_duration ?? -1);
    this.setAlarmState('alarming');
    this.save();
  }

  private ring(t: Trigger, sound: AlarmSound, duration: number): void {
    this.cancelTimer('ring');
    const now = this.deps.clock.now();
    const played = this.deps.arbiter.play({ layer: 'alarm', name: sound, repeat: { until: null } });
    if (!played.ok) this.deps.log?.warn({ sound, reason: played.reason }, 'alarm sound not played');
    this.alarm = {
      stage: 'alarming',
      trigger: t,
      sound,
      duration,
      endsAt: duration > 0 ? now + duration * 1000 : null,
    };
    if (duration > 0)
      this.timers.ring = this.deps.clock.setTimer(duration * 1000, () => {
        this.timers.ring = undefined;
        this.endAlarm();
        this.save();
      });
  }

  /** A pending or sounding alarm stops (`by` whom, or by itself); `alarm_state` is back to `normal`. */
  private endAlarm(by?: Actor): void {
    this.cancelTimer('entry');
    this.cancelTimer('ring');
    if (this.alarm.stage === 'alarming') this.deps.arbiter.stop('alarm');
    this.alarm = { ...IDLE };
    this.setAlarmState('normal', by);
  }

  private setAlarmState(next: AlarmState, by?: Actor): void {
    if (this.alarmState === next) return;
    this.alarmState = next;
    this.deps.bus.publish('bridge#updateAlarmState', { payload: { alarm_state: next } }, by);
  }

  private cancelTimer(kind: TimerKind): void {
    this.timers[kind]?.();
    this.timers[kind] = undefined;
  }

  private modeRef(sid: number): { sid: number; name: string } {
    const m: SecurityMode | undefined = this.deps.security.list().find((x) => x.sid === sid);
    return { sid, name: m?.name ?? '' };
  }

  private save(): void {
    const a = this.alarm;
    const saved: SavedAlarm = {
      alarm_state: this.alarmState,
      exit_sid: this.mode.stage === 'exit_delay' ? this.mode.sid : null,
      alarm:
        a.stage === 'idle' || !a.trigger
          ? null
          : { stage: a.stage, trigger: a.trigger, sound: a.sound ?? 'alarm1', duration: a.duration },
    };
    saveAlarm(this.deps.kv, saved);
  }
}
