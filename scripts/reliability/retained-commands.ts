/**
 * Issue 24, finding 5, against a real `opencube start` with the Home Assistant bridge on Debian's
 * mosquitto (persistent, as a home's broker is): a command published retained on a command topic,
 * then the broker restarted (the bridge reconnects) and the gateway restarted. Figure: how many
 * times the one command was carried out (once: when it was published). Before the fix: once more
 * at every reconnect and every start.
 */
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { tempDir } from '../../test/helpers/foundation.ts';
import { endpoint, startService } from '../../test/helpers/thirdparty.ts';
import { startMosquitto } from '../../test/homeassistant/mosquitto.ts';
import { type GatewayProcess, launchGateway, linkToken } from './gateway-process.ts';

export interface RetainedFigures {
  /** Whether Debian's mosquitto is installed (the row is skipped without it). */
  broker: boolean;
  reconnects: number;
  restarts: number;
  /** Times the retained command was carried out (a directive to the device: once, live), and the live OFFs and ON. */
  retainedRuns: number;
  liveRuns: number;
}

const until = async (what: string, ok: () => boolean) => {
  const end = Date.now() + 20_000;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`no ${what} within 20 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

export async function runRetainedCommands(): Promise<RetainedFigures> {
  if (!existsSync('/usr/sbin/mosquitto'))
    return { broker: false, reconnects: 0, restarts: 0, retainedRuns: 0, liveRuns: 0 };
  const store = mkdtempSync(join(tmpdir(), 'opencube-mosquitto-store-'));
  // Started as root, mosquitto runs as its own user, which writes the store.
  chmodSync(store, 0o777);
  const broker = await startMosquitto(undefined, ['persistence true', `persistence_location ${store}/`]);
  const service = await startService();
  const dataDir = tempDir('opencube-retained-');
  const flags = ['--homeassistant-enabled', 'true', '--homeassistant-mqtt-url', broker.url];
  let g: GatewayProcess | undefined;
  const client = await mqtt.connectAsync(broker.url, { clientId: 'ha-soak' });
  try {
    g = await launchGateway({ dataDir, flags });
    const token = await linkToken(g, 'plugs');
    const synced = (await (
      await fetch(`${g.url}/open-api/v2/rest/thirdparty/event`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          event: {
            header: { name: 'DiscoveryRequest', message_id: 'm1', version: '1' },
            payload: {
              endpoints: [
                endpoint('heater', service.url, {
                  display_category: 'plug',
                  capabilities: [{ capability: 'power', permission: '1100' }],
                  state: { power: { powerState: 'off' } },
                }),
              ],
            },
          },
        }),
      })
    ).json()) as { payload: { endpoints: { serial_number: string }[] } };
    const topic = `opencube/${synced.payload.endpoints[0]?.serial_number}/power/set`;
    const ons = () => service.received.filter((r) => r.body?.directive?.payload?.state?.power?.powerState === 'on');
    const offs = () => service.received.filter((r) => r.body?.directive?.payload?.state?.power?.powerState === 'off');
    /**
     * Live OFFs, sent until one is carried out: the bridge is subscribed again by then, and a
     * retained ON handed to it at that subscription would have run first (one queue per device).
     */
    const settle = async () => {
      const before = offs().length;
      const end = Date.now() + 30_000;
      while (offs().length === before) {
        if (Date.now() > end) throw new Error('the bridge took no command within 30 s');
        await client.publishAsync(topic, 'OFF');
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    await settle();
    await client.publishAsync(topic, 'ON', { retain: true });
    await until('the live ON', () => ons().length >= 1);
    await broker.restart();
    await settle();
    await g.stop();
    g = await launchGateway({ dataDir, port: g.port, flags });
    await settle();
    return { broker: true, reconnects: 1, restarts: 1, retainedRuns: ons().length, liveRuns: offs().length + 1 };
  } finally {
    await client.endAsync(true).catch(() => {});
    await g?.stop().catch(() => {});
    await service.close();
    await broker.stop();
    rmSync(store, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}
