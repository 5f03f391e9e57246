/**
 * `zigbee.mode` `sim`: the Zigbee2MQTT driver connected to the built-in simulated network, which
 * starts (embedded broker and simulated Zigbee2MQTT instances) when the driver starts and stops
 * with it. The very code path of a real Zigbee2MQTT, with no hardware.
 */
import { join } from 'node:path';
import type { Driver } from '../../core/devices/contract.ts';
import type { Log } from '../../lib/log.ts';
import { redactText } from '../../lib/redact.ts';
import type { Settings } from '../../settings/index.ts';
import { Zigbee2MqttDriver, type Zigbee2MqttOptions } from '../zigbee2mqtt/index.ts';
import { type SimNetwork, type SimNetworkOptions, startSimNetwork } from './network.ts';

export interface SimulatedZigbeeOptions {
  /** Driver timings (tests shorten them). */
  driver?: Partial<Omit<Zigbee2MqttOptions, 'url' | 'baseTopics' | 'log' | 'onStopped'>>;
  /** Simulator options. */
  sim?: SimNetworkOptions['sim'];
  /** The broker's options (tests shorten its heartbeat below the setting's whole seconds). */
  broker?: SimNetworkOptions['broker'];
}

/** The driver of `sim` mode, and the network once it runs. */
export function createSimulatedZigbee(
  settings: Settings,
  log: Log,
  opts: SimulatedZigbeeOptions = {},
): { driver: Driver; network(): SimNetwork | undefined } {
  const z = settings.zigbee;
  // One setting for the network's keep-alive timers, so that a test (or the soak) runs a real
  // process through many of them (docs/zigbee.md).
  const keepalive = z.sim_keepalive_seconds;
  let network: SimNetwork | undefined;
  const driver = new Zigbee2MqttDriver({
    url: async () => {
      network = await startSimNetwork({
        baseTopics: z.base_topics,
        devices: z.sim_devices,
        // The network remembers itself in the data folder, as a real one would (docs/zigbee.md).
        stateDir: join(settings.data_dir, 'zigbee-sim'),
        sim: { keepaliveSeconds: keepalive, ...opts.sim },
        broker: { heartbeatMs: keepalive * 1000, ...opts.broker },
      });
      log.info(
        { url: redactText(network.url), devices: z.sim_devices, base_topics: z.base_topics },
        'zigbee: simulated network started',
      );
      return network.url;
    },
    baseTopics: z.base_topics,
    permitJoinSeconds: z.permit_join_seconds,
    keepaliveSeconds: keepalive,
    log,
    ...opts.driver,
    onStopped: async () => {
      const n = network;
      network = undefined;
      await n?.stop();
    },
  });
  return { driver, network: () => network };
}
