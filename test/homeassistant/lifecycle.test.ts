/**
 * The bridge's connection over its life: off by default; a broker with a password (the password
 * never in the log); settings that cannot be used stop the gateway at start; reconnects after a
 * broker restart (Debian's mosquitto, and the embedded broker with the `sim` Zigbee network)
 * republish everything; a gateway that dies is shown offline by its will; a stop says offline.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import { type Broker, startBroker } from '../../src/drivers/zigbee-sim/index.ts';
import { loadSettings } from '../../src/settings/index.ts';
import { consoleClient } from '../console/client.ts';
import { spawnCli } from '../helpers/cli.ts';
import { call, listDevices, rest, startGateway, tempDir } from '../helpers/foundation.ts';
import { recordingLog } from '../helpers/log.ts';
import { endpoint, sendEvent, startService } from '../helpers/thirdparty.ts';
import { HaClient } from './ha-client.ts';
import { startMosquitto } from './mosquitto.ts';

const capturedLog = () => recordingLog('debug');

/** Fast reconnects for tests (the defaults are 1 s doubling to 30 s). */
const fast = { integrations: { homeassistant: { reconnectMinMs: 50, reconnectMaxMs: 200 } } };

test('the bridge is off by default', () => {
  const s = loadSettings();
  assert.equal(s.homeassistant.enabled, false);
  assert.equal(s.homeassistant.discovery_prefix, 'homeassistant');
  assert.equal(s.homeassistant.base_topic, 'opencube');
  assert.equal(s.homeassistant.status_topic, 'homeassistant/status');
});

describe('a broker with a password', () => {
  const password = 'pa55-w0rd:with@odd/chars';

  test('the bridge logs in with the user and password of the URL, and the password appears nowhere in the log', async (t) => {
    const broker = await startMosquitto({ user: 'gateway', password });
    t.after(() => broker.stop());
    const ha = await HaClient.connect(broker.url);
    t.after(() => ha.close());
    const { log, text } = capturedLog();
    const g = await startGateway({
      overrides: { homeassistant: { enabled: true, mqtt_url: broker.url } },
      gatewayOptions: { log, ...fast },
    });
    t.after(() => g.stop());
    await ha.waitForState('opencube/bridge/availability', (p) => p === 'online');
    assert.match(text(), /connected to the MQTT broker/);
    assert.ok(!text().includes(password) && !text().includes(encodeURIComponent(password)), 'no password in the log');
    assert.match(text(), /mqtt:\/\/\*\*\*@127\.0\.0\.1/);
  });

  test('a wrong password keeps the bridge out, says so in the log without the password, and the gateway serves on', async (t) => {
    const broker = await startMosquitto({ user: 'gateway', password });
    t.after(() => broker.stop());
    const wrong = `mqtt://gateway:${encodeURIComponent('not-the-pa55word')}@127.0.0.1:${broker.port}`;
    const { log, text } = capturedLog();
    const g = await startGateway({
      overrides: { homeassistant: { enabled: true, mqtt_url: wrong } },
      gatewayOptions: { log, ...fast },
    });
    t.after(() => g.stop());
    const end = Date.now() + 15_000;
    while (!/MQTT error/.test(text())) {
      if (Date.now() > end) throw new Error(`no MQTT error logged:\n${text()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.match(text(), /Not authorized|Bad username or password/i);
    assert.ok(!text().includes('not-the-pa55word'));
    assert.ok(Array.isArray(await listDevices(g.url, g.token())));
  });
});

describe('settings that cannot be used stop the gateway at start, naming the setting', () => {
  const cases: [overrides: Record<string, string>, message: RegExp][] = [
    [{ mqtt_url: 'not a url' }, /homeassistant\.mqtt_url is not a URL/],
    [{ mqtt_url: 'http://user:hunter2@127.0.0.1:1883' }, /homeassistant\.mqtt_url has the scheme http/],
    [{ mqtt_url: 'mqtt://user:hunter2@' }, /homeassistant\.mqtt_url (has no host|is not a URL)/],
    [{ base_topic: 'opencube/#' }, /homeassistant\.base_topic: "opencube\/#" must not hold the wildcards/],
    [{ base_topic: 'home//opencube' }, /homeassistant\.base_topic: .* empty level/],
    [{ base_topic: '/opencube' }, /homeassistant\.base_topic: .* empty level/],
    [{ base_topic: '' }, /homeassistant\.base_topic: "" must not be empty/],
    [{ discovery_prefix: 'home+assistant' }, /homeassistant\.discovery_prefix/],
    [{ status_topic: 'homeassistant/#' }, /homeassistant\.status_topic/],
    [{ base_topic: 'homeassistant' }, /homeassistant\.base_topic: must differ from homeassistant\.discovery_prefix/],
  ];
  for (const [overrides, message] of cases) {
    test(`${JSON.stringify(overrides)} is refused`, async () => {
      const dir = tempDir();
      try {
        await assert.rejects(
          startGateway({ dataDir: dir, overrides: { homeassistant: { enabled: true, ...overrides } } }),
          (err: Error) => {
            assert.match(err.message, message);
            assert.ok(!err.message.includes('hunter2'), 'no password in the message');
            return true;
          },
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('configs left over', () => {
  test("configs of this gateway's left at the broker (a device removed while it was off) are cleared when it connects; other bridges' are not", async (t) => {
    const broker = await startMosquitto();
    t.after(() => broker.stop());
    const ha = await HaClient.connect(broker.url);
    t.after(() => ha.close());
    const stale = 'homeassistant/sensor/opencube/0000000000000000_temperature/config';
    const other = 'homeassistant/sensor/someone-else/0000000000000000_temperature/config';
    const cfg = JSON.stringify({ name: 'Gone', state_topic: 'x/y', unique_id: 'gone' });
    await ha.publish(other, cfg, true);
    await ha.publish(stale, cfg, true);
    await ha.waitFor(() => ha.retained.has(stale) && ha.retained.has(other), 'both configs retained');
    const g = await startGateway({
      overrides: { homeassistant: { enabled: true, mqtt_url: broker.url } },
      gatewayOptions: fast,
    });
    t.after(() => g.stop());
    await ha.waitFor(() => !ha.retained.has(stale), 'the stale config cleared');
    await ha.waitForState('opencube/bridge/availability', (p) => p === 'online');
    assert.equal(ha.retained.get(other), cfg, "another bridge's config is left alone");
  });
});

describe('renaming', () => {
  test("the gateway renamed in the console is renamed in Home Assistant at once (its device's retained config), and keeps the name after a broker restart", async (t) => {
    const broker = await startMosquitto();
    t.after(() => broker.stop());
    const g = await startGateway({
      overrides: { name: 'Old cube', homeassistant: { enabled: true, mqtt_url: broker.url } },
      gatewayOptions: fast,
    });
    t.after(() => g.stop());
    const ha = await HaClient.connect(broker.url);
    t.after(() => ha.close());
    const topic = 'homeassistant/binary_sensor/opencube/bridge_connection/config';
    const deviceName = () => {
      const json = ha.retained.get(topic);
      return json ? (JSON.parse(json) as { device: { name: string } }).device.name : undefined;
    };
    await ha.waitFor(() => deviceName() === 'Old cube', 'the bridge device under its first name');

    await g.gateway.setConsolePassword('rename password');
    const c = consoleClient(g.url);
    assert.equal((await c.login('rename password')).status, 200);
    const set = await c.call('PUT', '/settings/name', { value: 'Hall cube' });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    await ha.waitFor(() => deviceName() === 'Hall cube', 'the bridge device renamed');

    await broker.restart();
    ha.forgetRetained();
    await ha.waitFor(() => deviceName(), 'the bridge device config again after the restart');
    assert.equal(deviceName(), 'Hall cube');
    assert.deepEqual(ha.problems(), []);
  });
});

describe('reconnecting', () => {
  test('after a restart of mosquitto the bridge reconnects and publishes every config, availability and state again', async (t) => {
    const broker = await startMosquitto();
    t.after(() => broker.stop());
    const service = await startService();
    t.after(() => service.close());
    const g = await startGateway({
      overrides: { homeassistant: { enabled: true, mqtt_url: broker.url } },
      gatewayOptions: fast,
    });
    t.after(() => g.stop());
    const token = g.token();
    const r = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('re-1', service.url)] });
    const serial = r.json.payload.endpoints[0].serial_number as string;
    const ha = await HaClient.connect(broker.url);
    t.after(() => ha.close());
    const light = await ha.waitFor(() => ha.entity(serial, 'light'), 'the light');
    await ha.waitForState(light.config.state_topic, (p) => JSON.parse(p).brightness === 10);
    const configs = ha.configs().length;

    await broker.restart();
    // Nothing is retained at a restarted broker (no persistence): what Home Assistant sees now was sent again.
    ha.forgetRetained();
    await ha.waitFor(() => ha.configs().length === configs, `all ${configs} configs again`);
    await ha.waitForState('opencube/bridge/availability', (p) => p === 'online');
    await ha.waitForState(`opencube/${serial}/availability`, (p) => p === 'online');
    await ha.waitForState(light.config.state_topic, (p) => JSON.parse(p).brightness === 10);
    assert.deepEqual(ha.problems(), []);
    // And it takes commands again.
    await ha.publish(light.config.command_topic, '{"state":"ON","brightness":70}');
    await ha.waitForState(light.config.state_topic, (p) => JSON.parse(p).brightness === 70);
  });

  test('with the `sim` Zigbee network and the embedded broker, a broker restart is followed the same way', async (t) => {
    let broker: Broker = await startBroker();
    t.after(() => broker.close());
    const g = await startGateway({
      overrides: { zigbee: { mode: 'sim', sim_devices: 16 }, homeassistant: { enabled: true, mqtt_url: broker.url } },
      gatewayOptions: fast,
    });
    t.after(() => g.stop());
    const token = g.token();
    const end = Date.now() + 15_000;
    while ((await listDevices(g.url, token)).length < 16) {
      if (Date.now() > end) throw new Error('the simulated network did not come');
      await new Promise((r) => setTimeout(r, 25));
    }
    const devices = await listDevices(g.url, token);
    let ha = await HaClient.connect(broker.url);
    await ha.waitFor(() => devices.every((d) => ha.deviceConfigs(d.serial_number).length >= 2), 'every device');
    const configs = ha.configs().length;
    await ha.close();

    const port = broker.port;
    await broker.close();
    broker = await startBroker(port);
    ha = await HaClient.connect(broker.url);
    t.after(() => ha.close());
    await ha.waitFor(() => ha.configs().length === configs, `all ${configs} configs again`);
    await ha.waitForState('opencube/bridge/availability', (p) => p === 'online');
    assert.deepEqual(ha.problems(), []);
  });
});

describe('offline', () => {
  test('a gateway that dies is shown offline in Home Assistant by its will', async (t) => {
    const broker = await startMosquitto();
    t.after(() => broker.stop());
    const ha = await HaClient.connect(broker.url);
    t.after(() => ha.close());
    const dir = tempDir();
    const proc = spawnCli(
      ['start', '--no-supervise', '--port', '0', '--host', '127.0.0.1', '--data-dir', dir, '--no-mdns'],
      {
        env: {
          OPENCUBE_ZIGBEE_MODE: 'off',
          OPENCUBE_AUDIO_SINK: 'null',
          OPENCUBE_LOG_LEVEL: 'warn',
          OPENCUBE_HOMEASSISTANT_ENABLED: 'true',
          OPENCUBE_HOMEASSISTANT_MQTT_URL: broker.url,
        },
      },
    );
    t.after(() => {
      proc.killAll();
      rmSync(dir, { recursive: true, force: true });
    });
    await proc.waitForOutput(/opencube listening on/);
    await ha.waitForState('opencube/bridge/availability', (p) => p === 'online');
    await ha.waitFor(
      () => ha.configs().some((c) => c.config.device?.identifiers?.includes('opencube_bridge')),
      "the gateway's device",
    );
    proc.killAll();
    await proc.exited;
    await ha.waitForState('opencube/bridge/availability', (p) => p === 'offline', 'the will');
  });

  test('a gateway that stops says offline before it leaves', async (t) => {
    const broker = await startMosquitto();
    t.after(() => broker.stop());
    const ha = await HaClient.connect(broker.url);
    t.after(() => ha.close());
    const g = await startGateway({
      overrides: { homeassistant: { enabled: true, mqtt_url: broker.url } },
      gatewayOptions: fast,
    });
    await ha.waitForState('opencube/bridge/availability', (p) => p === 'online');
    await g.stop();
    await ha.waitForState('opencube/bridge/availability', (p) => p === 'offline');
    // Retained: Home Assistant starting later still reads it.
    const later = await HaClient.connect(broker.url);
    t.after(() => later.close());
    await later.waitForState('opencube/bridge/availability', (p) => p === 'offline');
    assert.ok(later.log.some((m) => m.topic === 'opencube/bridge/availability' && m.retain));
  });

  test('an unreachable broker does not keep the gateway from starting and serving', async (t) => {
    const broker = await startMosquitto();
    const url = broker.url;
    await broker.stop();
    const g = await startGateway({
      overrides: { homeassistant: { enabled: true, mqtt_url: url } },
      gatewayOptions: fast,
    });
    t.after(() => g.stop());
    const r = await call(g.url, 'GET', rest('v2', 'devices'), { token: g.token() });
    assert.equal(r.json.error, 0);
  });
});
