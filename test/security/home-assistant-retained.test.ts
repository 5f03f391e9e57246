/**
 * Issue 24, finding 5: a command published retained to the Home Assistant bridge's command topics
 * (by anyone the broker lets publish) was run again at every gateway start and every reconnect to
 * the broker, when the broker replays it. Retained messages on command topics are ignored; a live
 * command still runs. Debian's mosquitto, with persistence, so that a restart of the broker keeps
 * what it retains (as a broker of a real home does).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startGateway, tempDir } from '../helpers/foundation.ts';
import { recordingLog } from '../helpers/log.ts';
import { endpoint, sendEvent, startService } from '../helpers/thirdparty.ts';
import { HaClient } from '../homeassistant/ha-client.ts';
import { startMosquitto } from '../homeassistant/mosquitto.ts';

test('a retained command is never run again: not at a gateway start, not at a reconnect to the broker', async (t) => {
  const store = mkdtempSync(join(tmpdir(), 'opencube-mosquitto-store-'));
  t.after(() => rmSync(store, { recursive: true, force: true }));
  // Started as root, mosquitto runs as its own user, which writes the store.
  chmodSync(store, 0o777);
  const broker = await startMosquitto(undefined, ['persistence true', `persistence_location ${store}/`]);
  t.after(() => broker.stop());
  const service = await startService();
  t.after(() => service.close());
  const data = tempDir();
  t.after(() => rmSync(data, { recursive: true, force: true }));
  const rec = recordingLog('debug');
  const options = {
    dataDir: data,
    overrides: { homeassistant: { enabled: true, mqtt_url: broker.url } },
    gatewayOptions: { log: rec.log, homeassistant: { reconnectMinMs: 50, reconnectMaxMs: 200 } },
  };
  let g = await startGateway(options);
  t.after(() => g.stop());
  const token = g.token('plugs');
  const synced = await sendEvent(g, token, 'DiscoveryRequest', {
    endpoints: [
      endpoint('plug-1', service.url, {
        name: 'Heater plug',
        display_category: 'plug',
        capabilities: [{ capability: 'power', permission: '1100' }],
        state: { power: { powerState: 'off' } },
      }),
    ],
  });
  const serial = synced.json.payload.endpoints[0].serial_number as string;
  const ha = await HaClient.connect(broker.url);
  t.after(() => ha.close());
  const entity = await ha.waitFor(
    () => ha.deviceConfigs(serial).find((d) => d.component === 'switch'),
    'the plug as a switch',
  );
  const topic = entity.config.command_topic as string;
  /** Until the service got `n` directives (a guard of 15 s against a hang, not a timing). */
  const directives = async (n: number) => {
    const until = Date.now() + 15_000;
    while (service.received.length < n) {
      if (Date.now() > until) throw new Error(`no directive ${n}: ${powers().join(', ')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const powers = () => service.received.map((r) => r.body?.directive?.payload?.state?.power?.powerState);
  /** A live command, and its directive: every message before it on the connection has been handled. */
  const live = async (payload: 'ON' | 'OFF', n: number) => {
    await ha.publish(topic, payload);
    await directives(n);
  };

  // Published retained: the broker hands it on live (not as retained), and it runs once.
  await ha.publish(topic, 'ON', true);
  await directives(1);
  assert.deepEqual(powers(), ['on'], service.received.map((r) => r.raw).join('\n'));

  /** Resolves once the bridge says it is online again after `from`: its subscriptions are in place by then. */
  const backOnline = (from: number) =>
    ha.waitForMessage(
      (m) => m.topic === 'opencube/bridge/availability' && m.payload === 'online',
      'the bridge back online',
      from,
    );

  // The broker restarts and keeps it; the bridge reconnects and is handed it again, as retained.
  let mark = ha.log.length;
  await broker.restart();
  await backOnline(mark);
  await live('OFF', 2);
  assert.deepEqual(powers(), ['on', 'off'], 'the retained ON was not run again at the reconnect');

  // The gateway restarts: its subscription is handed the retained command again.
  mark = ha.log.length;
  g = await g.restart();
  await backOnline(mark);
  await live('OFF', 3);
  assert.deepEqual(powers(), ['on', 'off', 'off'], 'nor at the start');
  assert.match(rec.text(), /homeassistant: a retained command was ignored/);
});
