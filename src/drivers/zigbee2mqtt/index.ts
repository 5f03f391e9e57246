/**
 * Zigbee for the gateway: the Zigbee2MQTT driver, and in `sim` mode the built-in simulated
 * network (embedded broker on loopback plus simulated Zigbee2MQTT instances) it connects to.
 */

import type { Driver } from '../../core/devices/contract.ts';
import type { Settings } from '../../settings/index.ts';
import { type SimNetwork, type SimNetworkOptions, startSimNetwork } from '../zigbee-sim/index.ts';
import { Zigbee2MqttDriver, type Zigbee2MqttOptions, type ZigbeeLog } from './driver.ts';

export {
  DEFAULT_CONFIRM_MS,
  DRIVER_ID,
  splitRef,
  Zigbee2MqttDriver,
  type Zigbee2MqttOptions,
  type ZigbeeLog,
} from './driver.ts';

export interface ZigbeeOptions {
  /** Driver timings (tests shorten them). */
  driver?: Partial<
    Pick<Zigbee2MqttOptions, 'confirmMs' | 'requestMs' | 'reconnectMinMs' | 'reconnectMaxMs' | 'readPaceMs' | 'clock'>
  >;
  /** Simulator options in `sim` mode. */
  sim?: SimNetworkOptions['sim'];
}

export interface Zigbee {
  drivers: Driver[];
  /** The simulated network once started (`sim` mode). */
  network(): SimNetwork | undefined;
  stop(): Promise<void>;
}

/**
 * Builds the Zigbee side from the settings. Nothing starts here: in `sim` mode the broker and
 * the simulators start when the driver starts (DeviceService.start), and stop with it.
 */
export function createZigbee(settings: Settings, log: ZigbeeLog, opts: ZigbeeOptions = {}): Zigbee {
  const z = settings.zigbee;
  if (z.mode === 'off') return { drivers: [], network: () => undefined, stop: async () => {} };
  let network: SimNetwork | undefined;
  const stopNetwork = async () => {
    const n = network;
    network = undefined;
    await n?.stop();
  };
  const driver = new Zigbee2MqttDriver({
    url:
      z.mode === 'sim'
        ? async () => {
            network = await startSimNetwork({ baseTopics: z.base_topics, devices: z.sim_devices, sim: opts.sim });
            log.info(
              { url: network.url, devices: z.sim_devices, base_topics: z.base_topics },
              'zigbee: simulated network started',
            );
            return network.url;
          }
        : z.mqtt_url,
    baseTopics: z.base_topics,
    permitJoinSeconds: z.permit_join_seconds,
    log,
    ...opts.driver,
    onStopped: stopNetwork,
  });
  return {
    drivers: [driver],
    network: () => network,
    async stop() {
      await driver.stop();
      await stopNetwork();
    },
  };
}
