/**
 * Retention: through days of hourly upkeep on the injected clock, raw values, 5-minute roll-ups,
 * hourly roll-ups and the logbook each go once past their own retention, in steps of at most 500
 * rows with the event loop turning between them; a removed device's entry goes with the last of
 * its history.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DAY, DOOR, HOUR, ok, startHistoryRig, TEMPERATURE } from '../helpers/history.ts';

const START = Date.UTC(2025, 0, 6);
const SERIES = 2 ** 20;

describe('retention', () => {
  it('prunes raw values, 5-minute and hourly roll-ups and the logbook each past its own days, in small steps', async () => {
    const rig = await startHistoryRig({
      start: START,
      settings: { raw_days: 1, five_minute_days: 2, hourly_days: 3, logbook_days: 2, batch_seconds: 60 },
    });
    const db = rig.gw.gateway.db;
    const oldest = (table: string) =>
      (db.prepare(`SELECT min(id) AS id FROM ${table}`).get() as { id: number | null }).id ?? Number.NaN;
    try {
      const sensors = Array.from({ length: 30 }, (_, i) => rig.add(`t${i}`, `Sensor ${i}`, TEMPERATURE));
      const door = rig.add('door', 'Door', DOOR);
      // Five days, a report every ten minutes: 120 hourly upkeeps.
      for (let m = 0; m < 5 * 24 * 6; m++) {
        rig.reportMany([
          ...sensors.map((s, i): [string, Record<string, unknown>] => [
            s,
            { temperature: { temperature: 15 + ((m + i) % 40) / 4 } },
          ]),
          [door, { contact: { contact: m % 2 === 0 } }],
        ]);
        await rig.advance(10 * 60_000, 10 * 60_000);
      }
      const now = rig.clock.now();
      assert.ok(Math.floor(oldest('history_raw') / SERIES) * HOUR >= now - DAY - HOUR, 'raw: one day');
      assert.ok(Math.floor(oldest('history_5min') / SERIES) * HOUR >= now - 2 * DAY - HOUR, '5 minutes: two days');
      assert.ok(Math.floor(oldest('history_hourly') / SERIES) * DAY >= now - 3 * DAY - DAY, 'hourly: three days');
      // Pruned at each hour's upkeep: at most an hour more than its days is held.
      assert.ok(Math.floor(oldest('history_events') / 1024) >= now - 2 * DAY - HOUR, 'logbook: two days');
      assert.ok(oldest('history_raw') > 0 && oldest('history_events') > 0, 'what is within its days is kept');
      const prunes = rig.steps.filter((s) => s.kind === 'prune');
      assert.ok(prunes.length > 120, 'pruning ran at every upkeep');
      assert.ok(prunes.every((s) => s.count <= 500));
      // The first day: roll-ups by the hour only (the hourly tier still has it).
      const first = rig.series(sensors[0], 'temperature', START + DAY + HOUR, START + DAY + 3 * HOUR, 1000);
      assert.equal(first.resolution, '1h');
      assert.equal(first.t.length, 2);
      const logbook = ok(rig.history.logbook({ serial_number: [door], limit: 1000 }));
      assert.ok(logbook.entries.every((e) => e.t >= now - 2 * DAY - HOUR));
    } finally {
      await rig.stop();
    }
  });

  it('deletes a backlog (a retention lowered from ten days to one) in many steps of at most 500 rows, the event loop turning between them', async () => {
    const rig = await startHistoryRig({ start: START, settings: { batch_seconds: 300 } });
    const db = rig.gw.gateway.db;
    const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    try {
      const sensors = Array.from({ length: 60 }, (_, i) => rig.add(`t${i}`, `Sensor ${i}`, TEMPERATURE));
      for (let m = 0; m < 3 * 24 * 4; m++) {
        rig.reportMany(sensors.map((s, i) => [s, { temperature: { temperature: 15 + ((m + i) % 40) / 4 } }]));
        await rig.advance(15 * 60_000, 15 * 60_000);
      }
      const before = count('history_raw');
      assert.ok(before >= 60 * 71, `${before} packed hours`);
      const stepsBefore = rig.steps.length;
      let turns = 0;
      let turning = true;
      const spin = () => {
        turns++;
        if (turning) setImmediate(spin);
      };
      setImmediate(spin);
      // The restart's first upkeep prunes the backlog.
      await rig.restart({ raw_days: 1 });
      turning = false;
      const pruned = rig.steps.slice(stepsBefore).filter((s) => s.kind === 'prune' && s.count > 0);
      assert.ok(pruned.length >= 5, `${pruned.length} steps`);
      assert.ok(pruned.every((s) => s.count <= 500));
      assert.equal(
        pruned.reduce((n, s) => n + s.count, 0),
        before - count('history_raw'),
      );
      assert.ok(turns >= pruned.length, `the event loop turned ${turns} times during ${pruned.length} steps`);
      assert.ok(count('history_raw') <= 60 * 25);
    } finally {
      await rig.stop();
    }
  });

  it("drops a removed device's entry once the last of its history is past its retention", async () => {
    const rig = await startHistoryRig({
      start: START,
      settings: { raw_days: 1, five_minute_days: 1, hourly_days: 2, logbook_days: 1, batch_seconds: 60 },
    });
    try {
      const gone = rig.add('gone', 'Gone', TEMPERATURE);
      rig.report(gone, { temperature: { temperature: 20 } });
      await rig.advance(HOUR);
      rig.registry.deviceLeft(gone);
      await rig.advance(2 * DAY, HOUR);
      assert.ok(
        rig.history.devices().some((d) => d.serial_number === gone),
        'kept within its retention',
      );
      await rig.advance(DAY, HOUR);
      assert.equal(
        rig.history.devices().some((d) => d.serial_number === gone),
        false,
      );
    } finally {
      await rig.stop();
    }
  });
});
