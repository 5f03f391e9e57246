/**
 * The history's REST API on a running gateway: under /open-api/v2/rest/opencube/history with a
 * token and the envelope, and the same routes in the console's API behind a session. A sensor's
 * values, the logbook paged and filtered, energy per day, CSV exports streamed, exclusions, and a
 * removed device's history kept or deleted; bad queries refused in `path: rule` form, fuzzed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { consoleClient } from '../console/client.ts';
import { call } from '../helpers/foundation.ts';
import { DOOR, type HistoryRig, HOUR, iso, PLUG, startHistoryRig, TEMPERATURE } from '../helpers/history.ts';

const START = Date.UTC(2025, 2, 3);
const MIN = 60_000;
const BASE = '/open-api/v2/rest/opencube/history';

let rig: HistoryRig;
let token: string;
let sensor: string;
let door: string;
let plug: string;

/** A GET of the history's Open API with the token; `q` as the query string. */
const get = (path: string, q: Record<string, string> = {}, t: string | null = token) =>
  call(rig.gw.url, 'GET', `${BASE}${path}?${new URLSearchParams(q)}`, t === null ? {} : { token: t });

before(async () => {
  rig = await startHistoryRig({ start: START, timeZone: 'Europe/Berlin', settings: { batch_seconds: 5 } });
  token = rig.gw.token('charts');
  sensor = rig.add('t', 'Bedroom', TEMPERATURE);
  door = rig.add('d', 'Front door', DOOR);
  plug = rig.add('p', 'Heater', PLUG);
  // Six hours: the bedroom every minute, the door every half hour, the heater at 1 kW for two hours.
  for (let m = 0; m < 6 * 60; m++) {
    rig.report(sensor, { temperature: { temperature: 18 + (m % 30) / 10 } });
    if (m % 30 === 0) rig.report(door, { contact: { contact: m % 60 === 0 } });
    if (m === 60) rig.report(plug, { 'toggle-electric-power': { 1: { electricPower: 100_000 } } });
    if (m === 180) rig.report(plug, { 'toggle-electric-power': { 1: { electricPower: 0 } } });
    await rig.advance(MIN, MIN);
  }
  await rig.advance(10_000, 10_000);
});

after(() => rig.stop());

describe('the history over the Open API', () => {
  it("answers a sensor's values at the resolution that fits the points asked for", async () => {
    const raw = await get('/series', { serial_number: sensor, capability: 'temperature', from: iso(START) });
    assert.equal(raw.json.error, 0, raw.text);
    assert.equal(raw.json.data.resolution, 'raw');
    assert.equal(raw.json.data.t.length, 360);
    assert.equal(raw.json.data.value[0], 18);
    assert.equal(raw.json.data.unit, '°C');
    const fitted = await get('/series', {
      serial_number: sensor,
      capability: 'temperature',
      from: iso(START),
      to: iso(START + 6 * HOUR),
      points: '12',
    });
    assert.equal(fitted.json.data.resolution, '30m');
    assert.equal(fitted.json.data.t.length, 12);
    assert.equal(fitted.json.data.min[0], 18);
    assert.equal(fitted.json.data.max[0], 20.9);
  });

  it('answers the logbook newest first, a page at a time, filtered by device and kind', async () => {
    const first = await get('/logbook', { serial_number: door, kind: 'state', limit: '5' });
    assert.equal(first.json.error, 0, first.text);
    const { entries, next } = first.json.data;
    assert.equal(entries.length, 5);
    assert.ok(entries.every((e: { device_name: string }) => e.device_name === 'Front door'));
    assert.ok(entries[0].t > entries[4].t, 'newest first');
    assert.match(entries[0].time, /\+01:00$/, 'local time in the zone of the setting time_zone');
    const second = await get('/logbook', { serial_number: door, kind: 'state', limit: '5', before: next });
    assert.ok(second.json.data.entries[0].t < entries[4].t);
    const all = await get('/logbook', { serial_number: `${door},${sensor}`, kind: 'state,online', limit: '1000' });
    assert.equal(all.json.data.entries.length, 12, 'twelve door changes; the sensor has numbers, not states');
  });

  it('answers energy per hour and day in kWh', async () => {
    const hours = await get('/energy', { from: iso(START), to: iso(START + 6 * HOUR), period: 'hour' });
    assert.equal(hours.json.error, 0, hours.text);
    assert.equal(hours.json.data.time_zone, 'Europe/Berlin');
    assert.deepEqual(
      hours.json.data.buckets.map((b: { kwh: number | null }) => b.kwh),
      [null, 1, 1, 0, 0, 0],
    );
    const day = await get('/energy', { serial_number: plug, from: iso(START - HOUR), period: 'day' });
    assert.equal(day.json.data.total_kwh, 2);
    assert.equal(day.json.data.buckets[0].start, '2025-03-03T00:00:00+01:00');
  });

  it('streams a series, the logbook and energy as CSV files', async () => {
    const series = await get('/series/csv', { serial_number: sensor, capability: 'temperature', from: iso(START) });
    assert.equal(series.status, 200);
    assert.match(series.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(
      series.headers.get('content-disposition') ?? '',
      /^attachment; filename="history-[0-9a-f]+-temperature-2025-03-03\.csv"$/,
    );
    const lines = series.text.trimEnd().split('\r\n');
    assert.equal(lines.length, 361, 'a header and a row a value');
    assert.match(lines[1] ?? '', /^2025-03-03T01:00:00(\.000)?\+01:00,/);
    const logbook = await get('/logbook/csv', { serial_number: door });
    assert.equal(logbook.text.trimEnd().split('\r\n').length, 1 + 12 + 1, 'a header, the changes, the device added');
    const energy = await get('/energy/csv', { from: iso(START), period: 'hour' });
    assert.match(energy.text, /kwh/i);
  });

  it('leaves a capability out of the history and records it again', async () => {
    const post = (body: unknown) => call(rig.gw.url, 'POST', `${BASE}/exclusions`, { token, body });
    const added = await post({ serial_number: sensor, capability: 'humidity' });
    assert.equal(added.json.error, 0, added.text);
    assert.deepEqual(added.json.data.exclusions, [{ serial_number: sensor, capability: 'humidity' }]);
    assert.deepEqual((await get('/exclusions')).json.data.exclusions, added.json.data.exclusions);
    const refused = await post({ serial_number: 'nope', capability: 'warp' });
    assert.equal(refused.json.error, 400);
    assert.equal(refused.json.message, 'serial_number: "nope" is not a device; capability: "warp" is not a capability');
    const removed = await call(rig.gw.url, 'DELETE', `${BASE}/exclusions/${sensor}`, { token });
    assert.deepEqual(removed.json.data.exclusions, []);
  });

  it("keeps a removed device's history until it is deleted", async () => {
    const gone = rig.add('x', 'Old sensor', TEMPERATURE);
    rig.report(gone, { temperature: { temperature: 12.5 } });
    await rig.advance(MIN, MIN);
    rig.registry.deviceLeft(gone);
    await rig.advance(10_000, 10_000);
    const devices = (await get('/devices')).json.data.devices;
    const kept = devices.find((d: { serial_number: string }) => d.serial_number === gone);
    assert.equal(kept.name, 'Old sensor');
    assert.ok(kept.removed_at > 0, 'marked removed, its history kept');
    const del = await call(rig.gw.url, 'DELETE', `${BASE}/devices/${gone}`, { token });
    assert.equal(del.json.error, 0, del.text);
    const after = await get('/series', { serial_number: gone, capability: 'temperature', from: iso(START) });
    assert.equal(after.json.message, `serial_number: "${gone}" has no history`);
    const again = await call(rig.gw.url, 'DELETE', `${BASE}/devices/${gone}`, { token });
    assert.equal(again.json.error, 404);
  });

  it('asks for a token, and lists its routes in the OpenAPI document', async () => {
    const r = await get('/devices', {}, null);
    assert.equal(r.json.error, 401);
    const doc = (await call(rig.gw.url, 'GET', '/open-api/openapi.json')).json;
    for (const p of ['series', 'series/csv', 'logbook', 'logbook/csv', 'energy', 'energy/csv', 'exclusions', 'devices'])
      assert.ok(
        Object.keys(doc.paths).some((k) => k.endsWith(`/opencube/history/${p}`)),
        `${p} in ${Object.keys(doc.paths).join()}`,
      );
  });
});

describe('bad queries', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['/series', { capability: 'temperature', from: iso(START) }, 'serial_number: required'],
    ['/series', { serial_number: 'x', capability: 'temperature', from: 'yesterday' }, 'from: '],
    [
      '/series',
      { serial_number: sensor, capability: 'temperature', from: iso(START), points: '1' },
      'points: 1 is below min 2',
    ],
    ['/series', { serial_number: sensor, capability: 'temperature', from: iso(START), points: 'many' }, 'points: '],
    ['/logbook', { limit: '0' }, 'limit: 0 is below min 1'],
    ['/logbook', { before: 'x' }, 'before: '],
    ['/energy', { from: iso(START), period: 'week' }, 'period: '],
    ['/energy', { from: iso(START), to: iso(START - HOUR), period: 'day' }, 'to: '],
  ];
  it('are refused in the envelope, every problem in `path: rule` form', async () => {
    for (const [path, q, message] of cases) {
      const r = await get(path, q);
      assert.equal(r.status, 200);
      assert.equal(r.json.error, 400, `${path} ${JSON.stringify(q)}: ${r.text}`);
      assert.ok(r.json.message.includes(message), `${r.json.message} lacks ${message}`);
      assert.match(r.json.message, /^[\w.]+: /);
    }
  });

  it('never crash or answer anything but the envelope, whatever the query (fuzzed)', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom(iso(START), '2025-13-40', '', '-1', '99999999', 'temperature', sensor, 'day', ',', '%00'),
    );
    const keys = fc.constantFrom(
      'serial_number',
      'capability',
      'from',
      'to',
      'points',
      'period',
      'kind',
      'limit',
      'before',
      'name',
      'field',
      'x',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/series', '/logbook', '/energy', '/series/csv', '/logbook/csv', '/energy/csv'),
        fc.dictionary(keys, value, { maxKeys: 6 }),
        async (path, q) => {
          const r = await get(path, q);
          assert.equal(r.status, 200, r.text);
          if (path.endsWith('/csv') && r.json === undefined) return;
          assert.ok(r.json.error === 0 || (r.json.error === 400 && /^[\w.]+: /.test(r.json.message)), r.text);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('the history in the console API', () => {
  it('serves the same routes behind a session, refusals as HTTP statuses with words', async () => {
    await rig.gw.gateway.setConsolePassword('a long console password');
    const c = consoleClient(rig.gw.url);
    assert.equal((await c.call('GET', '/history/devices')).status, 401);
    await c.login('a long console password');
    const r = await c.call(
      'GET',
      `/history/series?${new URLSearchParams({ serial_number: door, capability: 'contact', from: iso(START) })}`,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.resolution, 'changes');
    const bad = await c.call('GET', '/history/energy?period=year');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /^from: required; period: "year" is not one of/);
  });
});
