/**
 * The console's API and page, in process: the page and its compressed size, the page when the
 * console was not built, the controls generated from the catalog (every one sends a command the
 * catalog accepts), bad input answered in words, control and pairing on the simulated network.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { capabilities, validateCommand } from '../../src/catalog/index.ts';
import type { CapabilityObject } from '../../src/catalog/types.ts';
import { type Control, deviceLayout } from '../../src/http/console/layout.ts';
import { call, openStream, rest, startGateway } from '../helpers/foundation.ts';
import { consoleClient } from './client.ts';
import { buildConsole } from './rig.ts';

const PASSWORD = 'correct horse battery';
/** The budget for the first load of the console, compressed. */
const FIRST_LOAD_BUDGET = 100 * 1024;

/** A value a person could set with this control (its first choice, its minimum...). */
function sample(c: Control): unknown {
  switch (c.kind) {
    case 'switch':
      return 'on';
    case 'bool':
      return true;
    case 'choice':
    case 'action':
      return c.values?.[0];
    case 'range':
      return c.min;
    case 'number':
      return c.min ?? 1;
    case 'color':
      return { red: 10, green: 20, blue: 30 };
  }
}

function command(c: Control): Record<string, unknown> {
  const inner = c.kind === 'color' ? sample(c) : { [c.field]: sample(c) };
  return c.name === undefined ? { [c.capability]: inner } : { [c.capability]: { [c.name]: inner } };
}

describe('the page', () => {
  before(() => buildConsole());

  test(`the first load (page, script with the chunks it imports, stylesheet) is at most ${FIRST_LOAD_BUDGET / 1024} KB compressed, precompressed brotli and gzip`, async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    for (const encoding of ['br', 'gzip']) {
      const index = await fetch(`${g.url}/`, { headers: { 'accept-encoding': encoding } });
      assert.equal(index.status, 200);
      assert.equal(index.headers.get('content-encoding'), encoding);
      assert.match(index.headers.get('content-security-policy') as string, /default-src 'self'/);
      const html = await index.text();
      const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] as string);
      assert.equal(assets.length, 2, 'one script and one stylesheet');
      let total = Number(index.headers.get('content-length'));
      // The script's static imports (chunks it shares with the pages loaded later) count too.
      const plain = await (await fetch(`${g.url}${assets.find((a) => a.endsWith('.js'))}`)).text();
      const chunks = [...plain.matchAll(/(?:from|import)\s*"\.\/(chunk-[\w-]+\.js)"/g)].map((m) => `/assets/${m[1]}`);
      for (const a of [...assets, ...new Set(chunks)]) {
        const r = await fetch(`${g.url}${a}`, { headers: { 'accept-encoding': encoding } });
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('content-encoding'), encoding);
        assert.match(r.headers.get('cache-control') as string, /immutable/);
        total += Number(r.headers.get('content-length'));
      }
      t.diagnostic(`first load with ${encoding}: ${(total / 1024).toFixed(1)} KB`);
      assert.ok(total <= FIRST_LOAD_BUDGET, `${total} bytes with ${encoding}`);
    }
    const plain = await fetch(`${g.url}/`, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.headers.get('content-encoding'), null);
    assert.match(await plain.text(), /<div id="app">/);
  });

  test('a gateway whose console was not built answers / with a page that says how to build it', async (t) => {
    const empty = mkdtempSync(join(tmpdir(), 'opencube-no-console-'));
    t.after(() => rmSync(empty, { recursive: true, force: true }));
    const g = await startGateway({ gatewayOptions: { consoleDir: empty } });
    t.after(() => g.stop());
    const r = await fetch(`${g.url}/`);
    assert.equal(r.status, 503);
    assert.match(await r.text(), /The console is not built[\s\S]*npm run build:console/);
    assert.equal((await fetch(`${g.url}/assets/app.js`)).status, 404);
  });

  test('the console API and the Open API stay apart: each answers an unknown path in its own way', async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    const c = await fetch(`${g.url}/console/api/nothing`);
    assert.equal(c.status, 404);
    assert.match(((await c.json()) as { error: string }).error, /no such console request/);
    const o = await fetch(`${g.url}/open-api/v2/rest/nothing`);
    assert.equal(((await o.json()) as { error: number }).error, 404);
    const token = g.token('app');
    const noSession = await fetch(`${g.url}/console/api/devices`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(noSession.status, 401, 'an Open API token is no console session');
  });
});

describe('controls generated from the catalog', () => {
  const declared = capabilities.flatMap((def) =>
    def.examples.declaration.map((d) => ({ def: def.capability, declaration: d as CapabilityObject })),
  );

  for (const { def, declaration } of declared) {
    const title = declaration.name === undefined ? def : `${def} (${declaration.name})`;
    test(`every control of ${title} sends a command the catalog accepts`, () => {
      const layout = deviceLayout({ capabilities: [declaration], tags: { toggle: { '1': 'Lamp' } } });
      for (const c of layout.controls) {
        const r = validateCommand([declaration], command(c));
        assert.ok(r.ok, `${c.id}: ${r.ok ? '' : r.errors.join('; ')}`);
      }
    });
  }

  test('a capability that is only configured or only queried gets no control', () => {
    const layout = deviceLayout({
      capabilities: [
        { capability: 'inching', permission: '0010' },
        { capability: 'camera-stream', permission: '0010' },
        { capability: 'temperature', permission: '0100' },
      ],
      tags: undefined,
    });
    assert.deepEqual(layout.controls, []);
    assert.deepEqual(
      layout.readings.map((r) => [r.label, r.unit]),
      [['Temperature', '°C']],
    );
  });

  test('toggle channels carry the labels of tags.toggle, others their number', () => {
    const layout = deviceLayout({
      capabilities: [
        { capability: 'toggle', permission: '1100', name: '1' },
        { capability: 'toggle', permission: '1100', name: '2' },
      ],
      tags: { toggle: { '1': 'Ceiling' } },
    });
    assert.deepEqual(
      layout.controls.map((c) => [c.label, c.kind]),
      [
        ['Ceiling', 'switch'],
        ['Channel 2', 'switch'],
      ],
    );
  });

  test("a device's own range narrows its slider (percentageRange)", () => {
    const layout = deviceLayout({
      capabilities: [
        {
          capability: 'percentage',
          permission: '1100',
          settings: { percentageRange: { permission: '01', type: 'numeric', min: 10, max: 90, step: 5 } },
        },
      ],
      tags: undefined,
    });
    assert.deepEqual(
      layout.controls.map((c) => [c.kind, c.min, c.max, c.step]),
      [['range', 10, 90, 5]],
    );
  });

  test('detections read as words: a contact that is true is open', () => {
    const layout = deviceLayout({ capabilities: [{ capability: 'contact', permission: '0100' }], tags: undefined });
    assert.deepEqual(layout.readings[0]?.words, ['Open', 'Closed']);
  });
});

describe('the API on the simulated network', () => {
  async function simGateway() {
    const g = await startGateway({ overrides: { zigbee: { mode: 'sim' }, sim_devices: 16 } });
    await g.gateway.setConsolePassword(PASSWORD);
    const c = consoleClient(g.url);
    await c.login(PASSWORD);
    return { g, c };
  }

  test('the device list carries each device with its layout, and a light is controlled as D4 controls it', async (t) => {
    const { g, c } = await simGateway();
    t.after(() => g.stop());
    const list = await c.call('GET', '/devices');
    assert.equal(list.status, 200);
    const devices = list.body.devices as { serial_number: string; display_category: string; layout: any }[];
    assert.ok(devices.length >= 10);
    assert.ok(devices.every((d) => Array.isArray(d.layout.controls) && Array.isArray(d.layout.readings)));
    const light = devices.find(
      (d) => d.display_category === 'light' && d.layout.controls.some((x: Control) => x.capability === 'brightness'),
    );
    assert.ok(light);
    const on = await c.call('PUT', `/devices/${light.serial_number}`, { state: { power: { powerState: 'on' } } });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    assert.deepEqual(g.gateway.devices.registry.get(light.serial_number)?.state.power, { powerState: 'on' });
    const page = await c.call('GET', `/devices/${light.serial_number}`);
    assert.ok(page.body.events.some((e: { type: string }) => e.type === 'updateDeviceState'));
  });

  const BAD: readonly [string, string, unknown, number, RegExp][] = [
    ['PUT', '/devices/nope', { name: 'x' }, 404, /does not exist/],
    [
      'PUT',
      '/devices/{light}',
      { state: { power: { powerState: 'maybe' } } },
      400,
      /^state\.power\.powerState: "maybe" is not one of on, off, toggle$/,
    ],
    [
      'PUT',
      '/devices/{light}',
      { state: { brightness: { brightness: 101 } } },
      400,
      /state\.brightness\.brightness: 101 is above max 100/,
    ],
    ['PUT', '/devices/{light}', { name: '   ' }, 400, /^name: " {3}" is not a non-empty name$/],
    ['PUT', '/devices/{light}', { name: 42 }, 400, /^name: expected a string, got 42$/],
    ['PUT', '/devices/{light}', '{"name":', 400, /body is not valid JSON/],
    ['PUT', '/devices/{light}', [1, 2], 400, /^body: expected an object/],
    ['PUT', '/pairing', {}, 400, /^enable: required$/],
    ['PUT', '/pairing', { enable: 'yes' }, 400, /^enable: expected a boolean, got "yes"$/],
    [
      'POST',
      '/cameras',
      { name: 'Porch', protocol: 'ONVIF', stream_url: 'rtsp://x' },
      400,
      /^protocol: "ONVIF" is not one of RTSP, ESP32-CAM$/,
    ],
    [
      'POST',
      '/cameras',
      { name: 'Porch', protocol: 'RTSP', stream_url: 'not a url' },
      422,
      /^The stream address is wrong: .*\(.*stream address: the stream URL contains white space\)$/,
    ],
    [
      'POST',
      '/cameras',
      { name: 'Porch', protocol: 'RTSP', stream_url: 'rtsp://127.0.0.1:1/x' },
      422,
      /^The camera could not be reached at that address/,
    ],
    ['POST', '/link/approve', {}, 400, /^app_name: required$/],
    ['POST', '/link/deny', { app_name: 'x'.repeat(201) }, 400, /^app_name: longer than 200 characters$/],
    ['PUT', '/speaker', { volume: 101 }, 400, /^volume: 101 is above max 100$/],
    [
      'PUT',
      '/speaker',
      { volume: 5.5, muted: 'no' },
      400,
      /^volume: 5.5 is not an integer; muted: expected a boolean, got "no"$/,
    ],
    ['POST', '/speaker/play', { type: 'sound', name: 'trumpet' }, 400, /^name: trumpet is not a sound$/],
    ['POST', '/speaker/play', { type: 'music', name: 'alert1' }, 400, /^type: "music" is not one of sound, beep$/],
    ['POST', '/tts/speak', { text: '' }, 400, /^text: "" is not a text to say$/],
    ['POST', '/security/9/arm', undefined, 404, /there is no security mode 9/],
    ['POST', `/security/${'9'.repeat(600)}/arm`, undefined, 400, /^path: a parameter is longer than 500 characters$/],
    ['POST', '/security/%E0%A4%A/arm', undefined, 400, /^path: a parameter is not valid percent-encoding$/],
    ['POST', '/security/abc/arm', undefined, 400, /^sid: "abc" is not a security mode id$/],
    ['PUT', '/security/1/config', { exit_delay: -5 }, 400, /exit_delay/],
    ['PUT', '/security/1/config', { devices: ['no-such-device'] }, 400, /no-such-device/],
    ['DELETE', '/tokens/none', undefined, 404, /there is no token none/],
    ['DELETE', '/sessions/none', undefined, 404, /no session none/],
    ['DELETE', '/cards/none', undefined, 404, /no such card/],
    [
      'PUT',
      '/log-level',
      { level: 'loud' },
      400,
      /^level: "loud" is not one of fatal, error, warn, info, debug, trace, silent$/,
    ],
    ['PUT', '/log-level', {}, 400, /^level: /],
    ['DELETE', `/cards/${'x'.repeat(65)}`, undefined, 400, /^id: /],
    ['POST', '/restore', { not: 'a file' }, 415, /application\/octet-stream/],
    ['POST', '/auth/login', { password: 7 }, 400, /^password: expected a string, got 7$/],
  ];

  test('bad requests are answered with a status and words naming the problem, never a failure of the gateway', async (t) => {
    const { g, c } = await simGateway();
    t.after(() => g.stop());
    const light = g.gateway.devices.registry.list().find((d) => d.display_category === 'light');
    assert.ok(light);
    for (const [method, path, body, status, words] of BAD) {
      const r = await c.call(method, path.replace('{light}', light.serial_number), body);
      assert.equal(r.status, status, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, words, `${method} ${path}`);
    }
  });

  test('the log level changes while the gateway runs, as the gateway page shows it', async (t) => {
    const { g, c } = await simGateway();
    t.after(() => g.stop());
    const before = await c.call('GET', '/gateway');
    assert.equal(before.body.log_level, g.gateway.log.level);
    assert.ok(before.body.log_levels.includes('debug'));
    const changed = await c.call('PUT', '/log-level', { level: 'warn' });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body, { log_level: 'warn', was: before.body.log_level });
    assert.equal(g.gateway.log.level, 'warn');
    assert.equal((await c.call('GET', '/gateway')).body.log_level, 'warn');
    assert.equal((await consoleClient(g.url).call('PUT', '/log-level', { level: 'debug' })).status, 401);
    assert.equal(g.gateway.log.level, 'warn', 'not without a session');
  });

  test('the dashboard lists the cards add-ons registered through the Open API, and removes one for good', async (t) => {
    const { g, c } = await simGateway();
    t.after(() => g.stop());
    const token = g.token();
    const web = {
      default: '2\u00d71',
      dimensions: [{ size: '2\u00d71', src: 'http://127.0.0.1:9/card' }],
      drawer_component: { src: 'http://127.0.0.1:9/drawer' },
    };
    const added = await call(g.url, 'POST', rest('v2', 'ui/cards'), {
      token,
      body: { label: 'Energy', web_settings: web },
    });
    assert.equal(added.json.error, 0, added.text);
    const id = added.json.data.id as string;
    const list = await c.call('GET', '/cards');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.cards.map((x: { id: string; label: string; web_settings: unknown }) => [x.id, x.label, x.web_settings]),
      [[id, 'Energy', web]],
    );
    assert.equal((await consoleClient(g.url).call('GET', '/cards')).status, 401, 'not without a session');
    assert.equal((await c.call('DELETE', `/cards/${id}`)).status, 200);
    assert.deepEqual((await c.call('GET', '/cards')).body.cards, []);
    const after = await call(g.url, 'GET', rest('v2', 'ui/cards'), { token });
    assert.deepEqual(after.json.data, [], 'the Open API sees it gone too');
  });

  test('a backup that is not one is refused in words; a real one is accepted', async (t) => {
    const { g, c } = await simGateway();
    t.after(() => g.stop());
    const backup = await fetch(`${g.url}/console/api/backup`, { headers: { cookie: `opencube_session=${c.cookie}` } });
    assert.equal(backup.status, 200);
    assert.match(backup.headers.get('content-disposition') as string, /attachment; filename="opencube-backup-/);
    const bytes = Buffer.from(await backup.arrayBuffer());
    const restore = (body: Buffer) =>
      fetch(`${g.url}/console/api/restore`, {
        method: 'POST',
        headers: { cookie: `opencube_session=${c.cookie}`, origin: g.url, 'content-type': 'application/octet-stream' },
        body,
      });
    const junk = await restore(Buffer.from('hello, this is not a database'));
    assert.equal(junk.status, 400);
    assert.match(((await junk.json()) as { error: string }).error, /not a backup of opencube/);
    // One letter of a stored row changed (a security mode's name): the rows no longer match the
    // backup's digest. (Zeroing a fixed range of bytes may hit free space only, as the schema grows.)
    const damaged = Buffer.from(bytes);
    const at = damaged.indexOf('away_mode');
    assert.ok(at > 0, 'a security mode in the backup');
    damaged[at] = 'b'.charCodeAt(0);
    const refused = await restore(damaged);
    assert.equal(refused.status, 400);
    assert.match(((await refused.json()) as { error: string }).error, /damaged/);
    const ok = await restore(bytes);
    assert.equal(ok.status, 200);
  });

  test('a restored backup replaces the store at the next start: what changed since the backup is gone', async (t) => {
    const { g, c } = await simGateway();
    let current = g;
    t.after(() => current.stop());
    const kept = g.gateway.tokens.create('kept app');
    const backup = await fetch(`${g.url}/console/api/backup`, { headers: { cookie: `opencube_session=${c.cookie}` } });
    const bytes = Buffer.from(await backup.arrayBuffer());
    g.gateway.tokens.create('made after the backup');
    const staged = await fetch(`${g.url}/console/api/restore`, {
      method: 'POST',
      headers: { cookie: `opencube_session=${c.cookie}`, origin: g.url, 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    assert.equal(staged.status, 200);
    current = await g.restart();
    assert.deepEqual(
      current.gateway.tokens.list().map((x) => x.app_name),
      ['kept app'],
    );
    assert.ok(current.gateway.tokens.verify(kept));
    const again = consoleClient(current.url);
    again.cookie = c.cookie;
    assert.equal((await again.call('GET', '/devices')).status, 200, 'the session was in the backup');
  });

  test('the device list says what this gateway pairs: Zigbee with a Zigbee network, nothing with zigbee.mode off', async (t) => {
    const { g, c } = await simGateway();
    t.after(() => g.stop());
    assert.deepEqual((await c.call('GET', '/devices')).body.pairing_types, ['zigbee']);
    const off = await startGateway({ overrides: { zigbee: { mode: 'off' } } });
    t.after(() => off.stop());
    await off.gateway.setConsolePassword(PASSWORD);
    const o = consoleClient(off.url);
    await o.login(PASSWORD);
    // Nothing pairs: the page shows no pairing button (and one asked anyway says why not).
    assert.deepEqual((await o.call('GET', '/devices')).body.pairing_types, []);
    const refused = await o.call('PUT', '/pairing', { enable: true });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /no driver pairs devices here \(zigbee\.mode is off\)/);
  });

  test('pairing opens with its end time, every console hears it, and it closes again', async (t) => {
    const { g, c } = await simGateway();
    t.after(() => g.stop());
    const stream = await openStream(g.url, '/console/api/events', { cookie: `opencube_session=${c.cookie}` });
    t.after(() => stream.close());
    const open = await c.call('PUT', '/pairing', { enable: true });
    assert.equal(open.status, 200);
    assert.equal(open.body.open, true);
    assert.ok(Date.parse(open.body.until) > Date.now());
    await stream.waitFor((f) => f.some((x) => x.event === 'pairing#window' && x.data[0]?.includes('"open":true')));
    const closed = await c.call('PUT', '/pairing', { enable: false });
    assert.deepEqual(closed.body, { open: false, until: null });
    await stream.waitFor((f) => f.some((x) => x.event === 'pairing#window' && x.data[0]?.includes('"open":false')));
  });
});
