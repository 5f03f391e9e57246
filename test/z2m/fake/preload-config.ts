/** What real-z2m.ts hands the preloaded fake coordinator (as JSON in the file FAKE_ZIGBEE_CONFIG names). */
import type { FakeNetworkOptions } from './network.ts';

export interface FakePreloadConfig {
  /** The zigbee-herdsman package inside the installed Zigbee2MQTT. */
  herdsmanDir: string;
  /** The broker of the hooks (the one Zigbee2MQTT uses). */
  mqttUrl: string;
  hookPrefix: string;
  network: Omit<FakeNetworkOptions, 'zh'>;
}
