/**
 * The alarm with every real part around it (SQLite store, event bus, security modes, device
 * registry, audio arbiter) on a manual clock and a recording sink, restartable on the same store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlarmService, type TriggerCapability } from '../../src/core/alarm/index.ts';
import { AudioArbiter } from '../../src/core/audio/arbiter.ts';
import { SoundLibrary } from '../../src/core/audio/library.ts';
import { DeviceRegistry } from '../../src/core/devices/index.ts';
import { EventBus } from '../../src/core/event-bus.ts';
import { SecurityService } from '../../src/core/security.ts';
import { RecordingSink } from '../../src/drivers/audio/recording-sink.ts';
import { type Db, KvStore, openDb } from '../../src/store/db.ts';
import { ManualClock } from '../helpers/audio.ts';

const library = new SoundLibrary();

/** The state a sensor reports for "detected" and for "clear", by capability. */
export const REPORTS: Record<TriggerCapability, (on: boolean) => Record<string, unknown>> = {
  contact: (on) => ({ contact: { contact: on } }),
  motion: (on) => ({ motion: { motion: on } }),
  'tamper-alert': (on) => ({ 'tamper-alert': { tamper: on ? 'detected' : 'clear' } }),
  smoke: (on) => ({ smoke: { smoke: on } }),
  gas: (on) => ({ gas: { gas: on } }),
  'water-leak': (on) => ({ 'water-leak': { waterLeak: on } }),
};

export interface Rig {
  db: Db;
  bus: EventBus;
  alarm: AlarmService;
  security: SecurityService;
  registry: DeviceRegistry;
  clock: ManualClock;
  sink: RecordingSink;
  arbiter: AudioArbiter;
  /** alarm_state of every bridge#updateAlarmState, in order. */
  alarmStates: string[];
  /** `arming:2`, `disarming:2` for every security#updateArmState. */
  armStates: string[];
  /** `armed`/`disarmed` as the alarm told the beeps. */
  beeps: string[];
  /** What the alarm logged at `warn`. */
  warnings: string[];
  /** Adds a sensor with one trigger capability (clear at first); returns its serial number. */
  sensor(capability?: TriggerCapability, ref?: string): string;
  /** A sensor reports detected (or clear). */
  report(serial: string, capability: TriggerCapability, detected?: boolean): void;
  /** The alarm sound heard now, if any. */
  ringing(): string | undefined;
  /** The stage the alarm shows. */
  stage(): string;
  /** Stops this one and starts the alarm again on the same store, `downMs` later on a new clock. */
  restart(downMs?: number): Rig;
  close(): void;
}

/** A rig on a fresh store; `close()` removes it. */
export function rig(): Rig {
  const dir = mkdtempSync(join(tmpdir(), 'opencube-alarm-'));
  return boot(dir, new ManualClock());
}

function boot(dir: string, clock: ManualClock): Rig {
  const db = openDb(join(dir, 'gateway.db'));
  const bus = new EventBus(10_000);
  const alarmStates: string[] = [];
  const armStates: string[] = [];
  bus.subscribe((e) => {
    if (e.name === 'bridge#updateAlarmState')
      alarmStates.push((e.data as { payload: { alarm_state: string } }).payload.alarm_state);
    if (e.name === 'security#updateArmState') {
      const p = (e.data as { payload: { arm_state: string; detail: { sid: number } } }).payload;
      armStates.push(`${p.arm_state}:${p.detail.sid}`);
    }
  });
  const security = new SecurityService(db, bus);
  const sink = new RecordingSink(clock);
  const arbiter = new AudioArbiter({ sink, clock, library });
  const registry = new DeviceRegistry(db, bus);
  const beeps: string[] = [];
  const warnings: string[] = [];
  const alarm = new AlarmService({
    db,
    kv: new KvStore(db),
    bus,
    security,
    arbiter,
    clock,
    devices: registry,
    signals: { armed: () => beeps.push('armed'), disarmed: () => beeps.push('disarmed') },
    log: { warn: (_obj, msg) => warnings.push(msg) },
  });
  alarm.start();
  let closed = false;
  const stop = () => {
    if (closed) return;
    closed = true;
    alarm.stop();
    arbiter.stop();
    db.close();
  };
  return {
    db,
    bus,
    alarm,
    security,
    registry,
    clock,
    sink,
    arbiter,
    alarmStates,
    armStates,
    beeps,
    warnings,
    sensor(capability = 'contact', ref = `${capability}-${registry.size + 1}`) {
      return registry.deviceFound('test', {
        driver_ref: ref,
        name: `Sensor ${ref}`,
        manufacturer: 'ACME',
        model: 'S1',
        firmware_version: '1.0.0',
        display_category: 'sensor',
        capabilities: [{ capability, permission: '0100' }],
        state: REPORTS[capability](false),
      }).serial_number;
    },
    report(serial, capability, detected = true) {
      registry.stateReported(serial, REPORTS[capability](detected));
    },
    ringing() {
      const p = sink.playing();
      return p?.layer === 'alarm' ? p.name : undefined;
    },
    stage: () => alarm.status().stage,
    restart(downMs = 3_600_000) {
      stop();
      return boot(dir, new ManualClock(clock.now() + downMs));
    },
    close() {
      stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
