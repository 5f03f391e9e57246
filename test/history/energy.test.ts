/**
 * Energy per hour, day and month in the configured time zone: the days clocks change have 23 and
 * 25 hours, each hour its own bucket; months are local months; a zone half an hour off UTC starts
 * its hours on the half hour; a device with a meter is counted by its meter, one with power only by
 * its power over time. The clock moves an hour at a time, the upkeep rolling up each hour.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DAY, HOUR, iso, ok, PLUG, POWER_ONLY_PLUG, startHistoryRig } from '../helpers/history.ts';

const kw = (watts: number) => ({ 'toggle-electric-power': { '1': { electricPower: watts * 100 } } });
const meter = (kwh: number) => ({ 'power-consumption': { type: 'rlSummarize', rlSummarize: Math.round(kwh * 100) } });

/** A heater drawing `watts` from `start` for `ms` in a zone, the clock moved an hour at a time. */
async function heater(start: number, timeZone: string, watts: number, ms: number) {
  const rig = await startHistoryRig({ start, timeZone });
  const serial = rig.add('heater', 'Heater', POWER_ONLY_PLUG);
  rig.report(serial, kw(watts));
  await rig.advance(ms, HOUR);
  return { rig, serial };
}

describe('energy in local time', () => {
  it('gives the day clocks go forward in Berlin 23 hours, and each of its hours its own bucket', async () => {
    // 2025-03-29 00:00 in Berlin is 2025-03-28 23:00 UTC; clocks go from 02:00 to 03:00 on the 30th.
    const { rig, serial } = await heater(Date.UTC(2025, 2, 28, 23), 'Europe/Berlin', 1000, 3 * DAY);
    try {
      const days = ok(
        rig.history.energy({ from: '2025-03-29T00:00:00+01:00', to: '2025-04-01T00:00:00+02:00', period: 'day' }),
      );
      assert.equal(days.time_zone, 'Europe/Berlin');
      assert.deepEqual(
        days.buckets.map((b) => [b.start, b.kwh]),
        [
          ['2025-03-29T00:00:00+01:00', 24],
          ['2025-03-30T00:00:00+01:00', 23],
          ['2025-03-31T00:00:00+02:00', 24],
        ],
      );
      assert.equal(days.total_kwh, 71);
      assert.deepEqual(days.devices, [{ serial_number: serial, name: 'Heater', source: 'power', kwh: 71 }]);
      const hours = ok(
        rig.history.energy({ from: '2025-03-30T00:00:00+01:00', to: '2025-03-31T00:00:00+02:00', period: 'hour' }),
      );
      assert.equal(hours.buckets.length, 23);
      assert.deepEqual(
        hours.buckets.slice(0, 4).map((b) => [b.start, b.end, b.kwh]),
        [
          ['2025-03-30T00:00:00+01:00', '2025-03-30T01:00:00+01:00', 1],
          ['2025-03-30T01:00:00+01:00', '2025-03-30T03:00:00+02:00', 1],
          ['2025-03-30T03:00:00+02:00', '2025-03-30T04:00:00+02:00', 1],
          ['2025-03-30T04:00:00+02:00', '2025-03-30T05:00:00+02:00', 1],
        ],
      );
    } finally {
      await rig.stop();
    }
  });

  it('gives the day clocks go back in Berlin 25 hours, 02:00 twice', async () => {
    // To 2025-10-28 00:00 in Berlin (23:00 UTC).
    const { rig } = await heater(Date.UTC(2025, 9, 24, 22), 'Europe/Berlin', 2000, 3 * DAY + HOUR);
    try {
      const days = ok(
        rig.history.energy({ from: '2025-10-25T00:00:00+02:00', to: '2025-10-28T00:00:00+01:00', period: 'day' }),
      );
      assert.deepEqual(
        days.buckets.map((b) => [b.start, b.kwh]),
        [
          ['2025-10-25T00:00:00+02:00', 48],
          ['2025-10-26T00:00:00+02:00', 50],
          ['2025-10-27T00:00:00+01:00', 48],
        ],
      );
      const hours = ok(
        rig.history.energy({ from: '2025-10-26T00:00:00+02:00', to: '2025-10-27T00:00:00+01:00', period: 'hour' }),
      );
      assert.equal(hours.buckets.length, 25);
      assert.deepEqual(
        hours.buckets.slice(1, 5).map((b) => b.start),
        [
          '2025-10-26T01:00:00+02:00',
          '2025-10-26T02:00:00+02:00',
          '2025-10-26T02:00:00+01:00',
          '2025-10-26T03:00:00+01:00',
        ],
      );
      assert.ok(hours.buckets.every((b) => b.kwh === 2));
    } finally {
      await rig.stop();
    }
  });

  it("counts local months from a meter (its March ends at Berlin's midnight, after a 23-hour day), and New York's short day", async () => {
    // A meter installed on 2025-03-30 00:00 in Berlin (the day clocks go forward), rising 1 kWh an hour to 2025-04-03.
    const start = Date.UTC(2025, 2, 29, 23);
    const rig = await startHistoryRig({ start, timeZone: 'Europe/Berlin' });
    try {
      const plug = rig.add('plug', 'Plug', PLUG);
      const hours = Math.round((Date.UTC(2025, 3, 2, 22) - start) / HOUR);
      for (let h = 0; h <= hours; h++) {
        rig.report(plug, meter(h));
        await rig.advance(HOUR, HOUR);
      }
      const months = ok(
        rig.history.energy({
          serial_number: [plug],
          from: '2025-02-01T00:00:00+01:00',
          to: '2025-05-01T00:00:00+02:00',
          period: 'month',
        }),
      );
      assert.deepEqual(
        months.buckets.map((b) => [b.start, b.end, b.kwh]),
        [
          ['2025-02-01T00:00:00+01:00', '2025-03-01T00:00:00+01:00', null],
          ['2025-03-01T00:00:00+01:00', '2025-04-01T00:00:00+02:00', 47],
          ['2025-04-01T00:00:00+02:00', '2025-05-01T00:00:00+02:00', 48],
        ],
      );
      assert.equal(months.devices[0]?.source, 'meter');
    } finally {
      await rig.stop();
    }
    const { rig: ny } = await heater(Date.UTC(2025, 2, 8, 5), 'America/New_York', 1000, 3 * DAY);
    try {
      const days = ok(
        ny.history.energy({ from: '2025-03-08T00:00:00-05:00', to: '2025-03-11T00:00:00-04:00', period: 'day' }),
      );
      assert.deepEqual(
        days.buckets.map((b) => b.kwh),
        [24, 23, 24],
      );
    } finally {
      await ny.stop();
    }
  });

  it("starts a day whose midnight does not exist at the clocks' change (Santiago goes from 00:00 to 01:00)", async () => {
    // 2024-09-07 00:00 in Santiago (-04:00); on the 8th clocks jump from 00:00 to 01:00 (-03:00).
    const { rig } = await heater(Date.UTC(2024, 8, 7, 4), 'America/Santiago', 1000, 3 * DAY);
    try {
      const days = ok(
        rig.history.energy({ from: '2024-09-07T00:00:00-04:00', to: '2024-09-10T00:00:00-03:00', period: 'day' }),
      );
      assert.deepEqual(
        days.buckets.map((b) => [b.start, b.kwh]),
        [
          ['2024-09-07T00:00:00-04:00', 24],
          ['2024-09-08T01:00:00-03:00', 23],
          ['2024-09-09T00:00:00-03:00', 24],
        ],
      );
    } finally {
      await rig.stop();
    }
  });

  it('starts the hours of a zone half an hour off UTC on the half hour (Kolkata)', async () => {
    const { rig, serial } = await heater(Date.UTC(2025, 0, 6), 'Asia/Kolkata', 1000, DAY);
    try {
      rig.report(serial, kw(0));
      const hours = ok(
        rig.history.energy({ from: '2025-01-06T05:00:00+05:30', to: '2025-01-06T08:00:00+05:30', period: 'hour' }),
      );
      assert.deepEqual(
        hours.buckets.map((b) => [b.start, b.t, b.kwh]),
        [
          // The plug started at 05:30 local (00:00 UTC): half an hour in the first local hour.
          ['2025-01-06T05:00:00+05:30', Date.UTC(2025, 0, 5, 23, 30), 0.5],
          ['2025-01-06T06:00:00+05:30', Date.UTC(2025, 0, 6, 0, 30), 1],
          ['2025-01-06T07:00:00+05:30', Date.UTC(2025, 0, 6, 1, 30), 1],
        ],
      );
    } finally {
      await rig.stop();
    }
  });
});

describe('which devices count, and how', () => {
  it('counts a device with a meter by its meter, one with power only by its power; none before either existed', async () => {
    const start = Date.UTC(2025, 0, 6);
    const rig = await startHistoryRig({ start, timeZone: 'UTC' });
    try {
      const both = rig.add('both', 'Washer', PLUG);
      const power = rig.add('power', 'Lamp', POWER_ONLY_PLUG);
      await rig.advance(HOUR, HOUR);
      // The washer's power says 2 kW, its meter 0.5 kWh an hour: the meter counts.
      rig.report(both, { ...kw(2000), ...meter(10) });
      rig.report(power, kw(60));
      for (let h = 1; h <= 4; h++) {
        await rig.advance(HOUR, HOUR);
        rig.report(both, meter(10 + h / 2));
      }
      const r = ok(
        rig.history.energy({
          from: iso(start),
          to: iso(start + 5 * HOUR),
          period: 'hour',
        }),
      );
      assert.deepEqual(
        r.buckets.map((b) => b.kwh),
        [null, 0.56, 0.56, 0.56, 0.56],
      );
      assert.deepEqual(
        r.devices.map((d) => [d.name, d.source, d.kwh]),
        [
          ['Washer', 'meter', 2],
          ['Lamp', 'power', 0.24],
        ],
      );
      // The hour not rolled up yet is counted from memory, as the hours before it from the store.
      await rig.advance(30 * 60_000, 60_000);
      const open = ok(rig.history.energy({ serial_number: [power], from: iso(start + 5 * HOUR), period: 'hour' }));
      assert.deepEqual(
        open.buckets.map((b) => b.kwh),
        [0.03],
      );
    } finally {
      await rig.stop();
    }
  });
});
