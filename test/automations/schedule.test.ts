/**
 * Time and sun triggers and time conditions in the engine, on a real gateway with the injected
 * clock run through many days: weekdays, a sunset trigger across a DST change, 02:30 on the days
 * clocks change, the catch-up of a trigger that fell while the gateway was down (within the
 * grace, beyond it, over several days), no occurrence run twice across many restarts, and windows
 * that cross midnight.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DefinitionInput } from '../../src/automations/index.ts';
import { nextOccurrence } from '../../src/automations/schedule.ts';
import { sunTime } from '../../src/automations/sun.ts';
import { Zone } from '../../src/automations/zone.ts';
import { settle } from '../helpers/clock.ts';
import { type Home, MIN, named, startHome } from './home.ts';

const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const BERLIN = new Zone('Europe/Berlin');

function save(home: Home, def: Partial<DefinitionInput>): string {
  const r = home.engine.save({
    kind: 'automation',
    name: 'timed',
    actions: [{ type: 'notify', message: 'ran' }],
    ...def,
  });
  assert.ok(r.ok, JSON.stringify(r));
  return r.definition.id;
}

/** The instants (ISO) at which the engine's notify actions ran. */
const ranAt = (home: Home) =>
  named(home.events, 'automation#notify')
    .filter((e) => e.data.payload.message === 'ran')
    .map((e) => e.data.payload.run_id as string);

/** Moves the clock by `ms` in steps of at most `step`, letting runs go on between. */
async function pass(home: Home, ms: number, step = HOUR): Promise<void> {
  for (let left = ms; left > 0; left -= step) {
    home.clock.advance(Math.min(step, left));
    await settle(1);
  }
}

/** Local wall time of each run's trigger instant, `YYYY-MM-DD HH:MM` in Berlin. */
function runTimes(home: Home, id: string): string[] {
  return home.engine
    .traces(id, 'run')
    .map((t) => {
      const w = BERLIN.wall(Date.parse(t.trigger.scheduled ?? t.trigger.at));
      const p = (n: number) => String(n).padStart(2, '0');
      return `${w.year}-${p(w.month)}-${p(w.day)} ${p(w.hour)}:${p(w.minute)}`;
    })
    .reverse();
}

describe('time triggers', () => {
  test('07:00 on weekdays runs at 07:00 Monday to Friday and never at the weekend, for two weeks', async (t) => {
    // Monday 2025-01-06 00:00 in Berlin.
    const home = await startHome({ at: Date.UTC(2025, 0, 5, 23) });
    t.after(() => home.stop());
    const id = save(home, { triggers: [{ type: 'time', at: '07:00', weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'] }] });
    await pass(home, 14 * DAY);
    const times = runTimes(home, id);
    assert.equal(times.length, 10);
    assert.ok(times.every((x) => x.endsWith(' 07:00')));
    assert.deepEqual(
      times.slice(0, 5).map((x) => x.slice(8, 10)),
      ['06', '07', '08', '09', '10'],
    );
    assert.equal(ranAt(home).length, 10);
  });

  test("a sunset trigger runs at each day's sunset across the spring DST change, an hour later on the wall after it", async (t) => {
    // Friday 2025-03-28 noon in Berlin; clocks go forward on Sunday the 30th.
    const home = await startHome({ at: Date.UTC(2025, 2, 28, 11) });
    t.after(() => home.stop());
    const id = save(home, { triggers: [{ type: 'sun', event: 'sunset', offset_minutes: -15 }] });
    await pass(home, 4 * DAY);
    const runs = home.engine.traces(id, 'run').reverse();
    assert.equal(runs.length, 4);
    const berlin = { latitude: 52.52, longitude: 13.405 };
    runs.forEach((r, i) => {
      const date = { year: 2025, month: 3, day: 28 + i };
      assert.equal(r.trigger.scheduled, new Date((sunTime('sunset', date, berlin) as number) - 15 * MIN).toISOString());
    });
    const wall = runs.map((r) => BERLIN.wall(Date.parse(r.trigger.scheduled as string)));
    assert.deepEqual(
      wall.map((w) => w.hour),
      [18, 18, 19, 19],
      'sunset moves from about 18:30 to 19:30 on the wall',
    );
  });

  for (const [zone, spring, fall, atSpring, atFall] of [
    [
      'Europe/Berlin',
      Date.UTC(2025, 2, 29, 12),
      Date.UTC(2025, 9, 25, 12),
      '2025-03-30T01:00:00.000Z',
      '2025-10-26T00:30:00.000Z',
    ],
    [
      'America/New_York',
      Date.UTC(2025, 2, 8, 17),
      Date.UTC(2025, 10, 1, 16),
      '2025-03-09T07:00:00.000Z',
      '2025-11-02T05:30:00.000Z',
    ],
  ] as const) {
    test(`${zone}: a daily 02:30 runs once on the day without 02:30 (at the change) and once on the day with two (the first)`, async (t) => {
      const at = zone === 'America/New_York' ? '01:30' : '02:30';
      let home = await startHome({ at: spring, timeZone: zone });
      t.after(() => home.stop());
      const id = save(home, { triggers: [{ type: 'time', at: zone === 'America/New_York' ? '02:30' : at }] });
      await pass(home, DAY);
      const first = home.engine.traces(id, 'run');
      assert.equal(first.length, 1);
      assert.equal(first[0]?.trigger.scheduled, atSpring);
      assert.match(first[0]?.trigger.description ?? '', /did not exist today/);
      // The fall-back day (New York repeats 01:00-02:00: the automation is changed to 01:30).
      home.engine.setEnabled(id, false);
      home.clock.advance(fall - home.clock.now());
      home = await home.restart();
      save(home, { id, triggers: [{ type: 'time', at }], enabled: true });
      await pass(home, DAY, 10 * MIN);
      const second = home.engine.traces(id, 'run');
      assert.equal(second.length, 2);
      assert.equal(second[0]?.trigger.scheduled, atFall);
    });
  }
});

describe('what fell while the gateway was down', () => {
  test('a trigger missed by less than the grace runs once at start, marked late; one missed by more is recorded as missed', async (t) => {
    // Monday 06:00 in Berlin; grace 15 minutes.
    let home = await startHome({ at: Date.UTC(2025, 0, 6, 5) });
    t.after(() => home.stop());
    const id = save(home, { triggers: [{ type: 'time', at: '07:00' }] });
    home = await home.restart(HOUR + 10 * MIN);
    await settle(1);
    let runs = home.engine.traces(id, 'run');
    assert.equal(runs.length, 1);
    assert.equal(runs[0]?.trigger.late_seconds, 600);
    // Tuesday: down from 06:50 to 07:20, 20 minutes late.
    home.clock.advance(Date.UTC(2025, 0, 7, 5, 50) - home.clock.now());
    home = await home.restart(30 * MIN);
    await settle(1);
    runs = home.engine.traces(id, 'run');
    assert.equal(runs.length, 1, 'not run');
    const missed = home.engine.traces(id, 'not_run')[0];
    assert.match(
      missed?.reason ?? '',
      /^missed: 1 occurrence of time 07:00 \(2025-01-07T06:00:00.000Z\) fell while the gateway was down, more than the grace of 900 s ago$/,
    );
  });

  test('down for days: the last occurrence runs if within the grace, the ones before are recorded missed in one trace', async (t) => {
    let home = await startHome({ at: Date.UTC(2025, 0, 6, 5) });
    t.after(() => home.stop());
    const id = save(home, { triggers: [{ type: 'time', at: '07:00' }] });
    // Down from Monday 06:00 to Thursday 07:05.
    home = await home.restart(3 * DAY + HOUR + 5 * MIN);
    await settle(1);
    const runs = home.engine.traces(id, 'run');
    assert.equal(runs.length, 1);
    assert.equal(runs[0]?.trigger.scheduled, '2025-01-09T06:00:00.000Z');
    assert.match(
      home.engine.traces(id, 'not_run')[0]?.reason ?? '',
      /^missed: 3 occurrences of time 07:00 \(2025-01-06T06:00:00.000Z to 2025-01-08T06:00:00.000Z\)/,
    );
    await pass(home, DAY);
    assert.equal(home.engine.traces(id, 'run').length, 2, 'and on Friday as usual');
  });

  test('across many restarts, at random moments and right around the trigger, no occurrence runs twice and none is lost', async (t) => {
    const start = Date.UTC(2025, 0, 6, 5);
    let home = await startHome({ at: start });
    t.after(() => home.stop());
    // The run waits a minute after it starts: restarts fall inside runs too.
    const id = save(home, {
      triggers: [
        { type: 'time', at: '07:00' },
        { type: 'time', at: '07:00:30' },
      ],
      mode: 'parallel',
      max: 4,
      actions: [
        { type: 'delay', seconds: 60 },
        { type: 'notify', message: 'ran' },
      ],
    });
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const end = Date.UTC(2025, 0, 16, 5);
    let full = 0;
    const ran: string[] = [];
    while (home.clock.now() < end) {
      // Steps of up to 3 hours, often landing within a minute of 07:00.
      const w = BERLIN.wall(home.clock.now());
      const near = w.hour === 6 && rand() < 0.8;
      await pass(home, near ? Math.floor(rand() * 2 * MIN) : Math.floor(rand() * 3 * HOUR), 10 * MIN);
      if (full < 5 && rand() < 0.1) {
        ran.push(...ranAt(home));
        home = await home.restart();
        full++;
      } else home.restartEngine();
      await settle(1);
    }
    // On to the next noon: every run started has ended.
    while (BERLIN.wall(home.clock.now()).hour !== 12) await pass(home, 10 * MIN, MIN);
    ran.push(...ranAt(home));
    let expected = 0;
    for (const at of ['07:00', '07:00:30']) {
      let from = start;
      for (
        let o = nextOccurrence({ type: 'time', at }, from, BERLIN, null);
        o && o.at <= home.clock.now();
        o = nextOccurrence({ type: 'time', at }, from, BERLIN, null)
      ) {
        expected++;
        from = o.at;
      }
    }
    assert.equal(new Set(ran).size, ran.length);
    assert.equal(ran.length, expected, 'each instant of the two triggers run once, to its end');
    assert.ok(expected >= 20);
    assert.ok(full > 0, 'some restarts were of the whole gateway');
    // The traces kept (the last 10 runs) each name a different instant.
    const runs = home.engine.traces(id, 'run');
    const scheduled = runs.map((r) => r.trigger.scheduled);
    assert.equal(new Set(scheduled).size, 10);
    assert.equal(home.engine.traces(id, 'not_run').length, 0, 'nothing missed: each restart took no time');
    assert.ok(runs.every((r) => r.result === 'finished'));
  });
});

describe('time and sun conditions', () => {
  test('a window from 22:00 to 06:00 on Fridays holds at 01:00 on Saturday, not on Friday at 01:00', async (t) => {
    // Thursday 2025-01-09 13:00 in Berlin.
    const home = await startHome({ at: Date.UTC(2025, 0, 9, 12) });
    t.after(() => home.stop());
    const id = save(home, {
      triggers: [{ type: 'time', at: '01:00' }],
      conditions: [{ type: 'time', after: '22:00', before: '06:00', weekdays: ['fri'] }],
    });
    await pass(home, 2 * DAY);
    const all = home.engine.traces(id).reverse();
    assert.deepEqual(
      all.map((x) => x.result),
      ['not_run', 'finished'],
    );
    assert.match(all[0]?.conditions[0]?.detail ?? '', /on fri \(the window began on thu\)/);
    assert.match(all[1]?.conditions[0]?.detail ?? '', /on sat \(the window began on fri\)/);
  });

  test('"after sunset" holds after midnight until sunrise: it is read against the current night', async (t) => {
    // Wednesday 2025-01-08 in Berlin: sunset about 16:15, sunrise about 08:15.
    const home = await startHome({ at: Date.UTC(2025, 0, 8, 11) });
    t.after(() => home.stop());
    const id = save(home, {
      triggers: [
        { type: 'time', at: '01:00' },
        { type: 'time', at: '14:00' },
        { type: 'time', at: '20:00' },
      ],
      conditions: [{ type: 'sun', after: { event: 'sunset' } }],
    });
    await pass(home, DAY);
    const all = home.engine.traces(id).reverse();
    assert.deepEqual(
      all.map((x) => `${BERLIN.wall(Date.parse(x.trigger.scheduled as string)).hour}:${x.result}`),
      ['14:not_run', '20:finished', '1:finished'],
    );
  });
});
