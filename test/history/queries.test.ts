/**
 * Reading the history: the resolution a series query picks for the points asked for (raw when few,
 * then buckets from raw values, 5-minute or hourly roll-ups), states as shares of time and presses
 * as counts, CSV exports, and every bad query refused with `path: rule` messages, never a throw.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { BUTTON, DOOR, type HistoryRig, HOUR, iso, PLUG, startHistoryRig, TEMPERATURE } from '../helpers/history.ts';

const START = Date.UTC(2025, 0, 6);
const MIN = 60_000;

/** Two days: a sensor every minute (the second day every 20 s for an hour), a door every 10 minutes, a button. */
let rig: HistoryRig;
let sensor: string;
let door: string;
let button: string;
let plug: string;

before(async () => {
  rig = await startHistoryRig({ start: START, timeZone: 'Europe/Berlin', settings: { batch_seconds: 300 } });
  sensor = rig.add('t', 'Living room', TEMPERATURE);
  door = rig.add('d', 'Front door', DOOR);
  button = rig.add('b', 'Button', BUTTON);
  plug = rig.add('p', '=HYPERLINK("x"), "plug"', PLUG);
  for (let m = 0; m < 2 * 24 * 60; m++) {
    const burst = m >= 36 * 60 && m < 37 * 60;
    for (let k = 0; k < (burst ? 3 : 1); k++) {
      rig.report(sensor, { temperature: { temperature: 20 + ((m * 3 + k) % 17) / 10 } });
      if (k < 2 && burst) await rig.advance(20_000, 20_000);
    }
    if (m % 10 === 0) rig.report(door, { contact: { contact: m % 20 === 0 } });
    if (m % 20 === 0) rig.report(button, { press: { press: m % 40 === 0 ? 'singlePress' : 'doublePress' } });
    await rig.advance(burst ? 20_000 : MIN, MIN);
  }
});

after(() => rig.stop());

describe('the resolution a series query picks', () => {
  const q = (from: number, to: number, points: number) => rig.series(sensor, 'temperature', from, to, points);

  it('answers raw values when they fit the points asked for', () => {
    const r = q(START, START + HOUR, 500);
    assert.equal(r.resolution, 'raw');
    assert.equal(r.t.length, 60);
    assert.equal(rig.series(sensor, 'temperature', START, START + 24 * HOUR, 2000).t.length, 1440);
  });

  it('makes 1-minute buckets from raw values when reports come faster', () => {
    const r = q(START + 36 * HOUR, START + 37 * HOUR, 100);
    assert.equal(r.resolution, '1m');
    assert.equal(r.t.length, 60);
    assert.deepEqual(r.n, new Array(60).fill(3));
  });

  it('reads 5-minute roll-ups for a day, hourly ones for longer, and merges them into round buckets', () => {
    const day = q(START, START + 24 * HOUR, 500);
    assert.equal(day.resolution, '5m');
    assert.equal(day.t.length, 288);
    const halfHours = q(START, START + 48 * HOUR, 100);
    assert.equal(halfHours.resolution, '30m');
    assert.equal(halfHours.t.length, 96);
    const threeHours = q(START, START + 48 * HOUR, 20);
    assert.equal(threeHours.resolution, '3h');
    assert.deepEqual(
      threeHours.n,
      new Array(16).fill(180).map((n, i) => (i === 12 ? n + 120 : n)),
    );
    // A 3-hour bucket is its 5-minute buckets merged: the same reports, min, max and mean.
    const fives = q(START, START + 3 * HOUR, 36);
    assert.equal(fives.resolution, '5m');
    const nums = (xs: (number | null)[] | undefined) => (xs ?? []).map(Number);
    assert.equal(Math.min(...nums(fives.min)), threeHours.min?.[0]);
    assert.equal(Math.max(...nums(fives.max)), threeHours.max?.[0]);
    // Means are kept to two more decimals than the values: equal to 0.001.
    const mean = nums(fives.mean).reduce((a, b) => a + b, 0) / 36;
    assert.ok(Math.abs(mean - Number(threeHours.mean?.[0])) <= 0.001, `${mean} ${threeHours.mean?.[0]}`);
  });

  it('aligns day buckets to local midnight in the configured zone', () => {
    const r = q(START + HOUR, START + 48 * HOUR, 3);
    assert.equal(r.resolution, '1d');
    assert.deepEqual(
      r.t,
      [START - HOUR, START + 23 * HOUR, START + 47 * HOUR],
      'midnight in Berlin is 23:00 UTC in winter',
    );
  });
});

describe('states and presses over time', () => {
  it('answers the changes of a state when they are few, with the state standing before the range', () => {
    const r = rig.series(door, 'contact', START + 15 * MIN, START + 60 * MIN);
    assert.equal(r.resolution, 'changes');
    assert.deepEqual(r.before, { t: START + 10 * MIN, value: false });
    assert.deepEqual(r.value, [true, false, true, false]);
  });

  it('gives each bucket the share of time in each state, and counts presses of each kind', () => {
    const r = rig.series(door, 'contact', START, START + 24 * HOUR, 24);
    assert.equal(r.resolution, '1h');
    assert.deepEqual(r.share?.true, new Array(24).fill(0.5));
    assert.deepEqual(r.share?.false, new Array(24).fill(0.5));
    assert.deepEqual(r.n, new Array(24).fill(6));
    const presses = rig.series(button, 'press', START, START + 24 * HOUR, 12);
    assert.equal(presses.resolution, '3h');
    // Presses every 20 minutes, every other one single: 5 then 4 singles in each 3 hours.
    assert.deepEqual(
      presses.count?.singlePress,
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? 5 : 4)),
    );
    assert.deepEqual(presses.n, new Array(8).fill(9));
  });
});

describe('CSV', () => {
  it('writes a series with local times, CRLF line ends and a header', () => {
    const r = rig.history.seriesCsv({
      serial_number: sensor,
      capability: 'temperature',
      from: iso(START),
      to: iso(START + 3 * MIN),
    });
    assert.ok(r.ok);
    assert.equal(
      [...r.value].join(''),
      'time,temperature\r\n2025-01-06T01:00:00+01:00,20\r\n2025-01-06T01:01:00+01:00,20.3\r\n2025-01-06T01:02:00+01:00,20.6\r\n',
    );
  });

  it('writes the logbook with names that look like formulas defused and fields with commas quoted', () => {
    rig.registry.onlineChanged(plug, false);
    const r = rig.history.logbookCsv({ serial_number: [plug], kind: ['online'] });
    assert.ok(r.ok);
    const lines = [...r.value];
    assert.equal(lines[0], 'time,kind,serial_number,device,capability,name,field,value\r\n');
    assert.match(
      lines[1] ?? '',
      new RegExp(`^[^,]+,online,${plug},"'=HYPERLINK\\(""x""\\), ""plug""",,,,false\\r\\n$`),
    );
    assert.equal(lines.length, 2);
  });

  it('writes every page of a long logbook', () => {
    const r = rig.history.logbookCsv({ serial_number: [door] });
    assert.ok(r.ok);
    assert.equal([...r.value].length, 1 + 1 + 288, 'the header, the device added, 288 changes');
  });
});

describe('bad queries', () => {
  const valid = () => ({ serial_number: sensor, capability: 'temperature', from: iso(START) });
  const cases: [string, () => unknown, string[]][] = [
    ['nothing at all', () => undefined, ['query: expected an object, got undefined']],
    ['a list', () => [], ['query: expected an object, got an array']],
    ['no fields', () => ({}), ['serial_number: required', 'capability: required', 'from: required']],
    [
      'a date that is not one',
      () => ({ ...valid(), from: 'yesterday' }),
      ['from: "yesterday" is not an ISO 8601 date'],
    ],
    ['points too few', () => ({ ...valid(), points: 1 }), ['points: 1 is below min 2']],
    ['points too many', () => ({ ...valid(), points: 10_001 }), ['points: 10001 is above max 10000']],
    ['points not whole', () => ({ ...valid(), points: 2.5 }), ['points: 2.5 is not an integer']],
    ['a field it does not know', () => ({ ...valid(), colour: 'red' }), ['colour: unknown field']],
    [
      'an empty serial number',
      () => ({ ...valid(), serial_number: ' ' }),
      ['serial_number: " " is not a non-empty text'],
    ],
    [
      'a range that ends first',
      () => ({ ...valid(), to: iso(START - 1) }),
      [`to: "${iso(START - 1)}" is not after from "${iso(START)}"`],
    ],
    [
      'a range of a century',
      () => ({ ...valid(), from: '1925-01-01T00:00:00Z', to: '2025-01-01T00:00:00Z' }),
      ['to: the range is longer than 20 years'],
    ],
    [
      'a device without history',
      () => ({ ...valid(), serial_number: 'nope' }),
      ['serial_number: "nope" has no history'],
    ],
    [
      'a capability not recorded',
      () => ({ ...valid(), capability: 'humidity' }),
      ['capability: "humidity" has no history on this device'],
    ],
    ['a name it does not have', () => ({ ...valid(), name: '2' }), ['name: "temperature" has no names']],
    [
      'a field it does not have',
      () => ({ ...valid(), field: 'kelvin' }),
      ['field: "kelvin" is not one of temperature'],
    ],
  ];
  for (const [what, input, errors] of cases)
    it(`refuses ${what} in path: rule form`, () => {
      assert.deepEqual(rig.history.series(input()), { ok: false, errors });
    });

  it('refuses bad logbook, energy, CSV, exclusion and deletion arguments the same way', async () => {
    assert.deepEqual(rig.history.logbook({ limit: 0, before: 'abc', kind: ['State!'], serial_number: [] }), {
      ok: false,
      errors: [
        'serial_number: needs at least 1 item',
        'kind.0: "State!" is not a kind of entry, e.g. `state`',
        'before: "abc" is not the `next` of a previous page',
        'limit: 0 is below min 1',
      ],
    });
    assert.deepEqual(rig.history.logbook({ from: iso(START), to: iso(START) }), {
      ok: false,
      errors: [`to: "${iso(START)}" is not after from "${iso(START)}"`],
    });
    assert.deepEqual(rig.history.energy({ from: iso(START), period: 'week' }), {
      ok: false,
      errors: ['period: "week" is not one of hour, day, month'],
    });
    assert.deepEqual(rig.history.energy({ serial_number: ['nope'], from: iso(START), period: 'day' }), {
      ok: false,
      errors: ['serial_number.0: "nope" has no history'],
    });
    assert.deepEqual(rig.history.energy({ from: '2020-01-01T00:00:00Z', to: '2025-01-01T00:00:00Z', period: 'hour' }), {
      ok: false,
      errors: ['period: more than 10000 hours from from to to'],
    });
    assert.deepEqual(rig.history.seriesCsv({ ...valid(), points: 0 }), {
      ok: false,
      errors: ['points: 0 is below min 2'],
    });
    assert.deepEqual(rig.history.exclude({ capability: 3 }), {
      ok: false,
      errors: ['serial_number: required', 'capability: expected a string, got 3'],
    });
    assert.deepEqual(await rig.history.forget('nope'), { ok: false, errors: ['body: expected an object, got "nope"'] });
  });

  it('never throws, whatever it is given: an answer or path: rule messages', async () => {
    // A path (a field, `field.0`, `["odd key"]`, or the whole query), then the rule.
    const messages = /^\S[^\n]*?: \S/;
    const anyQuery = fc.oneof(
      fc.anything(),
      fc.record(
        {
          serial_number: fc.oneof(fc.constant(sensor), fc.constant(door), fc.string(), fc.array(fc.string())),
          capability: fc.oneof(
            fc.constantFrom('temperature', 'contact', 'press', 'toggle-electric-power'),
            fc.string(),
          ),
          name: fc.oneof(fc.constant('1'), fc.string(), fc.integer()),
          field: fc.oneof(fc.constant('temperature'), fc.string()),
          from: fc.oneof(
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
            fc.string(),
            fc.integer(),
          ),
          to: fc.oneof(
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
            fc.string(),
          ),
          points: fc.oneof(fc.integer({ min: -5, max: 20_000 }), fc.double(), fc.string()),
          period: fc.oneof(fc.constantFrom('hour', 'day', 'month'), fc.string()),
          kind: fc.oneof(fc.array(fc.constantFrom('state', 'press', 'online')), fc.array(fc.string())),
          before: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 20n - 1n }).map(String), fc.string()),
          limit: fc.oneof(fc.integer({ min: -1, max: 2000 }), fc.string()),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(anyQuery, async (input) => {
        for (const r of [
          rig.history.series(input),
          rig.history.logbook(input),
          rig.history.energy(input),
          rig.history.seriesCsv(input),
          rig.history.logbookCsv(input),
          rig.history.energyCsv(input),
        ]) {
          if (r.ok) {
            if (Symbol.iterator in Object(r.value))
              for (const line of r.value as Iterable<string>) assert.equal(typeof line, 'string');
            continue;
          }
          assert.ok(r.errors.length > 0);
          for (const e of r.errors) assert.match(e, messages);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('where raw values are no longer kept', () => {
  it('falls back to roll-ups', async () => {
    await rig.restart({ raw_days: 1 });
    await rig.history.maintain();
    const q = (from: number, to: number) => rig.series(sensor, 'temperature', from, to, 1000);
    assert.equal(q(START, START + 2 * HOUR).resolution, '5m', 'the raw values of the first day are pruned');
    assert.equal(q(START + 47 * HOUR, START + 48 * HOUR).resolution, 'raw');
  });
});
