/** Zigbee through Zigbee2MQTT's MQTT API: the driver of `zigbee.mode` `z2m` (`sim` runs it on the simulated network). */
import type { Driver } from '../../core/devices/contract.ts';
import type { Log } from '../../lib/log.ts';
import type { Settings } from '../../settings/index.ts';
import { Zigbee2MqttDriver, type Zigbee2MqttOptions } from './driver.ts';

export {
  DEFAULT_CONFIRM_MS,
  DRIVER_ID,
  splitRef,
  Zigbee2MqttDriver,
  type Zigbee2MqttOptions,
} from './driver.ts';
export type { Z2mDevice } from './types.ts';

/** `zigbee.mode` `z2m`: the driver of the Zigbee2MQTT instances behind `zigbee.mqtt_url`. */
export function createZigbee2mqtt(
  settings: Settings,
  log: Log,
  driver: Partial<Omit<Zigbee2MqttOptions, 'url' | 'baseTopics' | 'log'>> = {},
): Driver {
  const z = settings.zigbee;
  return new Zigbee2MqttDriver({
    url: z.mqtt_url,
    baseTopics: z.base_topics,
    permitJoinSeconds: z.permit_join_seconds,
    otaIndex: z.ota_index,
    dataDir: settings.data_dir,
    log,
    ...driver,
  });
}
