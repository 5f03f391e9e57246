/**
 * The arithmetic of the history: how roll-ups read a step signal (a value stands until the next
 * one; a gap ends it), how buckets merge, how power and a meter's counter
 * become energy, and the byte formats keeping every value exactly.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  decodeAmounts,
  decodeBatch,
  decodeBuckets,
  decodeSamples,
  encodeAmounts,
  encodeBatch,
  encodeBuckets,
  encodeSamples,
  type Samples,
} from '../../src/history/codec.ts';
import { counterRises, mergeBuckets, powerAmounts, rollUp } from '../../src/history/rollup.ts';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

const samples = (pairs: [number, number][]): Samples => ({ t: pairs.map((p) => p[0]), v: pairs.map((p) => p[1]) });

describe('roll-ups of a step signal', () => {
  it("weights a bucket's mean by how long each value stood, and counts the reports in it", () => {
    // 10 for 1 minute, 20 for 3 minutes, 30 for the last minute.
    const [b] = rollUp(
      samples([
        [0, 10],
        [1 * MIN, 20],
        [4 * MIN, 30],
      ]),
      undefined,
      0,
      5 * MIN,
      1,
    );
    assert.deepEqual(b, { n: 3, cov: 5 * MIN, min: 10, max: 30, mean: 20 });
  });

  it('counts a value carried in from before the bucket in its min, max and mean, not in its reports', () => {
    const [b] = rollUp(samples([[2 * MIN, 15]]), { t: -100 * S, v: 5 }, 0, 5 * MIN, 1);
    assert.deepEqual(b, { n: 1, cov: 5 * MIN, min: 5, max: 15, mean: (5 * 2 + 15 * 3) / 5 });
  });

  it('lets a value stand until the next one, however long (the registry passes on changes only)', () => {
    const hours = rollUp(samples([[0, 10]]), undefined, 0, H, 3);
    assert.deepEqual(
      hours.map((b) => [b?.n, b?.cov, b?.mean]),
      [
        [1, H, 10],
        [0, H, 10],
        [0, H, 10],
      ],
    );
  });

  it('ends a value at a gap (the device went offline) until the next report', () => {
    const [b, c, d] = rollUp(
      samples([
        [0, 10],
        [2 * MIN, Number.NaN],
        [12 * MIN, 40],
      ]),
      undefined,
      0,
      5 * MIN,
      3,
    );
    assert.deepEqual(b, { n: 1, cov: 2 * MIN, min: 10, max: 10, mean: 10 });
    assert.equal(c, undefined);
    assert.deepEqual(d, { n: 1, cov: 3 * MIN, min: 40, max: 40, mean: 40 });
  });

  it('gives a bucket whose value never stood (two reports at one instant) the mean of its reports', () => {
    const [b] = rollUp(
      samples([
        [MIN, 1],
        [MIN, 3],
        [MIN, Number.NaN],
      ]),
      undefined,
      0,
      5 * MIN,
      1,
    );
    assert.deepEqual(b, { n: 2, cov: 0, min: 1, max: 3, mean: 2 });
  });

  it('stops at `until` for a window still open (no value is made up for the future)', () => {
    const [b, c] = rollUp(samples([[0, 10]]), undefined, 0, 5 * MIN, 2, 7 * MIN);
    assert.equal(b?.cov, 5 * MIN);
    assert.equal(c?.cov, 2 * MIN);
  });

  it('merges buckets by covered time', () => {
    const m = mergeBuckets([
      { n: 1, cov: MIN, min: 10, max: 10, mean: 10 },
      undefined,
      { n: 2, cov: 4 * MIN, min: 15, max: 25, mean: 20 },
    ]);
    assert.deepEqual(m, { n: 3, cov: 5 * MIN, min: 10, max: 25, mean: 18 });
    assert.equal(mergeBuckets([undefined, undefined]), undefined);
  });

  it('gives an hourly roll-up equal to its twelve 5-minute ones merged, whatever the reports', () => {
    const report = fc.tuple(
      fc.integer({ min: 0, max: H - 1 }),
      fc.oneof(fc.double({ min: -1e4, max: 1e4, noNaN: true }), fc.constant(Number.NaN)),
    );
    fc.assert(
      fc.property(
        fc.array(report, { maxLength: 60 }),
        fc.option(fc.double({ min: -50, max: 50, noNaN: true })),
        (list, carried) => {
          const s = samples([...list].sort((a, b) => a[0] - b[0]));
          const carry = carried === null ? undefined : { t: -10 * MIN, v: carried };
          const hour = rollUp(s, carry, 0, H, 1)[0];
          const merged = mergeBuckets(rollUp(s, carry, 0, 5 * MIN, 12));
          if (!hour || !merged) return assert.equal(hour, merged);
          assert.equal(merged.n, hour.n);
          assert.equal(merged.cov, hour.cov);
          assert.equal(merged.min, hour.min);
          assert.equal(merged.max, hour.max);
          assert.ok(
            Math.abs(merged.mean - hour.mean) <= 1e-9 * Math.max(1, Math.abs(hour.mean)),
            `${merged.mean} ${hour.mean}`,
          );
        },
      ),
    );
  });
});

describe('energy', () => {
  it('integrates power over time: 1 kW for half an hour is 500 Wh, spread over the quarters it stood', () => {
    // Power in 0.01 W, as toggle-electric-power reports it.
    const q = powerAmounts(
      samples([
        [0, 100_000],
        [30 * MIN, 0],
      ]),
      undefined,
      0,
      15 * MIN,
      4,
      0.01,
    );
    assert.deepEqual(q, [250, 250, 0, 0]);
  });

  it("spreads a meter's rise evenly over the time between two readings, wherever that falls", () => {
    // 0.01 kWh counter: 1.00 kWh at -30 min, 1.10 kWh at 15 min, 1.20 kWh at 45 min.
    const q = counterRises(
      samples([
        [15 * MIN, 110],
        [45 * MIN, 120],
      ]),
      { t: -30 * MIN, v: 100 },
      10,
    );
    const third = 100 / 3;
    assert.deepEqual(
      [...q],
      [
        [-30 * MIN, third],
        [-15 * MIN, third],
        [0, third],
        [15 * MIN, 50],
        [30 * MIN, 50],
      ],
    );
  });

  it('takes a counter that went down as reset: the new reading is what was used since', () => {
    const q = counterRises(
      samples([
        [0, 200],
        [15 * MIN, 210],
        [30 * MIN, 5],
      ]),
      undefined,
      10,
    );
    assert.deepEqual(
      [...q],
      [
        [0, 100],
        [15 * MIN, 50],
      ],
    );
  });

  it('goes on counting across a gap (an offline meter keeps its count)', () => {
    const q = counterRises(
      samples([
        [0, 100],
        [5 * MIN, Number.NaN],
        [15 * MIN, 103],
      ]),
      undefined,
      10,
    );
    assert.deepEqual([...q], [[0, 30]]);
  });
});

describe('the byte formats', () => {
  const value = fc.oneof(
    fc.integer({ min: -1e6, max: 1e6 }).map((n) => n / 100),
    fc.integer({ min: -1e9, max: 1e9 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constant(Number.NaN),
  );

  it('keep every sample exactly: times, values and gaps', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 10 * H }), value), { maxLength: 200 }), (list) => {
        const s = samples([...list].sort((a, b) => a[0] - b[0]));
        const back = decodeSamples(encodeSamples(s, 5000), 5000);
        assert.deepEqual(back.t, s.t);
        assert.deepEqual(
          back.v.map((v) => (Number.isNaN(v) ? 'gap' : Object.is(v, -0) ? 0 : v)),
          s.v.map((v) => (Number.isNaN(v) ? 'gap' : Object.is(v, -0) ? 0 : v)),
        );
      }),
    );
  });

  it('keep batches exactly (series, time and value of each, in arrival order)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 2 ** 20 - 1 }), fc.integer({ min: 0, max: 10 * H }), value), {
          maxLength: 100,
        }),
        (list) => {
          const b = { s: list.map((x) => x[0]), t: list.map((x) => x[1]), v: list.map((x) => x[2]) };
          const back = decodeBatch(encodeBatch(b, 1000), 1000, { s: [], t: [], v: [] });
          assert.deepEqual(back.s, b.s);
          assert.deepEqual(back.t, b.t);
          assert.deepEqual(
            back.v.map(String),
            b.v.map((v) => String(Object.is(v, -0) ? 0 : v)),
          );
        },
      ),
    );
  });

  it('keep min and max exactly and the mean to two more decimals than the values have', () => {
    const bucket = fc
      .tuple(
        fc.integer({ min: -100_000, max: 100_000 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.nat(1000),
        fc.nat(300),
      )
      .map(([lo, span, at, n, cov]) => ({
        n,
        cov: cov * 1000,
        min: lo / 10,
        max: (lo + span) / 10,
        mean: (lo + span * at) / 10,
      }));
    fc.assert(
      fc.property(fc.array(fc.option(bucket), { minLength: 12, maxLength: 12 }), (list) => {
        const slots = list.map((b) => b ?? undefined);
        const back = decodeBuckets(encodeBuckets(slots, 12), 12);
        slots.forEach((b, i) => {
          const r = back[i];
          if (!b) {
            assert.equal(r, undefined);
            return;
          }
          assert.ok(r);
          assert.equal(r.n, b.n);
          assert.equal(r.cov, b.cov);
          assert.equal(r.min, b.min);
          assert.equal(r.max, b.max);
          assert.ok(Math.abs(r.mean - b.mean) <= 0.0005 + 1e-9, `${r.mean} ${b.mean}`);
        });
      }),
    );
  });

  it('keep energy to the mWh', () => {
    const amounts = [1.2344, undefined, 0, 250, undefined, 0.0005];
    assert.deepEqual(decodeAmounts(encodeAmounts(amounts), 6), [1.234, undefined, 0, 250, undefined, 0.001]);
  });

  it('take about two bytes a value for a sensor reporting every 10 s with one or two decimals', () => {
    const s: Samples = { t: [], v: [] };
    for (let i = 0; i < 360; i++) {
      s.t.push(i * 10 * S);
      s.v.push(Math.round((21 + Math.sin(i / 30) + ((i * 37) % 7) / 100) * 100) / 100);
    }
    const bytes = encodeSamples(s, 0).length;
    assert.ok(bytes / 360 <= 2.5, `${bytes / 360} bytes a value`);
  });
});
