/**
 * Damaged history records (a crafted backup, a damaged disk) never fail a chart's query or the
 * gateway's start: a record cut short gives the values that were whole before the cut, bytes that
 * are no record give none, and the rest of the history answers as before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  decodeAmounts,
  decodeBatch,
  decodeBuckets,
  decodeSamples,
  encodeAmounts,
  encodeBatch,
  encodeSamples,
  sampleCount,
} from '../../src/history/codec.ts';
import { DAY, type HistoryRig, HOUR, iso, ok, PLUG, startHistoryRig, TEMPERATURE } from '../helpers/history.ts';

const ORIGIN = Date.UTC(2025, 0, 6);
const bytes = fc.uint8Array({ maxLength: 300 });
const values = fc.array(
  fc.record({
    dt: fc.integer({ min: 0, max: 600_000 }),
    v: fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true })),
  }),
  { minLength: 1, maxLength: 40 },
);

describe('a damaged history record', () => {
  it('cut anywhere gives the samples before the cut, each with its value', () => {
    fc.assert(
      fc.property(values, fc.nat(), (xs, at) => {
        let t = ORIGIN;
        const whole = { t: xs.map((x) => (t += x.dt)), v: xs.map((x) => x.v) };
        const buf = encodeSamples(whole, ORIGIN);
        const cut = decodeSamples(buf.subarray(0, at % (buf.length + 1)), ORIGIN);
        assert.equal(cut.t.length, cut.v.length);
        const full = decodeSamples(buf, ORIGIN);
        assert.deepEqual(cut.t, full.t.slice(0, cut.t.length));
        assert.deepEqual(cut.v, full.v.slice(0, cut.v.length));
      }),
      { numRuns: 300 },
    );
  });

  it('cut anywhere in a batch gives the values before the cut, each with its series and time', () => {
    fc.assert(
      fc.property(values, fc.nat(), (xs, at) => {
        let t = ORIGIN;
        const batch = { s: xs.map((_, i) => i % 5), t: xs.map((x) => (t += x.dt)), v: xs.map((x) => x.v) };
        const buf = encodeBatch(batch, ORIGIN);
        const cut = decodeBatch(buf.subarray(0, at % (buf.length + 1)), ORIGIN, { s: [], t: [], v: [] });
        assert.equal(cut.s.length, cut.v.length);
        assert.equal(cut.t.length, cut.v.length);
        assert.deepEqual(cut.t, batch.t.slice(0, cut.t.length));
        assert.deepEqual(cut.s, batch.s.slice(0, cut.s.length));
      }),
      { numRuns: 300 },
    );
  });

  it('made of any bytes is read without an exception, its times finite', () => {
    fc.assert(
      fc.property(bytes, (buf) => {
        const samples = decodeSamples(buf, ORIGIN);
        assert.equal(samples.t.length, samples.v.length);
        assert.ok(samples.t.every(Number.isFinite));
        const batch = decodeBatch(buf, ORIGIN, { s: [], t: [], v: [] });
        assert.ok(batch.t.every(Number.isFinite));
        assert.equal(batch.s.length, batch.v.length);
        assert.equal(decodeBuckets(buf, 12).length, 12);
        assert.equal(decodeBuckets(buf, 24).length, 24);
        const amounts = decodeAmounts(buf, 96);
        assert.equal(amounts.length, 96);
        assert.ok(amounts.every((a) => a === undefined || Number.isFinite(a)));
        assert.ok(Number.isFinite(sampleCount(buf)));
      }),
      { numRuns: 1000 },
    );
  });

  it('of energy cut short keeps the quarters before the cut', () => {
    const quarters = Array.from({ length: 96 }, (_, i) => (i % 3 === 0 ? undefined : i * 1.5));
    const buf = encodeAmounts(quarters);
    const cut = decodeAmounts(buf.subarray(0, buf.length - 10), 96);
    const kept = cut.findIndex((a, i) => a !== quarters[i]);
    assert.ok(kept > 40, `quarters kept up to ${kept}`);
    assert.ok(cut.slice(kept).every((a) => a === undefined));
  });
});

describe('a gateway whose stored history was damaged', () => {
  let rig: HistoryRig;
  let sensor: string;
  let plug: string;
  const start = Date.UTC(2025, 5, 2);

  before(async () => {
    rig = await startHistoryRig({ start, settings: { batch_seconds: 5 } });
    sensor = rig.add('t', 'Cellar', TEMPERATURE);
    plug = rig.add('p', 'Heater', PLUG);
    // Two days, an hour at a time: raw values, 5-minute and hourly roll-ups and energy in the store.
    for (let h = 0; h < 48; h++) {
      rig.report(sensor, { temperature: { temperature: 10 + (h % 12) } });
      rig.report(plug, { 'toggle-electric-power': { '1': { electricPower: 100_000 } } });
      await rig.advance(HOUR, HOUR / 4);
    }
    // The last batch still waiting for its roll-up: replayed at the next start.
    rig.report(sensor, { temperature: { temperature: 30 } });
    await rig.advance(10_000, 10_000);
  });

  after(async () => {
    await rig.stop();
  });

  it('starts and answers every chart, energy and the logbook, with what was not damaged', async () => {
    const db = rig.gw.gateway.db;
    const tables = ['history_raw', 'history_5min', 'history_hourly', 'history_energy', 'history_batches'];
    for (const table of tables) {
      const rows = db.prepare(`SELECT id, data FROM ${table}`).all() as { id: number; data: Buffer }[];
      assert.ok(rows.length > 0, `${table} has rows to damage`);
      const damage = db.prepare(`UPDATE ${table} SET data = ? WHERE id = ?`);
      // Every other row cut in half, the others replaced by bytes that are no record.
      for (const [i, r] of rows.entries())
        damage.run(i % 2 === 0 ? r.data.subarray(0, Math.floor(r.data.length / 2)) : Buffer.alloc(40, 0xff), r.id);
    }
    await rig.restart();
    const now = rig.clock.now();
    for (const span of [DAY, 7 * DAY, 365 * DAY]) {
      const a = rig.series(sensor, 'temperature', now - span, now, 200);
      assert.ok(a.t.every(Number.isFinite), `times of the ${span / DAY} d chart`);
    }
    const energy = ok(rig.history.energy({ from: iso(start), to: iso(now), period: 'day' }));
    assert.ok(Number.isFinite(energy.total_kwh));
    ok(rig.history.logbook({ serial_number: [plug], limit: 100 }));
    // New values are recorded and read back as before.
    rig.report(sensor, { temperature: { temperature: 31 } });
    await rig.advance(10_000, 10_000);
    const after = rig.series(sensor, 'temperature', now, rig.clock.now() + 1, 200);
    assert.ok((after.value ?? after.max ?? []).includes(31), 'a new value is recorded and read back');
  });
});
