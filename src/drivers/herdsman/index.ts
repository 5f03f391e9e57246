/**
 * Zigbee without Zigbee2MQTT: the driver of `zigbee.mode` `herdsman`, a USB coordinator driven
 * through zigbee-herdsman with the models of zigbee-herdsman-converters (both loaded only in this
 * mode: the converters are large). Its data (network parameters, device database, coordinator
 * backup) lives in `<data_dir>/zigbee/`.
 */

import type { Log } from '../../lib/log.ts';
import type { Settings } from '../../settings/index.ts';
import { HerdsmanDriver, type HerdsmanOptions } from './driver.ts';
import { zigbeeDir } from './zigbee-dir.ts';

export type { AdapterFactory } from './coordinator.ts';
export { DEFAULT_CONFIRM_MS, DRIVER_ID, HerdsmanDriver, type HerdsmanOptions } from './driver.ts';
export { NETWORK_FILE, type NetworkParameters } from './network-parameters.ts';
export { type AdapterType, type CoordinatorPort, listCoordinatorPorts } from './ports.ts';
export { zigbeeDir } from './zigbee-dir.ts';

/** What tests (and benchmarks) may set beyond the settings: timings, the clock, the coordinator. */
export type HerdsmanDriverOptions = Partial<
  Omit<HerdsmanOptions, 'dir' | 'serialPort' | 'adapter' | 'channel' | 'permitJoinSeconds' | 'log' | 'otaIndex'>
>;

/** `zigbee.mode` `herdsman`: the driver of the coordinator set (or found) in the settings. */
export function createHerdsman(settings: Settings, log: Log, opts: HerdsmanDriverOptions = {}): HerdsmanDriver {
  const z = settings.zigbee;
  return new HerdsmanDriver({
    dir: zigbeeDir(settings.data_dir),
    serialPort: z.serial_port,
    adapter: z.adapter,
    channel: z.channel,
    permitJoinSeconds: z.permit_join_seconds,
    activeMs: z.availability_active_minutes * 60_000,
    passiveMs: z.availability_passive_hours * 3_600_000,
    otaIndex: z.ota_index,
    debug: settings.log_level === 'debug' || settings.log_level === 'trace',
    log,
    ...opts,
  });
}
