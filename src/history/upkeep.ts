/**
 * The history's upkeep, once an hour on the clock: the hour that ended is rolled up (its values
 * packed per series, 5-minute and hourly roll-ups, energy per quarter hour), then everything older
 * than its retention is pruned, and devices the user asked to forget are deleted. All of it in
 * small steps, each its own transaction, with a turn of the event loop between them: requests and
 * recording go on while a year of history is pruned. A roll-up step can be repeated (rows are
 * replaced): a kill -9 in the middle of one leaves the hour to be rolled up again at the next start.
 */
import type { Log } from '../lib/log.ts';
import { type Bucket, decodeAmounts, decodeBuckets, encodeAmounts, encodeBuckets, encodeSamples } from './codec.ts';
import type { HistoryOptions } from './ports.ts';
import type { Recent } from './recent.ts';
import type { Recorder } from './recorder.ts';
import { counterRises, DAY, HOUR, MINUTE, mergeBuckets, powerAmounts, rollUp } from './rollup.ts';
import type { DeviceInfo, SeriesIndex } from './series.ts';
import { EVENT_SEQ, type HistoryStore, rowKey, SERIES_SPACE, TIERS, type Tier } from './store.ts';
import { startTiming } from './timing.ts';

/** Series rolled up in one step, and rows deleted in one step. */
const SERIES_PER_STEP = 16;
const ROWS_PER_STEP = 500;
const WINDOW_ROWS = 2000;
/** After the hour ends, the roll-up waits this long (values stamped in the hour are all in). */
const SETTLE_MS = 1000;
/** Hours behind beyond which values are not carried across (the upkeep runs every hour). */
const MAX_CATCH_UP_MS = 2 * DAY;
const QUARTER = 15 * MINUTE;

export interface Retention {
  rawDays: number;
  fiveMinuteDays: number;
  /** 0: kept for ever. */
  hourlyDays: number;
  logbookDays: number;
}

export interface UpkeepDeps extends Pick<HistoryOptions, 'clock' | 'observe'> {
  log: Log;
  store: HistoryStore;
  index: SeriesIndex;
  recent: Recent;
  recorder: Recorder;
  retention: Retention;
  defer: (fn: () => void) => void;
}

/** One step: `run` inside a transaction (returns what it counted), `after` once that committed. */
interface Step {
  kind: 'rollup' | 'prune' | 'forget';
  run: () => number;
  after?: () => void;
}

type Job = () => Generator<Step, void, void>;

/** The key of the compacted_until meta value. */
export const COMPACTED_UNTIL = 'compacted_until';

export class Upkeep {
  private running?: Promise<void>;
  private stopped = false;
  private cancelTimer?: () => void;
  private readonly jobs: { job: Job; done: () => void }[] = [];

  constructor(private readonly d: UpkeepDeps) {}

  /** Starts the hourly schedule with a run now (a restart catches up on the hours it missed). */
  start(): void {
    this.stopped = false;
    void this.run();
  }

  /** Stops the schedule; resolves once the step under way is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    await this.running;
    // Jobs not run: what they delete is out of sight already and goes with its retention.
    for (const j of this.jobs.splice(0)) j.done();
  }

  /** Runs the upkeep now (or joins the run under way); resolves once it is done. */
  run(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.work()
      .catch((err) => this.d.log.error({ err }, 'history: upkeep failed (tried again at the next hour)'))
      .finally(() => {
        this.running = undefined;
        if (this.jobs.length > 0 && !this.stopped) void this.run();
        else this.schedule();
      });
    return this.running;
  }

  /** Resolves once no upkeep is running or queued. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Queues a job (forgetting a device, clearing) and starts a run; resolves once the job is done. */
  enqueue(job: Job): Promise<void> {
    return new Promise((done) => {
      this.jobs.push({ job, done });
      void this.run();
    });
  }

  private schedule(): void {
    if (this.stopped) return;
    this.cancelTimer?.();
    const now = this.d.clock.now();
    const next = (Math.floor(now / HOUR) + 1) * HOUR + SETTLE_MS;
    this.cancelTimer = this.d.clock.setTimer(next - now, () => {
      this.cancelTimer = undefined;
      void this.run();
    });
  }

  private turn(): Promise<void> {
    return new Promise((resolve) => this.d.defer(resolve));
  }

  private async drive(job: Job): Promise<void> {
    for (const s of job()) {
      if (this.stopped) return;
      const timing = startTiming();
      const count = this.d.store.transaction(s.run);
      s.after?.();
      this.d.observe?.({ kind: s.kind, count, ...timing() });
      await this.turn();
    }
  }

  private async work(): Promise<void> {
    this.d.recorder.flush();
    await this.drive(() => this.rollUps());
    while (this.jobs.length > 0 && !this.stopped) {
      const next = this.jobs.shift() as { job: Job; done: () => void };
      try {
        await this.drive(next.job);
      } finally {
        next.done();
      }
    }
    await this.drive(() => this.prune());
  }

  // ---- roll-ups ----

  /** Every ended hour not rolled up yet, oldest first (hours without values are skipped). */
  private *rollUps(): ReturnType<Job> {
    const recent = this.d.recent;
    for (;;) {
      const now = this.d.clock.now();
      const h = recent.compactedUntil;
      if (h + HOUR + SETTLE_MS > now) return;
      // Days behind while running: the clock jumped forward (a box without a real-time clock
      // setting its time). No value stood over the jump: end them, so the hours between are skipped.
      if (now - h > MAX_CATCH_UP_MS)
        for (const id of recent.seriesBefore(Number.POSITIVE_INFINITY)) {
          const c = recent.carry(id);
          if (c && !Number.isNaN(c.v)) recent.setCarry(id, { t: c.t, v: Number.NaN });
        }
      const ids = this.seriesOfHour(h);
      if (ids.length === 0) {
        // Nothing in this hour: jump to the hour of the next value (or the last ended hour).
        const earliest = recent.earliest();
        const ended = Math.floor((now - SETTLE_MS) / HOUR) * HOUR;
        const next = earliest === undefined ? ended : Math.min(ended, Math.floor(earliest / HOUR) * HOUR);
        yield this.finishHour(Math.max(next, h + HOUR));
        continue;
      }
      for (let i = 0; i < ids.length; i += SERIES_PER_STEP) {
        const group = ids.slice(i, i + SERIES_PER_STEP);
        const last = i + SERIES_PER_STEP >= ids.length;
        // The last group's step also marks the hour done: one commit fewer an hour (an fsync on the card).
        const finish = last ? this.finishHour(h + HOUR) : undefined;
        yield {
          kind: 'rollup',
          run: () => {
            for (const id of group) this.rollUpSeries(id, h);
            finish?.run();
            return group.length;
          },
          ...(finish ? { after: finish.after } : {}),
        };
      }
    }
  }

  /**
   * Marks every hour before `end` rolled up and deletes the batches that held them; memory follows
   * once that is committed (queries read packed rows only before compacted_until).
   */
  private finishHour(end: number): Step {
    return {
      kind: 'rollup',
      run: () => {
        const recent = this.d.recent;
        // In the step that marks the hour done: added exactly once, even if the gateway dies between steps.
        this.addMeterRises(end);
        for (const id of recent.seriesBefore(end)) {
          const s = recent.of(id);
          if (!s) continue;
          let n = 0;
          while (n < s.t.length && (s.t[n] as number) < end) n++;
          if (n > 0) this.d.store.putLast(id, s.t[n - 1] as number, s.v[n - 1] as number);
        }
        this.d.store.setMeta(COMPACTED_UNTIL, end);
        this.d.store.deleteBatchesBefore(end);
        return 0;
      },
      after: () => this.d.recent.rolledUp(end),
    };
  }

  /** Series with values in the hour, or whose last value still stands in it. */
  private seriesOfHour(h: number): number[] {
    const recent = this.d.recent;
    const out: number[] = [];
    for (const id of recent.seriesBefore(h + HOUR)) {
      const first = recent.of(id)?.t[0];
      const c = recent.carry(id);
      if ((first !== undefined && first < h + HOUR) || (c && !Number.isNaN(c.v))) out.push(id);
    }
    return out;
  }

  /** Loads each series' last value of the hours rolled up (at start). */
  loadCarries(): void {
    for (const r of this.d.store.lastValues())
      if (this.d.index.seriesById(r.series)) this.d.recent.setCarry(r.series, { t: r.t, v: r.v });
  }

  private rollUpSeries(id: number, h: number): void {
    const s = this.d.index.seriesById(id);
    if (s?.kind !== 'number') return;
    const store = this.d.store;
    const hour = h / HOUR;
    const samples = this.d.recent.before(id, h + HOUR);
    const carry = this.d.recent.carry(id);
    if (samples.t.length > 0) store.putChunk('raw', rowKey(hour, id), encodeSamples(samples, h));
    const fives = rollUp(samples, carry, h, 5 * MINUTE, 12);
    const whole = mergeBuckets(fives);
    if (!whole) return;
    store.putChunk('5min', rowKey(hour, id), encodeBuckets(fives, 12));
    const day = Math.floor(h / DAY);
    const slot = (h - day * DAY) / HOUR;
    const hourly = readBuckets(store, 'hourly', rowKey(day, id), 24);
    hourly[slot] = whole;
    store.putChunk('hourly', rowKey(day, id), encodeBuckets(hourly, 24));
    // A meter's rises are added once, with the end of the hour (finishHour): they may reach back into hours already rolled up.
    if (s.energy?.role !== 'power') return;
    const amounts = powerAmounts(samples, carry, h, QUARTER, 4, s.energy.toWatts);
    if (amounts.every((a) => a === undefined)) return;
    const key = rowKey(day, id);
    const quarters = readAmounts(store, key);
    for (let q = 0; q < 4; q++) quarters[slot * 4 + q] = amounts[q];
    store.putChunk('energy', key, encodeAmounts(quarters));
  }

  /** Adds the rises of the meters' readings before `end` to the energy rows of the quarters they cover. */
  private addMeterRises(end: number): void {
    const recent = this.d.recent;
    const store = this.d.store;
    for (const id of recent.seriesBefore(end)) {
      const s = this.d.index.seriesById(id);
      if (s?.energy?.role !== 'counter') continue;
      const samples = recent.before(id, end);
      if (samples.t.length === 0) continue;
      const byDay = new Map<number, [number, number][]>();
      for (const [q, wh] of counterRises(samples, recent.carry(id), s.energy.toWh, QUARTER)) {
        const day = Math.floor(q / DAY);
        const list = byDay.get(day) ?? [];
        list.push([q, wh]);
        byDay.set(day, list);
      }
      for (const [day, list] of byDay) {
        const key = rowKey(day, id);
        const quarters = readAmounts(store, key);
        for (const [q, wh] of list) {
          const i = (q - day * DAY) / QUARTER;
          quarters[i] = (quarters[i] ?? 0) + wh;
        }
        store.putChunk('energy', key, encodeAmounts(quarters));
      }
    }
  }

  // ---- pruning ----

  private *prune(): ReturnType<Job> {
    const now = this.d.clock.now();
    const r = this.d.retention;
    const hourCut = (days: number) => rowKey(Math.floor((now - days * DAY) / HOUR), 0);
    const dayCut = (days: number) => rowKey(Math.floor((now - days * DAY) / DAY), 0);
    const cuts: [Tier, number][] = [
      ['raw', hourCut(r.rawDays)],
      ['5min', hourCut(r.fiveMinuteDays)],
    ];
    if (r.hourlyDays > 0) cuts.push(['hourly', dayCut(r.hourlyDays)], ['energy', dayCut(r.hourlyDays)]);
    for (const [tier, cut] of cuts) yield* this.deleteBelow(tier, cut);
    const eventCut = (now - r.logbookDays * DAY) * EVENT_SEQ;
    let n = ROWS_PER_STEP;
    while (n === ROWS_PER_STEP) {
      let deleted = 0;
      yield { kind: 'prune', run: () => (deleted = this.d.store.pruneEvents(eventCut, ROWS_PER_STEP)) };
      n = deleted;
    }
    // A device removed longer ago than everything is kept has nothing left: its entry goes too.
    const longest = Math.max(r.rawDays, r.fiveMinuteDays, r.logbookDays, r.hourlyDays === 0 ? Infinity : r.hourlyDays);
    for (const d of this.d.index.devices())
      if (d.removedAt !== null && d.removedAt + longest * DAY < now)
        this.jobs.push({ job: this.forgetJob(d), done: () => {} });
  }

  private *deleteBelow(tier: Tier, cut: number, kind: 'prune' | 'forget' = 'prune'): ReturnType<Job> {
    let n = ROWS_PER_STEP;
    while (n === ROWS_PER_STEP) {
      let deleted = 0;
      yield { kind, run: () => (deleted = this.d.store.pruneChunks(tier, cut, ROWS_PER_STEP)) };
      n = deleted;
    }
  }

  // ---- forgetting ----

  /** A job deleting every packed row and logbook entry from before `now`'s hour (the history was cleared). */
  clearJob(now: number): Job {
    const hourCut = rowKey(Math.floor(now / HOUR) + 1, 0);
    const dayCut = rowKey(Math.floor(now / DAY) + 1, 0);
    const eventCut = (now + 1) * EVENT_SEQ;
    const store = this.d.store;
    return function* (this: Upkeep): ReturnType<Job> {
      for (const tier of TIERS)
        yield* this.deleteBelow(tier, tier === 'raw' || tier === '5min' ? hourCut : dayCut, 'forget');
      let n = ROWS_PER_STEP;
      while (n === ROWS_PER_STEP) {
        let deleted = 0;
        yield { kind: 'forget', run: () => (deleted = store.pruneEvents(eventCut, ROWS_PER_STEP)) };
        n = deleted;
      }
    }.bind(this);
  }

  /**
   * A job deleting a device's history. The device and its series go at once (memory and store, one
   * transaction): a report arriving meanwhile starts a new history, and what the job has not deleted
   * yet when the gateway stops is out of sight (no device refers to it) until its retention ends.
   */
  forgetJob(d: DeviceInfo): Job {
    const ids = new Set([...d.series.values()].map((s) => s.id));
    this.d.index.drop(d);
    this.d.recorder.forget(d);
    for (const id of ids) this.d.recent.drop(id);
    const store = this.d.store;
    store.transaction(() => store.deleteDevice(d.id));
    // Keys are read in windows of periods holding about WINDOW_ROWS rows (a row per series and period at most).
    const window = Math.max(1, Math.floor(WINDOW_ROWS / Math.max(1, this.d.index.seriesCount)));
    return function* (this: void): ReturnType<Job> {
      let n = ROWS_PER_STEP;
      while (n === ROWS_PER_STEP) {
        let deleted = 0;
        yield { kind: 'forget', run: () => (deleted = store.deleteDeviceEvents(d.id, ROWS_PER_STEP)) };
        n = deleted;
      }
      for (const tier of TIERS) {
        if (ids.size === 0) break;
        const first = store.edgeKey(tier, 'first');
        const last = store.edgeKey(tier, 'last');
        if (first === undefined || last === undefined) continue;
        for (let p = Math.floor(first / SERIES_SPACE); p <= Math.floor(last / SERIES_SPACE); p += window) {
          const from = rowKey(p, 0);
          const to = rowKey(p + window, 0);
          yield {
            kind: 'forget',
            run: () =>
              store.deleteChunks(
                tier,
                store.chunkKeys(tier, from, to).filter((k) => ids.has(k % SERIES_SPACE)),
              ),
          };
        }
      }
    };
  }
}

/** The quarters of a day's energy row, or empty quarters when there is none. */
function readAmounts(store: HistoryStore, key: number): (number | undefined)[] {
  const data = store.getChunk('energy', key);
  return data ? decodeAmounts(data, 96) : new Array<number | undefined>(96).fill(undefined);
}

/** The buckets of a packed row, or empty slots when there is none. */
function readBuckets(store: HistoryStore, tier: Tier, key: number, slots: number): (Bucket | undefined)[] {
  const data = store.getChunk(tier, key);
  return data ? decodeBuckets(data, slots) : new Array(slots).fill(undefined);
}
