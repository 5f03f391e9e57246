/**
 * Recording, on a real test gateway (its store, bus and registry; devices report through the
 * registry as drivers do) with the clock moved by hand: values read back as reported, written in
 * batches, rolled up each hour with the same answers as before, the logbook's entries, exclusions,
 * removal (keep or forget), a restart, and the switch that turns recording off.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUTTON, DOOR, HOUR, iso, ok, startHistoryRig, TEMPERATURE } from '../helpers/history.ts';

const START = Date.UTC(2025, 0, 6);

describe('recording numbers', () => {
  it('answers the values as they were reported when they are few, with the one standing before the range', async () => {
    const rig = await startHistoryRig({ start: START });
    try {
      const t = rig.add('t1', 'Bedroom', TEMPERATURE);
      for (let i = 0; i < 30; i++) {
        rig.report(t, { temperature: { temperature: 20 + i / 10 } });
        await rig.advance(10_000, 10_000);
      }
      const all = ok(rig.history.series({ serial_number: t, capability: 'temperature', from: iso(START) }));
      assert.equal(all.resolution, 'raw');
      assert.equal(all.unit, '°C');
      assert.deepEqual(
        all.value,
        Array.from({ length: 30 }, (_, i) => 20 + i / 10),
      );
      assert.deepEqual(
        all.t,
        Array.from({ length: 30 }, (_, i) => START + i * 10_000),
      );
      const later = ok(rig.history.series({ serial_number: t, capability: 'temperature', from: iso(START + 95_000) }));
      assert.deepEqual(later.before, { t: START + 90_000, value: 20.9 });
      assert.equal(later.value?.[0], 21);
    } finally {
      await rig.stop();
    }
  });

  it('writes values in batches: nothing before the batch interval, then one transaction for all of them', async () => {
    const rig = await startHistoryRig({ start: START });
    const batches = () => rig.gw.gateway.db.prepare('SELECT count(*) AS n FROM history_batches').get() as { n: number };
    try {
      const t = rig.add('t1', 'Bedroom', TEMPERATURE);
      const flushes = () => rig.steps.filter((s) => s.kind === 'flush');
      for (let i = 0; i < 4; i++) {
        rig.report(t, { temperature: { temperature: 20 + i } });
        await rig.advance(1000, 1000);
      }
      assert.equal(flushes().length, 0, 'no write within the batch interval');
      assert.equal(batches().n, 0);
      await rig.advance(1000, 1000);
      assert.equal(flushes().length, 1);
      assert.equal(flushes()[0]?.count, 5, "the four values and the device's `added` entry");
      assert.equal(batches().n, 1);
      // Idle: no timer, no write.
      await rig.advance(60_000);
      assert.equal(flushes().length, 1);
      rig.report(t, { temperature: { temperature: 30 } });
      await rig.advance(4999, 4999);
      assert.equal(flushes().length, 1);
      await rig.advance(1, 1);
      assert.equal(flushes().length, 2);
    } finally {
      await rig.stop();
    }
  });

  it('rolls up each ended hour (packed values, 5-minute and hourly roll-ups) and answers as before it did', async () => {
    const rig = await startHistoryRig({ start: START });
    const db = rig.gw.gateway.db;
    const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    try {
      const t = rig.add('t1', 'Bedroom', TEMPERATURE);
      // Every 10 s for two hours: the number of the 5-minute bucket (0..11 each hour), and 0.2 more every other report.
      for (let i = 0; i < 720; i++) {
        rig.report(t, { temperature: { temperature: Math.floor((i % 360) / 30) + (i % 2) * 0.2 } });
        await rig.advance(10_000, 10_000);
      }
      const q = {
        serial_number: t,
        capability: 'temperature',
        from: iso(START + HOUR),
        to: iso(START + 2 * HOUR),
        points: 12,
      };
      const fromMemory = ok(rig.history.series(q));
      assert.equal(fromMemory.resolution, '5m');
      assert.deepEqual(fromMemory.mean, [0.1, 1.1, 2.1, 3.1, 4.1, 5.1, 6.1, 7.1, 8.1, 9.1, 10.1, 11.1]);
      assert.deepEqual(fromMemory.min, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      assert.deepEqual(fromMemory.max, [0.2, 1.2, 2.2, 3.2, 4.2, 5.2, 6.2, 7.2, 8.2, 9.2, 10.2, 11.2]);
      assert.deepEqual(fromMemory.n, new Array(12).fill(30));
      assert.equal(count('history_raw'), 1, 'the first hour is packed');
      await rig.advance(2000, 1000);
      assert.equal(count('history_raw'), 2, 'the second hour is packed once it ended');
      assert.equal(count('history_5min'), 2);
      assert.equal(count('history_hourly'), 1, 'one row a day holds the hourly roll-ups');
      assert.equal(count('history_batches'), 0, 'the batches of rolled-up hours are deleted');
      assert.deepEqual(ok(rig.history.series(q)), fromMemory);
      const day = rig.series(t, 'temperature', START, START + 2 * HOUR, 2);
      assert.equal(day.resolution, '1h');
      assert.deepEqual(day.mean, [5.6, 5.6]);
      assert.deepEqual(day.min, [0, 0]);
      assert.deepEqual(day.max, [11.2, 11.2]);
      assert.deepEqual(day.n, [360, 360]);
      const raw = ok(rig.history.series({ ...q, points: 1000 }));
      assert.equal(raw.resolution, 'raw');
      assert.equal(raw.t.length, 360);
    } finally {
      await rig.stop();
    }
  });

  it('reads back after a restart the values not rolled up yet, ends them while it was off, and rolls up the hours it missed', async () => {
    const rig = await startHistoryRig({ start: START });
    try {
      const t = rig.add('t1', 'Bedroom', TEMPERATURE);
      for (let i = 0; i < 180; i++) {
        rig.report(t, { temperature: { temperature: 18 + (i % 50) / 10 } });
        await rig.advance(10_000, 10_000);
      }
      const q = { serial_number: t, capability: 'temperature', from: iso(START), points: 1000 };
      const before = ok(rig.history.series(q));
      const stoppedAt = rig.clock.now();
      await rig.history.stop();
      // The gateway is off for five hours: no value stood meanwhile.
      rig.clock.advance(5 * HOUR);
      await rig.restart();
      const after = ok(rig.history.series(q));
      assert.deepEqual(after.value, [...(before.value ?? []), null, 20.9]);
      assert.deepEqual(after.t.slice(-2), [stoppedAt, stoppedAt + 5 * HOUR]);
      assert.ok(rig.history.stats().compacted_until >= START + 5 * HOUR, 'the hours missed are rolled up');
      const hourly = ok(rig.history.series({ ...q, points: 6 }));
      assert.deepEqual(hourly.t, [START, START + 5 * HOUR], 'nothing while the gateway was off');
    } finally {
      await rig.stop();
    }
  });

  it('keeps a series in order when the clock is set back (a box without a real-time clock)', async () => {
    const rig = await startHistoryRig({ start: START });
    try {
      const t = rig.add('t1', 'Bedroom', TEMPERATURE);
      rig.report(t, { temperature: { temperature: 20 } });
      await rig.advance(60_000);
      rig.clock.advance(-30_000);
      rig.report(t, { temperature: { temperature: 21 } });
      const r = ok(rig.history.series({ serial_number: t, capability: 'temperature', from: iso(START) }));
      assert.deepEqual(r.value, [20, 21]);
      assert.ok((r.t[1] as number) >= (r.t[0] as number));
    } finally {
      await rig.stop();
    }
  });

  it('skips the hours a clock jumping days forward leaves behind (a box setting its time): no value stood over them', async () => {
    const rig = await startHistoryRig({ start: START });
    try {
      const t = rig.add('t1', 'Bedroom', TEMPERATURE);
      rig.report(t, { temperature: { temperature: 20 } });
      await rig.advance(2 * HOUR, HOUR);
      const before = rig.steps.length;
      rig.clock.advance(30 * 24 * HOUR);
      rig.report(t, { temperature: { temperature: 21 } });
      await rig.history.maintain();
      const rollups = rig.steps.slice(before).filter((s) => s.kind === 'rollup');
      assert.ok(rollups.length < 10, `${rollups.length} roll-up steps, not one an hour for 30 days`);
      const r = ok(rig.history.series({ serial_number: t, capability: 'temperature', from: iso(START), points: 10 }));
      assert.equal(r.resolution, '7d');
      assert.deepEqual(
        r.t,
        [START, START + 28 * 24 * HOUR],
        'the first hours and the week of the jump, nothing between',
      );
    } finally {
      await rig.stop();
    }
  });

  it('records nothing new when history.enabled is off; what is kept stays readable', async () => {
    const rig = await startHistoryRig({ start: START });
    try {
      const t = rig.add('t1', 'Bedroom', TEMPERATURE);
      rig.report(t, { temperature: { temperature: 20 } });
      await rig.restart({ enabled: false });
      rig.report(t, { temperature: { temperature: 25 } });
      await rig.advance(60_000);
      const r = ok(rig.history.series({ serial_number: t, capability: 'temperature', from: iso(START) }));
      assert.deepEqual(r.value, [20, null], 'the value ended when recording stopped');
      assert.equal(rig.steps.filter((s) => s.kind === 'flush').length, 1, 'only the write of the stop');
    } finally {
      await rig.stop();
    }
  });
});

describe('the logbook', () => {
  it('keeps state changes, presses, devices online and offline, renames, removals, security modes, alarms and automation runs, at once', async () => {
    const rig = await startHistoryRig({ start: START });
    try {
      const door = rig.add('door', 'Front door', DOOR, { contact: { contact: false } });
      const button = rig.add('button', 'Button', BUTTON);
      rig.report(door, { contact: { contact: true } });
      rig.report(door, { contact: { contact: true } });
      rig.report(button, { press: { press: 'singlePress' } });
      rig.report(button, { press: { press: 'singlePress' } });
      rig.registry.onlineChanged(door, false);
      rig.registry.onlineChanged(door, true);
      rig.registry.updateLocal(door, { userName: 'Back door' });
      rig.gw.gateway.security.enable(2);
      rig.gw.gateway.bus.publish('bridge#updateAlarmState', { payload: { alarm_state: 'alarming' } });
      const run = { automation_id: 'a1', run_id: 'r1', name: 'Hall light' };
      rig.gw.gateway.bus.publish('automation#runStarted', { payload: { ...run, trigger: 'motion' } });
      rig.gw.gateway.bus.publish('automation#runFinished', { payload: { ...run, result: 'finished', reason: null } });
      rig.gw.gateway.bus.publish('automation#runFinished', {
        payload: { ...run, result: 'failed', reason: 'the light did not answer' },
      });
      rig.gw.gateway.bus.publish('automation#notify', { payload: { ...run, message: 'Someone is home' } });
      rig.registry.deviceLeft(button);
      // Nothing written yet: the logbook has the entries of the batch under way.
      assert.equal(rig.steps.filter((s) => s.kind === 'flush').length, 0);
      const page = ok(rig.history.logbook({}));
      const seen = page.entries.map((e) => [e.kind, e.device_name, e.capability, e.value]).reverse();
      assert.deepEqual(seen, [
        ['added', 'Back door', null, 'Front door'],
        ['state', 'Back door', 'contact', false],
        ['added', 'Button', null, 'Button'],
        ['state', 'Back door', 'contact', true],
        ['press', 'Button', 'press', 'singlePress'],
        ['press', 'Button', 'press', 'singlePress'],
        ['online', 'Back door', null, false],
        ['online', 'Back door', null, true],
        ['renamed', 'Back door', null, { from: 'Front door', to: 'Back door' }],
        ['security', null, null, { arm_state: 'arming', sid: 2, name: 'away_mode' }],
        ['alarm', null, null, 'alarming'],
        ['automation', null, null, { automation_id: 'a1', name: 'Hall light', trigger: 'motion' }],
        [
          'automation',
          null,
          null,
          { automation_id: 'a1', name: 'Hall light', result: 'failed', reason: 'the light did not answer' },
        ],
        ['notify', null, null, { automation_id: 'a1', name: 'Hall light', message: 'Someone is home' }],
        ['removed', 'Button', null, 'Button'],
      ]);
      await rig.advance(5000, 5000);
      assert.deepEqual(ok(rig.history.logbook({})), page, 'the same once written');
      assert.equal(page.entries[0]?.time, '2025-01-06T00:00:00Z');
    } finally {
      await rig.stop();
    }
  });

  it('filters by device, kind, capability and time, and pages newest first with a cursor', async () => {
    const rig = await startHistoryRig({ start: START });
    try {
      const a = rig.add('a', 'Door A', DOOR);
      const b = rig.add('b', 'Door B', DOOR);
      for (let i = 0; i < 25; i++) {
        rig.report(a, { contact: { contact: i % 2 === 0 } });
        rig.report(b, { contact: { contact: i % 2 === 0 }, battery: { battery: 90 - i } });
        await rig.advance(60_000);
      }
      rig.registry.onlineChanged(b, false);
      const ids: string[] = [];
      let before: string | undefined;
      do {
        const page = ok(rig.history.logbook({ serial_number: [a], limit: 10, ...(before ? { before } : {}) }));
        assert.ok(page.entries.every((e) => e.serial_number === a));
        ids.push(...page.entries.map((e) => e.id));
        before = page.next ?? undefined;
      } while (before);
      assert.equal(ids.length, 26, 'added, then 25 changes');
      assert.deepEqual(
        [...ids].sort((x, y) => Number(y) - Number(x)),
        ids,
        'newest first, no entry twice',
      );
      assert.equal(new Set(ids).size, ids.length);
      const offline = ok(rig.history.logbook({ kind: ['online'] }));
      assert.deepEqual(
        offline.entries.map((e) => [e.serial_number, e.value]),
        [[b, false]],
      );
      const contacts = ok(rig.history.logbook({ serial_number: [b], capability: 'contact', limit: 1000 }));
      assert.equal(contacts.entries.length, 25, 'battery readings are numbers, not logbook entries');
      const window = ok(rig.history.logbook({ from: iso(START + 10 * 60_000), to: iso(START + 12 * 60_000) }));
      assert.deepEqual(
        window.entries.map((e) => [e.serial_number, e.t]),
        [
          [b, START + 11 * 60_000],
          [a, START + 11 * 60_000],
          [b, START + 10 * 60_000],
          [a, START + 10 * 60_000],
        ],
      );
      assert.deepEqual(ok(rig.history.logbook({ serial_number: ['no-such-device'] })).entries, []);
    } finally {
      await rig.stop();
    }
  });
});

describe('what is left out, and what a removal keeps', () => {
  it('leaves out a capability or a whole device, stored so that a restart keeps it, until it is recorded again', async () => {
    const rig = await startHistoryRig({ start: START });
    try {
      const t = rig.add('t1', 'Noisy', TEMPERATURE);
      ok(rig.history.exclude({ serial_number: t, capability: 'humidity' }));
      rig.report(t, { temperature: { temperature: 20 }, humidity: { humidity: 50 } });
      const from = iso(START);
      assert.ok(rig.history.series({ serial_number: t, capability: 'temperature', from }).ok);
      assert.deepEqual(rig.history.series({ serial_number: t, capability: 'humidity', from }), {
        ok: false,
        errors: ['capability: "humidity" has no history on this device'],
      });
      ok(rig.history.exclude({ serial_number: t }));
      await rig.restart();
      assert.deepEqual(rig.history.exclusions(), [
        { serial_number: t, capability: null },
        { serial_number: t, capability: 'humidity' },
      ]);
      rig.report(t, { temperature: { temperature: 21 } });
      rig.registry.onlineChanged(t, false);
      const r = ok(rig.history.series({ serial_number: t, capability: 'temperature', from }));
      assert.deepEqual(r.value, [20, null], 'its value ended when it was left out; nothing since');
      assert.equal(ok(rig.history.logbook({ kind: ['online'] })).entries.length, 0);
      rig.registry.onlineChanged(t, true);
      ok(rig.history.include({ serial_number: t }));
      assert.deepEqual(rig.history.exclusions(), []);
      rig.report(t, { temperature: { temperature: 22 }, humidity: { humidity: 55 } });
      assert.deepEqual(
        ok(rig.history.series({ serial_number: t, capability: 'temperature', from })).value,
        [20, null, 21, 22],
        'what it holds stands again once it is recorded again',
      );
      assert.deepEqual(ok(rig.history.series({ serial_number: t, capability: 'humidity', from })).value, [50, 55]);
      assert.deepEqual(rig.history.exclude({ serial_number: 'nope', capability: 'colour' }), {
        ok: false,
        errors: ['serial_number: "nope" is not a device', 'capability: "colour" is not a capability'],
      });
    } finally {
      await rig.stop();
    }
  });

  it("keeps a removed device's history (marked removed) until the user deletes it; a device added again starts anew", async () => {
    const rig = await startHistoryRig({ start: START });
    const db = rig.gw.gateway.db;
    const rows = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n;
    try {
      const t = rig.add('t1', 'Bedroom', TEMPERATURE);
      const keep = rig.add('t2', 'Kitchen', TEMPERATURE);
      for (let i = 0; i < 400; i++) {
        rig.report(t, { temperature: { temperature: 20 + (i % 7) }, battery: { battery: 100 - (i % 3) } });
        rig.report(keep, { temperature: { temperature: 10 + (i % 5) } });
        await rig.advance(20_000, 20_000);
      }
      rig.registry.deviceLeft(t);
      await rig.advance(5000);
      const from = iso(START);
      const removed = rig.history.devices().find((d) => d.serial_number === t);
      assert.equal(removed?.removed_at, START + 400 * 20_000);
      assert.deepEqual(
        removed?.series.map((s) => s.capability),
        ['temperature', 'battery'],
      );
      assert.ok(rig.history.series({ serial_number: t, capability: 'temperature', from }).ok, 'kept');
      const before = ok(rig.history.series({ serial_number: keep, capability: 'temperature', from, points: 10_000 }));
      const id = rows('SELECT id AS n FROM history_devices WHERE serial_number = ?', t);
      assert.ok(rows('SELECT count(*) AS n FROM history_raw') > 0);
      ok(await rig.history.forget({ serial_number: t }));
      assert.equal(
        rig.history.devices().find((d) => d.serial_number === t),
        undefined,
      );
      assert.deepEqual(rig.history.series({ serial_number: t, capability: 'temperature', from }), {
        ok: false,
        errors: [`serial_number: "${t}" has no history`],
      });
      assert.equal(rows('SELECT count(*) AS n FROM history_events WHERE device = ?', id), 0);
      assert.equal(rows('SELECT count(*) AS n FROM history_series WHERE device = ?', id), 0);
      const left = db.prepare('SELECT id FROM history_raw').all() as { id: number }[];
      assert.ok(
        left.length > 0 &&
          left.every(
            (r) =>
              r.id % 2 ** 20 ===
              rows(
                'SELECT s.id AS n FROM history_series s JOIN history_devices d ON d.id = s.device WHERE d.serial_number = ?',
                keep,
              ),
          ),
      );
      assert.deepEqual(
        ok(rig.history.series({ serial_number: keep, capability: 'temperature', from, points: 10_000 })),
        before,
        'the other device untouched',
      );
      assert.deepEqual(await rig.history.forget({ serial_number: t }), {
        ok: false,
        errors: [`serial_number: "${t}" has no history`],
      });
      const again = rig.add('t1', 'Bedroom', TEMPERATURE);
      assert.equal(again, t, 'the same serial number');
      rig.report(t, { temperature: { temperature: 30 } });
      assert.deepEqual(ok(rig.history.series({ serial_number: t, capability: 'temperature', from })).value, [30]);
    } finally {
      await rig.stop();
    }
  });
});
