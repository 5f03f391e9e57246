/**
 * Time, computed on the gateway: sunrise and sunset against published almanac times, and the
 * documented DST rule for a time of day (a time in a spring-forward gap happens at the change; a
 * time in a fall-back overlap happens once, at the first of the two) in three zones, one of them
 * in the southern hemisphere.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nextOccurrence } from '../../src/automations/schedule.ts';
import { sunTime } from '../../src/automations/sun.ts';
import { type LocalDate, parseTimeOfDay, Zone } from '../../src/automations/zone.ts';

const hm = (zone: Zone, t: number | null) => {
  assert.notEqual(t, null);
  const w = zone.wall(t as number);
  return w.hour * 60 + w.minute + w.second / 60;
};
const minutes = (text: string) => (parseTimeOfDay(text) as number) / 60;

// Published rise and set times, in local clock time. Decorah, Iowa (43.30 N, 91.79 W) for
// September 2020: a U.S. Naval Observatory table as Luther College publishes it. Sydney and
// Berlin: the times on the first of the month that whattime.city publishes. Berlin on the 2022
// solstice: the sunrise n-tv published. Each within 2 minutes (the tables round to the minute and
// do not all use the same coordinates).
const PUBLISHED: [string, string, number, number, LocalDate, 'sunrise' | 'sunset', string][] = [
  ['Decorah', 'America/Chicago', 43.3034, -91.7857, { year: 2020, month: 9, day: 1 }, 'sunrise', '06:32'],
  ['Decorah', 'America/Chicago', 43.3034, -91.7857, { year: 2020, month: 9, day: 1 }, 'sunset', '19:41'],
  ['Decorah', 'America/Chicago', 43.3034, -91.7857, { year: 2020, month: 9, day: 21 }, 'sunrise', '06:54'],
  ['Decorah', 'America/Chicago', 43.3034, -91.7857, { year: 2020, month: 9, day: 21 }, 'sunset', '19:05'],
  ['Decorah', 'America/Chicago', 43.3034, -91.7857, { year: 2020, month: 9, day: 30 }, 'sunrise', '07:04'],
  ['Decorah', 'America/Chicago', 43.3034, -91.7857, { year: 2020, month: 9, day: 30 }, 'sunset', '18:49'],
  ['Sydney', 'Australia/Sydney', -33.87, 151.21, { year: 2025, month: 1, day: 1 }, 'sunrise', '05:48'],
  ['Sydney', 'Australia/Sydney', -33.87, 151.21, { year: 2025, month: 1, day: 1 }, 'sunset', '20:10'],
  ['Sydney', 'Australia/Sydney', -33.87, 151.21, { year: 2025, month: 6, day: 1 }, 'sunrise', '06:52'],
  ['Sydney', 'Australia/Sydney', -33.87, 151.21, { year: 2025, month: 6, day: 1 }, 'sunset', '16:55'],
  ['Sydney', 'Australia/Sydney', -33.87, 151.21, { year: 2025, month: 12, day: 1 }, 'sunrise', '05:38'],
  ['Sydney', 'Australia/Sydney', -33.87, 151.21, { year: 2025, month: 12, day: 1 }, 'sunset', '19:51'],
  ['Berlin', 'Europe/Berlin', 52.52, 13.405, { year: 2025, month: 1, day: 1 }, 'sunrise', '08:18'],
  ['Berlin', 'Europe/Berlin', 52.52, 13.405, { year: 2025, month: 1, day: 1 }, 'sunset', '16:03'],
  ['Berlin', 'Europe/Berlin', 52.52, 13.405, { year: 2022, month: 6, day: 21 }, 'sunrise', '04:44'],
];

describe('sunrise and sunset', () => {
  for (const [place, zoneName, latitude, longitude, date, event, published] of PUBLISHED) {
    test(`${event} in ${place} on ${date.year}-${date.month}-${date.day} is within 2 minutes of the published ${published}`, () => {
      const zone = new Zone(zoneName);
      const t = sunTime(event, date, { latitude, longitude });
      assert.ok(Math.abs(hm(zone, t) - minutes(published)) <= 2, `${hm(zone, t)} vs ${minutes(published)}`);
      assert.deepEqual(zone.date(t as number), date, 'on that local date');
    });
  }

  test('above the polar circle there is no sunset at midsummer and no sunrise at midwinter', () => {
    const svalbard = { latitude: 78.22, longitude: 15.65 };
    assert.equal(sunTime('sunset', { year: 2025, month: 6, day: 21 }, svalbard), null);
    assert.equal(sunTime('sunrise', { year: 2025, month: 12, day: 21 }, svalbard), null);
  });
});

/** Zones, their spring-forward and fall-back days, and the hour that is skipped or repeated. */
const DST: { zone: string; spring: LocalDate; fall: LocalDate; gap: string; after: string; overlap: string }[] = [
  {
    zone: 'Europe/Berlin',
    spring: { year: 2025, month: 3, day: 30 },
    fall: { year: 2025, month: 10, day: 26 },
    gap: '02:30',
    after: '03:00',
    overlap: '02:30',
  },
  {
    zone: 'America/New_York',
    spring: { year: 2025, month: 3, day: 9 },
    fall: { year: 2025, month: 11, day: 2 },
    gap: '02:30',
    after: '03:00',
    overlap: '01:30',
  },
  {
    zone: 'Australia/Sydney',
    spring: { year: 2025, month: 10, day: 5 },
    fall: { year: 2025, month: 4, day: 6 },
    gap: '02:30',
    after: '03:00',
    overlap: '02:30',
  },
];

describe('a time of day on the days clocks change', () => {
  for (const d of DST) {
    const zone = new Zone(d.zone);
    test(`${d.zone}: ${d.gap} on the spring-forward day (${d.spring.month}/${d.spring.day}) happens at ${d.after}, the change`, () => {
      const r = zone.instant(d.spring, parseTimeOfDay(d.gap) as number);
      assert.equal(r.resolution, 'gap');
      assert.equal(hm(zone, r.at), minutes(d.after));
      assert.equal(zone.offset(r.at) - zone.offset(r.at - 1000), 3600_000, 'the first instant of the new offset');
    });

    test(`${d.zone}: ${d.overlap} on the fall-back day (${d.fall.month}/${d.fall.day}) happens once, at the first of the two`, () => {
      const r = zone.instant(d.fall, parseTimeOfDay(d.overlap) as number);
      assert.equal(r.resolution, 'overlap');
      assert.equal(hm(zone, r.at), minutes(d.overlap));
      assert.equal(hm(zone, r.at + 3600_000), minutes(d.overlap), 'the same wall time an hour later: the second fold');
      assert.ok(zone.offset(r.at) > zone.offset(r.at + 3600_000), 'the first fold is still on summer time');
    });

    test(`${d.zone}: a daily ${d.gap} and a daily ${d.overlap} trigger run exactly once on every day of the year`, () => {
      for (const at of new Set([d.gap, d.overlap])) {
        const trigger = { type: 'time' as const, at };
        let t = Date.UTC(2025, 0, 1);
        const days = new Map<string, number>();
        for (
          let o = nextOccurrence(trigger, t, zone, null);
          o && o.at < Date.UTC(2026, 0, 1);
          o = nextOccurrence(trigger, t, zone, null)
        ) {
          const w = zone.date(o.at);
          const k = `${w.year}-${w.month}-${w.day}`;
          days.set(k, (days.get(k) ?? 0) + 1);
          t = o.at;
        }
        assert.equal(days.size, 365, `${at}: one day each`);
        assert.ok(
          [...days.values()].every((n) => n === 1),
          `${at}: once a day`,
        );
      }
    });
  }

  test('weekdays pick the days of the wall clock in the zone, not of UTC', () => {
    const auckland = new Zone('Pacific/Auckland');
    // 07:00 Monday in Auckland is Sunday 18:00 UTC.
    const o = nextOccurrence({ type: 'time', at: '07:00', weekdays: ['mon'] }, Date.UTC(2025, 0, 1), auckland, null);
    assert.equal(new Date(o?.at as number).toISOString(), '2025-01-05T18:00:00.000Z');
  });
});
