/**
 * The drivers of a gateway, each loaded (`await import`) only when the settings configure it: with
 * Zigbee off, neither the MQTT client's broker (aedes) nor the simulator is loaded. A new driver is
 * one more entry here (see docs/architecture.md).
 */
import type { Driver } from '../core/devices/contract.ts';
import type { Clock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';
import type { Settings } from '../settings/index.ts';
import type { CameraDriverOptions } from './camera/index.ts';
import type { HerdsmanDriverOptions } from './herdsman/index.ts';
import type { SimulatedZigbeeOptions } from './zigbee-sim/index.ts';

/** What drivers may be given beyond the settings (tests shorten timings and inject timers). */
export interface DriverOptions {
  /** The clock of the drivers' timers (the gateway's). */
  clock?: Clock;
  camera?: Pick<CameraDriverOptions, 'timers' | 'lookup'>;
  zigbee?: SimulatedZigbeeOptions;
  /** Mode `herdsman`: timings, and what stands in for the USB coordinator in tests. */
  herdsman?: HerdsmanDriverOptions;
  /** Tests: drivers registered before the configured ones (e.g. one whose start the test holds). */
  first?: readonly Driver[];
}

interface DriverEntry {
  /** Whether the settings configure it. */
  enabled(settings: Settings): boolean;
  load(settings: Settings, log: Log, opts: DriverOptions): Promise<Driver>;
}

const DRIVERS: readonly DriverEntry[] = [
  {
    // Third-party devices sync through T1 at any time: always present.
    enabled: () => true,
    load: async (s, log, o) =>
      new (await import('./thirdparty/index.ts')).ThirdPartyDriver(s.thirdparty.timeout_ms, log, o.clock),
  },
  {
    enabled: (s) => s.zigbee.mode === 'z2m',
    load: async (s, log, o) =>
      (await import('./zigbee2mqtt/index.ts')).createZigbee2mqtt(s, log, { clock: o.clock, ...o.zigbee?.driver }),
  },
  {
    // zigbee-herdsman and its converters (large) are loaded only here.
    enabled: (s) => s.zigbee.mode === 'herdsman',
    load: async (s, log, o) => (await import('./herdsman/index.ts')).createHerdsman(s, log, o.herdsman),
  },
  {
    enabled: (s) => s.zigbee.mode === 'sim',
    load: async (s, log, o) =>
      (await import('./zigbee-sim/index.ts')).createSimulatedZigbee(s, log, {
        ...o.zigbee,
        driver: { clock: o.clock, ...o.zigbee?.driver },
      }).driver,
  },
  {
    // Cameras are added by hand (D2) and need no configuration: always present.
    enabled: () => true,
    load: async (s, log, o) =>
      new (await import('./camera/index.ts')).CameraDriver({ settings: s.camera, log, clock: o.clock, ...o.camera }),
  },
];

/** Loads the drivers the settings configure, in a fixed order. */
export async function loadDrivers(settings: Settings, log: Log, opts: DriverOptions = {}): Promise<Driver[]> {
  const out: Driver[] = [...(opts.first ?? [])];
  for (const entry of DRIVERS) if (entry.enabled(settings)) out.push(await entry.load(settings, log, opts));
  return out;
}
