/**
 * Nothing acknowledged is lost, and nothing unacknowledged is shown: what D3 lists is what the
 * store holds, also when a write fails and when D4 calls on one device overlap.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { openDb } from '../../src/store/db.ts';
import { runCli } from '../helpers/cli.ts';
import { call, listDevices, startGateway, type TestGateway, tempDir } from '../helpers/foundation.ts';
import { endpoint, type Service, sendEvent, sendJson, startService, successReply } from '../helpers/thirdparty.ts';

const SENSOR_CAPS = [
  { capability: 'power', permission: '1100' },
  {
    capability: 'detect',
    permission: '0110',
    settings: {
      detectInterval: { permission: '11', type: 'numeric', value: 10, min: 0, max: 100 },
      detectSensitivity: { permission: '11', type: 'numeric', value: 5, min: 0, max: 100 },
    },
  },
];

describe('what D3 lists is what the store holds', () => {
  let g: TestGateway;
  let token: string;
  let service: Service;
  let serial: string;

  before(async () => {
    // Silent: the refused write below is logged as the fault it is.
    g = await startGateway({ gatewayOptions: { log: pino({ level: 'silent' }) } });
    token = g.token('integrity');
    service = await startService();
    const r = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [endpoint('i-1', service.url, { capabilities: SENSOR_CAPS, display_category: 'sensor', state: {} })],
    });
    serial = r.json.payload.endpoints[0].serial_number;
  });
  after(async () => {
    await g.stop();
    await service.close();
  });

  const device = async () => (await listDevices(g.url, token)).find((d) => d.serial_number === serial);

  test('a D4 whose store write fails answers an error and D3 keeps showing what is stored', async () => {
    // The store refuses this one write, as a full disk would.
    g.gateway.db.exec(`CREATE TRIGGER refuse_boom BEFORE UPDATE ON devices WHEN NEW.user_name = 'boom'
      BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    try {
      const before = await device();
      const r = await call(g.url, 'PUT', `/open-api/v2/rest/devices/${serial}`, {
        token,
        body: { name: 'boom', tags: { room: 'attic' } },
      });
      assert.notEqual(r.json.error, 0, 'the change was not stored, so it is not acknowledged');
      assert.deepEqual(await device(), before, 'D3 shows what the store holds');
    } finally {
      g.gateway.db.exec('DROP TRIGGER refuse_boom');
    }
    const ok = await call(g.url, 'PUT', `/open-api/v2/rest/devices/${serial}`, { token, body: { name: 'Hall' } });
    assert.equal(ok.json.error, 0);
    assert.equal((await device()).name, 'Hall');
  });

  test('D3 lists devices in the same order after a restart, also when the clock was set back', async (t) => {
    const add = async (third: string) => {
      const r = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint(third, service.url)] });
      assert.equal(r.json.header.name, 'Response', r.text);
      const e = await sendEvent(g, token, 'RegisterTTSEngine', {
        service_address: `${service.url}/${third}`,
        name: third,
      });
      assert.equal(e.json.header.name, 'Response', e.text);
    };
    const engines = async () =>
      (await call(g.url, 'GET', '/open-api/v2/rest/tts/engines', { token })).json.data.engines.map((e: any) => e.name);
    await add('i-2');
    // A box without a real-time clock can boot with its clock behind (DESIGN.md).
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() - 86_400_000 });
    await add('i-3');
    t.mock.timers.reset();
    const order = (await listDevices(g.url, token)).map((d) => d.third_serial_number);
    assert.deepEqual(order, ['i-1', 'i-2', 'i-3']);
    assert.deepEqual(await engines(), ['i-2', 'i-3', 'eSpeak NG (built-in)']);
    g = await g.restart();
    assert.deepEqual(
      (await listDevices(g.url, token)).map((d) => d.third_serial_number),
      order,
    );
    assert.deepEqual(await engines(), ['i-2', 'i-3', 'eSpeak NG (built-in)']);
  });

  test('two D4 setting changes sent at once to one device are both kept, also after a restart', async () => {
    // The provider holds the directives of one device and answers them together (COMPAT.md).
    const held: [unknown, ServerResponse][] = [];
    service.handle((directive, _req, res) => {
      held.push([directive, res]);
      if (held.length === 2) for (const [d, r] of held.splice(0)) sendJson(r, successReply(d));
    });
    const setting = (key: string, value: number) =>
      call(g.url, 'PUT', `/open-api/v2/rest/devices/${serial}`, {
        token,
        body: { capabilities: [{ capability: 'detect', permission: '0110', settings: { [key]: { value } } }] },
      });
    const [a, b] = await Promise.all([setting('detectInterval', 42), setting('detectSensitivity', 77)]);
    assert.equal(a.json.error, 0, a.text);
    assert.equal(b.json.error, 0, b.text);
    const settingsOf = (d: any) => d.capabilities.find((c: any) => c.capability === 'detect').settings;
    const now = settingsOf(await device());
    assert.equal(now.detectInterval.value, 42);
    assert.equal(now.detectSensitivity.value, 77);
    g = await g.restart();
    assert.deepEqual(settingsOf(await device()), now);
  });
});

describe('a factory reset', () => {
  test('that fails midway changes nothing: tokens, devices and engines all stay', async () => {
    let g = await startGateway({ gatewayOptions: { log: pino({ level: 'silent' }) } });
    const service = await startService();
    try {
      const token = g.token('reset');
      await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('r-1', service.url)] });
      await sendEvent(g, token, 'RegisterTTSEngine', { service_address: service.url, name: 'Engine' });
      const before = await listDevices(g.url, token);
      g.gateway.db.exec(`CREATE TRIGGER refuse_reset BEFORE DELETE ON tts_engines
        BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
      await assert.rejects(g.gateway.reset(), /disk full/);
      assert.deepEqual(await listDevices(g.url, token), before, 'the token still works and the devices stay');
      assert.equal(g.gateway.tts.list().length, 1);
      g.gateway.db.exec('DROP TRIGGER refuse_reset');
      g = await g.restart();
      assert.deepEqual(await listDevices(g.url, token), before);
      assert.equal(g.gateway.tts.list().length, 1);
    } finally {
      await g.stop();
      await service.close();
    }
  });

  test('on the store (no gateway running) that fails midway changes nothing either', async () => {
    const dir = tempDir();
    const service = await startService();
    let g = await startGateway({ dataDir: dir });
    try {
      const token = g.token('reset');
      await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('r-2', service.url)] });
      const before = await listDevices(g.url, token);
      await g.stop();
      const db = openDb(join(dir, 'gateway.db'));
      db.exec(`CREATE TRIGGER refuse_reset BEFORE DELETE ON devices BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
      db.close();
      const reset = await runCli(['reset', '--yes', '--data-dir', dir]);
      assert.notEqual(reset.code, 0, reset.stdout);
      assert.match(reset.stderr, /disk full/);
      g = await startGateway({ dataDir: dir });
      assert.deepEqual(await listDevices(g.url, token), before, 'the token still works and the devices stay');
    } finally {
      await g.stop();
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
