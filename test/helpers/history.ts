/**
 * The history on a real test gateway: its store, bus and registry, a clock moved by hand, and
 * devices announced through the registry (the DriverHost every driver reports through).
 */
import assert from 'node:assert/strict';
import type { CapabilityObject } from '../../src/catalog/index.ts';
import type { DeviceRecord } from '../../src/core/devices/contract.ts';
import type { DeviceRegistry } from '../../src/core/devices/registry.ts';
import { History, type HistorySettings, type SeriesAnswer, type StepReport } from '../../src/history/index.ts';
import { silentLog } from '../../src/lib/log.ts';
import { loadSettings } from '../../src/settings/index.ts';
import { ManualClock } from './clock.ts';
import { startGateway, type TestGateway } from './foundation.ts';

export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** The `history.*` settings' defaults. */
export const HISTORY_DEFAULTS: HistorySettings = loadSettings().history;

/** Epoch ms as ISO 8601 (what the queries take). */
export const iso = (t: number): string => new Date(t).toISOString();

/** The value of an answer that must be ok (the test fails with its messages otherwise). */
export function ok<T>(r: { ok: true; value: T } | { ok: false; errors: string[] }): T {
  if (!r.ok) assert.fail(r.errors.join('; '));
  return r.value;
}

export interface HistoryRig {
  gw: TestGateway;
  clock: ManualClock;
  history: History;
  registry: DeviceRegistry;
  /** Every step the history reported (flush, rollup, prune, forget, replay). */
  steps: StepReport[];
  /** Announces a device through the registry; returns its serial number. */
  add(ref: string, name: string, capabilities: CapabilityObject[], state?: Record<string, unknown>): string;
  /** A state report of a device, as a driver makes it. */
  report(serial: string, state: Record<string, unknown>): void;
  /** Reports of many devices in one transaction of the registry (as a driver's batch). */
  reportMany(reports: [string, Record<string, unknown>][]): void;
  /** A series query that must be answered: a device's capability from `from` (to `to`, now when absent), in `points`. */
  series(serial: string, capability: string, from: number, to?: number, points?: number): SeriesAnswer;
  /** Moves the clock by `ms`, letting the upkeep's steps run; then waits for it. */
  advance(ms: number, stepMs?: number): Promise<void>;
  /** A new History on the same store (as after a restart of the gateway), the old one stopped. */
  restart(settings?: Partial<HistorySettings>): Promise<History>;
  stop(): Promise<void>;
}

export interface RigOptions {
  settings?: Partial<HistorySettings>;
  timeZone?: string;
  start?: number;
}

/** A test gateway with a History on its store, bus and registry, and a manual clock. */
export async function startHistoryRig(opts: RigOptions = {}): Promise<HistoryRig> {
  const clock = new ManualClock(opts.start ?? Date.UTC(2025, 0, 6, 0, 0, 0));
  const steps: StepReport[] = [];
  // The gateway's own history (its integration), on these settings; restart() makes new ones on its store.
  const gw = await startGateway({
    overrides: { time_zone: opts.timeZone ?? 'UTC', history: { ...opts.settings } },
    gatewayOptions: { clock, integrations: { history: { observe: (s: StepReport) => steps.push(s) } } },
  });
  const registry = gw.gateway.devices.registry;
  const own = gw.gateway.history();
  if (!own) throw new Error('the gateway has no history');
  const make = (settings: Partial<HistorySettings> = {}) =>
    new History({
      db: gw.gateway.db,
      bus: gw.gateway.bus,
      devices: registry,
      clock,
      log: silentLog,
      settings: { ...HISTORY_DEFAULTS, ...opts.settings, ...settings },
      timeZone: opts.timeZone ?? 'UTC',
      observe: (s) => steps.push(s),
    });
  const rig: HistoryRig = {
    gw,
    clock,
    history: own,
    registry,
    steps,
    add(ref, name, capabilities, state) {
      const d: DeviceRecord = registry.deviceFound('history-test', {
        driver_ref: ref,
        name,
        manufacturer: 'Test',
        model: 'T-1',
        firmware_version: '1.0.0',
        display_category: 'sensor',
        capabilities,
        state,
      });
      return d.serial_number;
    },
    report(serial, state) {
      registry.stateReported(serial, state);
    },
    reportMany(reports) {
      registry.batch(() => {
        for (const [serial, state] of reports) registry.stateReported(serial, state);
      });
    },
    series(serial, capability, from, to, points) {
      return ok(
        rig.history.series({
          serial_number: serial,
          capability,
          from: iso(from),
          ...(to === undefined ? {} : { to: iso(to) }),
          ...(points === undefined ? {} : { points }),
        }),
      );
    },
    async advance(ms, stepMs = 60_000) {
      for (let done = 0; done < ms; ) {
        const step = Math.min(stepMs, ms - done);
        clock.advance(step);
        done += step;
        await rig.history.idle();
      }
    },
    async restart(settings) {
      await rig.history.stop();
      rig.history = make(settings);
      rig.history.start();
      await rig.history.idle();
      return rig.history;
    },
    async stop() {
      await rig.history.stop();
      await gw.stop();
    },
  };
  await rig.history.idle();
  return rig;
}

export const TEMPERATURE: CapabilityObject[] = [
  { capability: 'temperature', permission: '0100' },
  { capability: 'humidity', permission: '0100' },
  { capability: 'battery', permission: '0100' },
];
export const PLUG: CapabilityObject[] = [
  { capability: 'power', permission: '1100' },
  { capability: 'toggle-electric-power', permission: '0100', name: '1' },
  { capability: 'power-consumption', permission: '0100' },
];
export const POWER_ONLY_PLUG: CapabilityObject[] = [
  { capability: 'power', permission: '1100' },
  { capability: 'toggle-electric-power', permission: '0100', name: '1' },
];
export const DOOR: CapabilityObject[] = [
  { capability: 'contact', permission: '0100' },
  { capability: 'battery', permission: '0100' },
];
export const BUTTON: CapabilityObject[] = [{ capability: 'press', permission: '0100' }];
