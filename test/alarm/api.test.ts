/**
 * The alarm's API beyond the spec (GET/PUT security/{sid}/config, GET security/alarm) on both
 * trees: the settings round-trip, and every bad body, id or token is refused with the envelope
 * and a `path: rule` message, changing nothing. Also the store upgrade that moves the alarm state
 * from the speaker to the alarm.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { defaultConfig, parseConfigPatch } from '../../src/core/alarm/index.ts';
import { migrations } from '../../src/store/migrations.ts';
import { call, rest, startGateway, type TestGateway, tempDir, VERSIONS } from '../helpers/foundation.ts';
import { mutate } from '../helpers/fuzz.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';

let g: TestGateway;
let token: string;
let door: string;
let lamp: string;

const CAPS = 'contact, motion, tamper-alert, smoke, gas, water-leak';
const defaults = (sid: number, name: string) => ({ sid, name, ...defaultConfig(name) });

before(async () => {
  g = await startGateway();
  token = g.token();
  const sync = await sendEvent(g, token, 'DiscoveryRequest', {
    endpoints: [
      {
        ...endpoint('door', 'http://127.0.0.1:9/x'),
        display_category: 'contactSensor',
        capabilities: [{ capability: 'contact', permission: '0100' }],
        state: { contact: { contact: false } },
      },
      endpoint('lamp', 'http://127.0.0.1:9/x'),
    ],
  });
  [door, lamp] = sync.json.payload.endpoints.map((e: { serial_number: string }) => e.serial_number);
});

after(() => g.stop());

const put = (path: string, body: unknown, version = 'v2') => call(g.url, 'PUT', rest(version, path), { token, body });
const get = (path: string, version = 'v2') => call(g.url, 'GET', rest(version, path), { token });

describe('the settings of a mode', () => {
  test('are served on every tree, as the defaults until changed', async () => {
    for (const v of VERSIONS) {
      const r = await get('security/3/config', v);
      assert.deepEqual(r.json, { error: 0, data: defaults(3, 'sleep_mode'), message: 'success' });
    }
  });

  test('a PUT changes the fields it names and answers the whole settings; an empty body changes nothing', async () => {
    const r = await put('security/1/config', { exit_delay: 20, devices: [door] }, 'v1');
    const want = { ...defaults(1, 'home_mode'), exit_delay: 20, devices: [door] };
    assert.deepEqual(r.json, { error: 0, data: want, message: 'success' });
    for (const body of ['', '{}', 'null']) assert.deepEqual((await put('security/1/config', body)).json.data, want);
    assert.deepEqual((await get('security/1/config')).json.data, want);
    const back = await put('security/1/config', {
      exit_delay: 0,
      devices: { kinds: ['contact', 'tamper-alert'] },
      alarm_duration: -1,
    });
    assert.deepEqual(back.json.data, { ...defaults(1, 'home_mode'), alarm_duration: -1 });
    const all = await put('security/1/config', { devices: 'all' });
    assert.deepEqual(all.json.data, { ...defaults(1, 'home_mode'), alarm_duration: -1, devices: 'all' });
  });

  test('the alarm status is served on every tree', async () => {
    for (const v of VERSIONS) {
      assert.deepEqual((await get('security/alarm', v)).json.data, {
        stage: 'disarmed',
        alarm_state: 'normal',
        mode: null,
        ends_at: null,
        trigger: null,
        sound: null,
      });
    }
  });
});

describe('bad settings are refused with the envelope, naming each problem, and change nothing', () => {
  const cases: [string, () => unknown, string | (() => string)][] = [
    ['an array', () => '[]', 'body: expected an object, got an array'],
    ['a string', () => '"fast"', 'body: expected an object, got "fast"'],
    ['a number', () => '42', 'body: expected an object, got 42'],
    ['broken JSON', () => '{"exit_delay":', 'body is not valid JSON: Unexpected end of JSON input'],
    ['an unknown field', () => ({ exit: 5 }), 'exit: unknown field'],
    ['a delay as a string', () => ({ exit_delay: '30' }), 'exit_delay: expected a number, got "30"'],
    ['a fractional delay', () => ({ exit_delay: 1.5 }), 'exit_delay: 1.5 is not an integer'],
    ['a negative delay', () => ({ exit_delay: -1 }), 'exit_delay: -1 is below min 0'],
    ['a null delay', () => ({ entry_delay: null }), 'entry_delay: expected a number, got null'],
    ['a delay over an hour', () => ({ entry_delay: 3601 }), 'entry_delay: 3601 is above max 3600'],
    [
      'a sound that is no alarm',
      () => ({ alarm_sound: 'alert1' }),
      'alarm_sound: "alert1" is not one of alarm1, alarm2, alarm3, alarm4, alarm5',
    ],
    [
      'a sound as a number',
      () => ({ alarm_sound: 1 }),
      'alarm_sound: 1 is not one of alarm1, alarm2, alarm3, alarm4, alarm5',
    ],
    ['a zero length', () => ({ alarm_duration: 0 }), 'alarm_duration: 0 is below min 1'],
    ['a length of -2', () => ({ alarm_duration: -2 }), 'alarm_duration: -2 is below min 1'],
    ['a length as a boolean', () => ({ alarm_duration: true }), 'alarm_duration: expected a number, got true'],
    ['devices as a word', () => ({ devices: 'some' }), 'devices: must be all, got "some"'],
    [
      'devices as an object of no kinds',
      () => ({ devices: { a: door } }),
      'devices.a: unknown field; devices.kinds: required',
    ],
    [
      'a kind that is no intrusion sensor',
      () => ({ devices: { kinds: ['contact', 'smoke'] } }),
      'devices.kinds.1: "smoke" is not one of contact, motion, tamper-alert',
    ],
    ['a kind twice', () => ({ devices: { kinds: ['motion', 'motion'] } }), 'devices.kinds.1: "motion" is listed twice'],
    ['kinds as a word', () => ({ devices: { kinds: 'motion' } }), 'devices.kinds: expected an array, got "motion"'],
    ['a device as a number', () => ({ devices: [7] }), 'devices.0: expected a string, got 7'],
    ['an unknown device', () => ({ devices: [door, 'nope'] }), 'devices.1: no device has serial number "nope"'],
    ['a device twice', () => ({ devices: [door, door] }), () => `devices.1: "${door}" is listed twice`],
    [
      'a device that senses nothing',
      () => ({ devices: [lamp] }),
      () => `devices.0: device "${lamp}" ("Device lamp") has none of ${CAPS}`,
    ],
    [
      'too many devices',
      () => ({ devices: Array.from({ length: 1001 }, (_, i) => `s${i}`) }),
      'devices: 1001 items is above max 1000',
    ],
    [
      'several problems at once',
      () => ({ colour: 'red', exit_delay: -1, alarm_sound: 'siren' }),
      `colour: unknown field; exit_delay: -1 is below min 0; alarm_sound: "siren" is not one of alarm1, alarm2, alarm3, alarm4, alarm5`,
    ],
  ];
  for (const [what, body, message] of cases) {
    test(typeof message === 'string' ? `${what}: "${message.slice(0, 70)}"` : what, async () => {
      const r = await put('security/2/config', body());
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, { error: 400, data: {}, message: typeof message === 'string' ? message : message() });
      assert.deepEqual((await get('security/2/config')).json.data, defaults(2, 'away_mode'));
    });
  }

  test('an unknown or malformed mode id, on each route', async () => {
    for (const [method, path] of [
      ['GET', 'security/9/config'],
      ['PUT', 'security/9/config'],
    ]) {
      const r = await call(g.url, method as string, rest('v2', path as string), {
        token,
        body: method === 'PUT' ? {} : undefined,
      });
      assert.deepEqual(r.json, { error: 400, data: {}, message: 'security_id: no security mode with sid 9' });
    }
    const bad = await call(g.url, 'GET', rest('v1', 'security/one/config'), { token });
    assert.deepEqual(bad.json, { error: 400, data: {}, message: 'security_id: "one" is not a security mode id' });
  });

  test('no token, or a wrong one', async () => {
    for (const [method, path] of [
      ['GET', 'security/alarm'],
      ['GET', 'security/1/config'],
      ['PUT', 'security/1/config'],
    ]) {
      for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: '' }] as Record<string, string>[]) {
        const body = method === 'PUT' ? { exit_delay: 1 } : undefined;
        const r = await call(g.url, method as string, rest('v2', path as string), { headers, body });
        assert.deepEqual(r.json, { error: 401, data: {}, message: 'headers.Authorization is invalid' });
      }
    }
    assert.deepEqual((await get('security/1/config')).json.data.exit_delay, 0);
  });

  test('any mutation of a valid body is either taken or refused with a message, never a crash', async () => {
    const valid = { exit_delay: 10, entry_delay: 20, alarm_sound: 'alarm2', alarm_duration: 60, devices: [door] };
    const junk = fc.oneof(
      fc.constantFrom(null, true, -1, 0, 3.5, 2 ** 53, '', 'all', 'alarm9', [], {}, [door], [[door]]),
      fc.jsonValue({ maxDepth: 2 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 3 }), junk, async (path, value) => {
        const r = await put('security/3/config', mutate(valid, path, value));
        assert.equal(r.status, 200);
        assert.ok(r.json.error === 0 || (r.json.error === 400 && r.json.message.length > 0), r.text);
        const now = (await get('security/3/config')).json.data;
        if (r.json.error === 0) assert.deepEqual(now, r.json.data);
      }),
      { numRuns: 150 },
    );
  });

  test('random bodies get every problem in the `path: rule` form of the compiled schema, and change nothing', async () => {
    const RULE =
      /^.*?: (required|unknown field|expected an? \w+, got |\S+ is (below min|above max|not an integer)|.+ is not one of |must be |\d+ items is above max |no device has |.+ is listed twice|device .+ has none of )/;
    const value = fc.oneof(
      fc.constantFrom(
        null,
        true,
        -2,
        -1,
        0,
        1.5,
        3601,
        '',
        'all',
        'some',
        'alarm1',
        [],
        [door],
        [lamp],
        [door, door],
        ['x'],
        { kinds: ['contact'] },
        { kinds: ['motion', 'motion'] },
        { kinds: ['smoke'] },
      ),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const key = fc.constantFrom('exit_delay', 'entry_delay', 'alarm_sound', 'alarm_duration', 'devices', 'colour');
    const body = fc.oneof(fc.dictionary(key, value, { maxKeys: 4 }), fc.jsonValue({ maxDepth: 2 }));
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const before = (await get('security/3/config')).json.data;
        const r = await put('security/3/config', JSON.stringify(b));
        assert.equal(r.status, 200);
        if (r.json.error === 0) return;
        assert.equal(r.json.error, 400, r.text);
        for (const part of r.json.message.split('; ')) assert.match(part, RULE, r.text);
        assert.deepEqual((await get('security/3/config')).json.data, before);
      }),
      { numRuns: 300 },
    );
  });

  test('the core check alone refuses what is not an object, null included, without throwing', () => {
    const none = { get: () => undefined };
    for (const [body, message] of [
      [null, 'body: expected an object, got null'],
      [[], 'body: expected an object, got an array'],
      ['x', 'body: expected an object, got "x"'],
      [{ devices: ['a', 'a'] }, 'devices.0: no device has serial number "a"; devices.1: "a" is listed twice'],
    ] as const)
      assert.deepEqual(parseConfigPatch(body, none), { ok: false, errors: message.split('; ') });
  });
});

describe('the store upgrade', () => {
  test('a cancelled alarm state kept by the speaker before the upgrade reads as normal after it', async (t) => {
    const dir = tempDir();
    const db = new Database(join(dir, 'gateway.db'));
    for (const m of migrations.filter((x) => x.version <= 2)) db.exec(m.sql);
    db.pragma('user_version = 2');
    db.prepare("INSERT INTO kv (key, value) VALUES ('speaker', ?)").run(
      JSON.stringify({ volume: 31, muted: false, alarm_sound: false, alarm_state: 'cancelled' }),
    );
    db.close();
    const old = await startGateway({ dataDir: dir });
    t.after(async () => {
      await old.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    assert.equal(
      old.gateway.alarm.status().alarm_state,
      'normal',
      'cancel_alarm ends the alarm: nothing is left cancelled',
    );
    assert.deepEqual(old.gateway.speaker.get(), { volume: 31, muted: false });
    const stored = old.gateway.db.prepare("SELECT value FROM kv WHERE key = 'speaker'").get() as { value: string };
    assert.deepEqual(JSON.parse(stored.value), { volume: 31, muted: false });
  });
});
