/**
 * The byte formats of recorded values, chosen for an SD card: a value a sensor reports with one
 * decimal (21.5) is kept as the integer 215 and written as its difference from the value before
 * (a byte or two), its time as the milliseconds since the one before (two bytes for a report every
 * few seconds). A value with more than six decimals, or too large for that, is kept as a float64.
 * Three shapes: samples (raw values of one series for one hour), buckets (roll-ups: min, mean,
 * max, samples and covered time per slot), and amounts (energy per quarter hour).
 */

/** Decimals at most; a format byte of FLOAT means float64 values. */
const MAX_DECIMALS = 6;
const FLOAT = 7;
/** Integers kept below this so that sums and scaled means stay exact in a double. */
const SAFE = 2 ** 50;
const POW = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8];

/** A growing byte buffer. */
export class ByteWriter {
  private buf = new Uint8Array(64);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.length++] = b;
  }

  /** An unsigned integer below 2^53, seven bits a byte. */
  varint(n: number): void {
    this.room(8);
    while (n >= 0x80) {
      this.buf[this.length++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.length++] = n;
  }

  /** A signed integer: small magnitudes of either sign take few bytes. */
  zigzag(n: number): void {
    this.varint(n >= 0 ? n * 2 : -n * 2 - 1);
  }

  f64(x: number): void {
    this.room(8);
    this.view.setFloat64(this.length, x, true);
    this.length += 8;
  }

  /** A copy of what was written (better-sqlite3 binds Buffers as BLOBs). */
  toBuffer(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.length));
  }
}

/** Reads what a ByteWriter wrote; throws on a truncated buffer. */
export class ByteReader {
  pos = 0;
  private readonly view: DataView;

  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  byte(): number {
    if (this.pos >= this.buf.length) throw new RangeError('truncated history record');
    return this.buf[this.pos++] as number;
  }

  varint(): number {
    let n = 0;
    let mul = 1;
    for (;;) {
      const b = this.byte();
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 0x80;
    }
  }

  zigzag(): number {
    const z = this.varint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  f64(): number {
    if (this.pos + 8 > this.buf.length) throw new RangeError('truncated history record');
    const x = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return x;
  }
}

/** Smallest number of decimals (0..6) that keeps each value exactly as an integer; FLOAT when none does. */
export function decimalsOf(values: readonly number[], extra = 0): number {
  let d = 0;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    while (d <= MAX_DECIMALS && !exactAt(v, d, extra)) d++;
    if (d > MAX_DECIMALS) return FLOAT;
  }
  return d;
}

function exactAt(v: number, d: number, extra: number): boolean {
  const p = POW[d] as number;
  const r = Math.round(v * p);
  return r / p === v && Math.abs(v) * (POW[d + extra] as number) < SAFE;
}

/** Samples of one series: times (epoch ms, ascending) and values; NaN marks a gap (the device went offline). */
export interface Samples {
  t: number[];
  v: number[];
}

/** Samples as bytes: times as the change of the interval between them (the first from `origin`), values as differences. */
export function encodeSamples(s: Samples, origin: number): Buffer {
  const w = new ByteWriter();
  const d = decimalsOf(s.v);
  w.byte(d);
  w.varint(s.t.length);
  const p = POW[d] ?? 1;
  let prevT = origin;
  let prevDt = 0;
  let prevR = 0;
  for (let i = 0; i < s.t.length; i++) {
    const t = s.t[i] as number;
    const v = s.v[i] as number;
    const gap = Number.isNaN(v);
    // The change of the interval (a sensor reporting every 10 s writes 0: one byte), with the gap flag.
    const dod = t - prevT - prevDt;
    w.varint((dod >= 0 ? dod * 2 : -dod * 2 - 1) * 2 + (gap ? 1 : 0));
    prevDt = t - prevT;
    prevT = t;
    if (gap) continue;
    if (d === FLOAT) w.f64(v);
    else {
      const r = Math.round(v * p);
      w.zigzag(r - prevR);
      prevR = r;
    }
  }
  return w.toBuffer();
}

/**
 * A record that cannot be read whole (cut short, or made by hand: a crafted backup, a damaged
 * disk) gives what was whole before the damage, never an exception: a reader that threw would fail
 * a chart's query, or the gateway's start when the damage is in a batch it replays (docs/history.md).
 */
function readable(run: () => void): void {
  try {
    run();
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
  }
}

/** A time read from a record: a finite one, or the record is damaged. */
function finite(t: number): number {
  if (!Number.isFinite(t)) throw new RangeError('damaged history record');
  return t;
}

/** Cuts the columns of `into` back to the length of the shortest: a value read half is dropped. */
function whole(...columns: number[][]): void {
  const n = Math.min(...columns.map((c) => c.length));
  for (const c of columns) c.length = n;
}

/** How many samples a record holds (read from its head; 0 when it cannot be read). */
export function sampleCount(buf: Uint8Array): number {
  let n = 0;
  readable(() => {
    const r = new ByteReader(buf);
    r.byte();
    n = r.varint();
  });
  return Number.isFinite(n) ? n : 0;
}

/** Appends the samples of `buf` (written with `origin`) to `into`. */
export function decodeSamples(buf: Uint8Array, origin: number, into: Samples = { t: [], v: [] }): Samples {
  readable(() => {
    const r = new ByteReader(buf);
    const d = r.byte();
    r.varint();
    const p = POW[d] ?? 1;
    let t = origin;
    let dt = 0;
    let prevR = 0;
    while (!r.done) {
      const z = r.varint();
      const zz = Math.floor(z / 2);
      dt += zz % 2 === 0 ? zz / 2 : -(zz + 1) / 2;
      t = finite(t + dt);
      into.t.push(t);
      if (z % 2 === 1) {
        into.v.push(Number.NaN);
        continue;
      }
      if (d === FLOAT) into.v.push(r.f64());
      else {
        prevR += r.zigzag();
        into.v.push(prevR / p);
      }
    }
  });
  whole(into.t, into.v);
  return into;
}

/** One roll-up slot: samples in it, the time a value covered (ms), and the value's min, time-weighted mean and max. */
export interface Bucket {
  n: number;
  cov: number;
  min: number;
  mean: number;
  max: number;
}

/**
 * Buckets of `slots` slots as bytes (undefined: no value in that slot). Min and max keep the
 * samples' decimals; the mean keeps two more. Covered time is kept in whole seconds.
 */
export function encodeBuckets(buckets: readonly (Bucket | undefined)[], slots: number): Buffer {
  const w = new ByteWriter();
  const present: Bucket[] = [];
  const edges: number[] = [];
  for (const b of buckets) {
    if (!b) continue;
    present.push(b);
    edges.push(b.min, b.max);
  }
  const d = decimalsOf(edges, 2);
  w.byte(d);
  for (let i = 0; i < slots; i += 8) {
    let bits = 0;
    for (let j = 0; j < 8 && i + j < slots; j++) if (buckets[i + j]) bits |= 1 << j;
    w.byte(bits);
  }
  const p = POW[d] ?? 1;
  const pm = POW[d + 2] ?? 1;
  for (const b of present) {
    w.varint(b.n);
    w.varint(Math.round(b.cov / 1000));
    if (d === FLOAT) {
      w.f64(b.min);
      w.f64(b.mean);
      w.f64(b.max);
      continue;
    }
    const min = Math.round(b.min * p);
    w.zigzag(min);
    w.varint(Math.round(b.max * p) - min);
    // The mean lies within [min, max] (a float sum may stray by an ulp: clamped).
    w.varint(Math.max(0, Math.round((b.mean - b.min) * pm)));
  }
  return w.toBuffer();
}

/** The slots of a bucket record. */
export function decodeBuckets(buf: Uint8Array, slots: number): (Bucket | undefined)[] {
  const out: (Bucket | undefined)[] = new Array(slots).fill(undefined);
  readable(() => {
    const r = new ByteReader(buf);
    const d = r.byte();
    const has: boolean[] = [];
    for (let i = 0; i < slots; i += 8) {
      const bits = r.byte();
      for (let j = 0; j < 8 && i + j < slots; j++) has.push((bits & (1 << j)) !== 0);
    }
    const p = POW[d] ?? 1;
    const pm = POW[d + 2] ?? 1;
    for (let i = 0; i < slots; i++) {
      if (!has[i]) continue;
      const n = r.varint();
      const cov = r.varint() * 1000;
      if (d === FLOAT) {
        out[i] = { n, cov, min: r.f64(), mean: r.f64(), max: r.f64() };
        continue;
      }
      const minR = r.zigzag();
      const span = r.varint();
      const meanOff = r.varint();
      const min = minR / p;
      out[i] = { n, cov, min, max: (minR + span) / p, mean: Math.round((min + meanOff / pm) * pm) / pm };
    }
  });
  return out;
}

/** Amounts per slot (energy in Wh per quarter hour), kept to the mWh; undefined: nothing known. */
export function encodeAmounts(amounts: readonly (number | undefined)[]): Buffer {
  const w = new ByteWriter();
  for (let i = 0; i < amounts.length; i += 8) {
    let bits = 0;
    for (let j = 0; j < 8 && i + j < amounts.length; j++) if (amounts[i + j] !== undefined) bits |= 1 << j;
    w.byte(bits);
  }
  for (const a of amounts) if (a !== undefined) w.varint(Math.max(0, Math.round(a * 1000)));
  return w.toBuffer();
}

export function decodeAmounts(buf: Uint8Array, slots: number): (number | undefined)[] {
  const out: (number | undefined)[] = new Array(slots).fill(undefined);
  readable(() => {
    const r = new ByteReader(buf);
    const has: boolean[] = [];
    for (let i = 0; i < slots; i += 8) {
      const bits = r.byte();
      for (let j = 0; j < 8 && i + j < slots; j++) has.push((bits & (1 << j)) !== 0);
    }
    for (let i = 0; i < slots; i++) if (has[i]) out[i] = finite(r.varint() / 1000);
  });
  return out;
}

/** Values of many series as one batch is written: series, time and value of each, in arrival order. */
export interface BatchValues {
  s: number[];
  t: number[];
  v: number[];
}

/** A gap in a batch (the format byte after FLOAT). */
const GAP = FLOAT + 1;

/** A batch as bytes, times relative to `origin`; each value with its own decimals. */
export function encodeBatch(b: BatchValues, origin: number): Buffer {
  const w = new ByteWriter();
  let prevT = origin;
  for (let i = 0; i < b.s.length; i++) {
    const v = b.v[i] as number;
    w.varint(b.s[i] as number);
    w.zigzag((b.t[i] as number) - prevT);
    prevT = b.t[i] as number;
    if (Number.isNaN(v)) {
      w.byte(GAP);
      continue;
    }
    const d = decimalsOf([v]);
    w.byte(d);
    if (d === FLOAT) w.f64(v);
    else w.zigzag(Math.round(v * (POW[d] as number)));
  }
  return w.toBuffer();
}

/** Appends the values of a batch written with `origin` to `into`. */
export function decodeBatch(buf: Uint8Array, origin: number, into: BatchValues): BatchValues {
  readable(() => {
    const r = new ByteReader(buf);
    let t = origin;
    while (!r.done) {
      into.s.push(r.varint());
      t = finite(t + r.zigzag());
      into.t.push(t);
      const d = r.byte();
      if (d === GAP) into.v.push(Number.NaN);
      else if (d === FLOAT) into.v.push(r.f64());
      else if (POW[d] !== undefined) into.v.push(r.zigzag() / POW[d]);
      else throw new RangeError('damaged history record');
    }
  });
  whole(into.s, into.t, into.v);
  return into;
}
