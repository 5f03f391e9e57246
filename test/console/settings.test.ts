/**
 * Settings changed from the console while the gateway runs: the gateway's name (G-bridge, the
 * console's header, the token requests' own names), the event beeps and their volume. Each takes
 * effect at once, is kept in the store across a restart (over the flag it was started with), and
 * a bad value or a setting read only at start is refused in words.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { type AudioGateway, startAudioGateway } from '../helpers/audio.ts';
import { call, rest } from '../helpers/foundation.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';
import { type ConsoleClient, consoleClient } from './client.ts';

const PASSWORD = 'settings password';

async function consoleOn(g: AudioGateway): Promise<ConsoleClient> {
  await g.gateway.setConsolePassword(PASSWORD);
  const c = consoleClient(g.url);
  assert.equal((await c.login(PASSWORD)).status, 200);
  return c;
}

/** The console's settings as `{key: [value, set_in_console]}` for the live ones. */
async function liveRows(c: ConsoleClient): Promise<Record<string, [unknown, boolean]>> {
  const r = await c.call('GET', '/gateway');
  assert.equal(r.status, 200);
  return Object.fromEntries(
    (r.body.settings as { key: string; value: unknown; live: boolean; set_in_console: boolean }[])
      .filter((s) => s.live)
      .map((s) => [s.key, [s.value, s.set_in_console]]),
  );
}

/** A G1 poll under this Host header: the answer's error code and message. */
function pollAs(url: string, host: string): Promise<{ error: number; message: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${rest('v2', 'bridge/access_token')}?app_name=renamed`, { headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('settings the console changes while the gateway runs', () => {
  test("the gateway's name changes at once in G-bridge, the console and the token requests' own names, and outlives a restart over its flag", async (t) => {
    let g = await startAudioGateway({ overrides: { name: 'Flag cube' } });
    t.after(() => g.stop());
    const c = await consoleOn(g);
    const port = new URL(g.url).port;
    assert.match((await pollAs(g.url, `hall-cube.local:${port}`)).message, /does not answer token requests for host/);

    const set = await c.call('PUT', '/settings/name', { value: '  Hall cube ' });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual([set.body.value, set.body.was, set.body.info.name], ['Hall cube', 'Flag cube', 'Hall cube']);
    const bridge = await call(g.url, 'GET', rest('v2', 'bridge'));
    assert.equal(bridge.json.data.name, 'Hall cube', 'G-bridge at once (not after its cache)');
    assert.equal((await c.call('GET', '/auth')).body.name, 'Hall cube', "the console's header");
    assert.equal((await c.call('GET', '/gateway')).body.info.name, 'Hall cube');
    // The mDNS name follows the gateway's: a client that found it there may ask for its token.
    g.gateway.tokens.press();
    const under = await pollAs(g.url, `hall-cube.local:${port}`);
    g.gateway.tokens.closeWindow();
    assert.equal(under.error, 0, JSON.stringify(under));
    assert.deepEqual((await liveRows(c)).name, ['Hall cube', true]);

    g = await g.restart();
    assert.equal((await call(g.url, 'GET', rest('v2', 'bridge'))).json.data.name, 'Hall cube', 'kept over --name');
    const again = consoleClient(g.url);
    again.cookie = c.cookie;
    assert.deepEqual((await liveRows(again)).name, ['Hall cube', true]);
  });

  test('the event beeps and their volume are switched at once, and stay so after a restart', async (t) => {
    let g = await startAudioGateway();
    t.after(() => g.stop());
    const c = await consoleOn(g);
    const token = g.token();
    const beeps = () => g.sink.plays.filter((p) => p.layer === 'beep');
    const discover = async (id: string) => {
      const r = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint(id, 'http://127.0.0.1:9/x')] });
      assert.equal(r.json.header.name, 'Response', r.text);
      g.clock.advance(2000);
    };
    assert.deepEqual(
      beeps().map((b) => b.name),
      ['bootComplete'],
    );
    g.clock.advance(2000);
    await discover('b-1');
    const loud = beeps().at(-1);
    assert.equal(loud?.name, 'deviceDiscovered');

    assert.equal((await c.call('PUT', '/settings/audio.beeps.device_discovered', { value: false })).status, 200);
    await discover('b-2');
    assert.equal(beeps().length, 2, 'no beep for a device added with the beep off');

    assert.equal((await c.call('PUT', '/settings/audio.beeps.device_discovered', { value: true })).status, 200);
    assert.equal((await c.call('PUT', '/settings/audio.beep_volume', { value: 40 })).status, 200);
    await discover('b-3');
    const soft = beeps().at(-1);
    assert.equal(soft?.name, 'deviceDiscovered');
    assert.ok(loud && soft && Math.abs(soft.gain / loud.gain - 0.4) < 0.01, `40 % of the gain (${soft?.gain})`);

    assert.equal((await c.call('PUT', '/settings/audio.beeps.boot_complete', { value: false })).status, 200);
    const before = beeps().length;
    g = await g.restart();
    assert.equal(beeps().length, before, 'no boot beep after the restart: the choice was kept');
    const again = consoleClient(g.url);
    again.cookie = c.cookie;
    const rows = await liveRows(again);
    assert.deepEqual(rows['audio.beeps.boot_complete'], [false, true]);
    assert.deepEqual(rows['audio.beep_volume'], [40, true]);
    assert.deepEqual(rows['audio.beeps.armed'], [true, false], 'untouched ones follow their flag');
  });

  const BAD: readonly [string, unknown, number, RegExp][] = [
    ['name', '', 400, /^name: must not be empty$/],
    ['name', '   ', 400, /^name: must not be empty$/],
    ['name', 'x'.repeat(64), 400, /^name: longer than 63 characters$/],
    ['name', 'two\nlines', 400, /^name: contains a control character$/],
    ['name', 42, 400, /^name: expected a text, got 42$/],
    ['name', null, 400, /^name: expected a text, got null$/],
    ['audio.beeps.armed', 'yes', 400, /^audio\.beeps\.armed: expected true or false, got "yes"$/],
    ['audio.beeps.armed', 1, 400, /^audio\.beeps\.armed: expected true or false, got 1$/],
    ['audio.beep_volume', 101, 400, /^audio\.beep_volume: 101 is above max 100$/],
    ['audio.beep_volume', -1, 400, /^audio\.beep_volume: -1 is below min 0$/],
    ['audio.beep_volume', 5.5, 400, /^audio\.beep_volume: expected a whole number, got 5\.5$/],
    ['audio.beep_volume', '50', 400, /^audio\.beep_volume: expected a whole number, got "50"$/],
    ['port', 9000, 409, /^port is read at start only: set it with its flag or environment variable and restart/],
    ['zigbee.mode', 'off', 409, /^zigbee\.mode is read at start only/],
    ['no.such', 1, 404, /^there is no setting no\.such$/],
    ['__proto__', 1, 404, /^there is no setting __proto__$/],
    ['constructor', 1, 404, /^there is no setting constructor$/],
  ];

  test('bad values, settings read only at start and unknown ones are refused in words, and nothing changes', async (t) => {
    const g = await startAudioGateway({ overrides: { name: 'Kept cube' } });
    t.after(() => g.stop());
    const c = await consoleOn(g);
    const before = await liveRows(c);
    for (const [key, value, status, words] of BAD) {
      const r = await c.call('PUT', `/settings/${encodeURIComponent(key)}`, { value });
      assert.equal(r.status, status, `${key} = ${JSON.stringify(value)}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, words, `${key} = ${JSON.stringify(value)}`);
    }
    for (const body of [{}, { value: true, more: 1 }, '{"value":', [true]]) {
      const r = await c.call('PUT', '/settings/audio.beeps.armed', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    }
    const anonymous = await consoleClient(g.url).call('PUT', '/settings/name', { value: 'Stolen' });
    assert.equal(anonymous.status, 401);
    const foreign = await c.call('PUT', '/settings/name', { value: 'Stolen' }, { origin: 'http://evil.example' });
    assert.equal(foreign.status, 403);
    assert.deepEqual(await liveRows(c), before);
    assert.equal((await call(g.url, 'GET', rest('v2', 'bridge'))).json.data.name, 'Kept cube');
  });
});
