/**
 * The history (issue 27) on an SD-card budget: 100 sensors reporting every 10 s for a simulated
 * year, each report published on the real event bus and recorded by the real recorder (batches,
 * hourly roll-ups, pruning) into a real SQLite file, with the clock moved by hand. Each figure is a
 * ratio against a baseline measured in the same run:
 * - store size per sensor-year, against the same values kept one row each (series, time, value:
 *   what a plain state table keeps), measured on one simulated day and scaled to a year;
 * - bytes written per recorded value (the bytes this process hands to write(2), /proc/self/io
 *   `wchar`: WAL frames and checkpoints), against that plain table written in the same batches;
 * - p99 of a one-year chart query and of a 24 h query, against a bare SQLite query reading the
 *   same rows (what is left is decoding and bucketing);
 * - the longest event-loop stall of a roll-up or prune step, against deleting one day of the
 *   plain table's rows at once (what a naive daily purge does).
 * `BENCH_HISTORY_DAYS` (365) and `BENCH_HISTORY_SENSORS` (100) make a quick run: e.g. 30 and 100.
 * The registry's own write of each state change is not part of this path (the bus is fed directly):
 * it is the same with or without a history.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CapabilityObject } from '../src/catalog/index.ts';
import type { StepReport } from '../src/history/index.ts';
import { openDb } from '../src/store/db.ts';
import { ManualClock } from '../test/helpers/clock.ts';
import { bareHistory } from '../test/helpers/history-store.ts';
import { percentile, report } from './lib.ts';

const SENSORS = Number(process.env.BENCH_HISTORY_SENSORS ?? 100);
const DAYS = Number(process.env.BENCH_HISTORY_DAYS ?? 365);
const EVERY_MS = 10_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const START = Date.UTC(2024, 0, 1);

function wchar(): number {
  const m = /wchar:\s+(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'));
  return Number(m?.[1] ?? 0);
}

/**
 * A sensor: its capabilities and its report, one object updated in place before each publish (the
 * bus serializes it at once; a new object a report would measure the bench's garbage, not the
 * history). Half temperatures, a quarter humidity, a quarter plugs reporting power, each value a
 * daily curve with noise so that nearly every report changes it.
 */
interface Sensor {
  caps: CapabilityObject[];
  payload: Record<string, unknown>;
  /** Sets the report for time `t`; returns the value. */
  set(t: number): number;
}

function sensor(i: number): Sensor {
  const daily = (t: number) => Math.sin(((t % DAY) / DAY) * 2 * Math.PI);
  const noise = (t: number) => (((t / EVERY_MS) * 7919 + i * 104729) % 1000) / 1000 - 0.5;
  const round2 = (x: number) => Math.round(x * 100) / 100;
  if (i % 4 < 2) {
    const leaf = { temperature: 0 };
    return {
      caps: [{ capability: 'temperature', permission: '0100' }],
      payload: { temperature: leaf },
      set: (t) => (leaf.temperature = round2(21 + 2 * daily(t) + noise(t))),
    };
  }
  if (i % 4 === 2) {
    const leaf = { humidity: 0 };
    return {
      caps: [{ capability: 'humidity', permission: '0100' }],
      payload: { humidity: leaf },
      set: (t) => (leaf.humidity = round2(50 - 8 * daily(t) + 2 * noise(t))),
    };
  }
  const leaf = { electricPower: 0 };
  return {
    caps: [{ capability: 'toggle-electric-power', permission: '0100', name: '1' }],
    payload: { 'toggle-electric-power': { '1': leaf } },
    set: (t) => (leaf.electricPower = Math.max(0, Math.round(6000 + 4000 * daily(t) + 800 * noise(t)))),
  };
}

// In memory (tmpfs) by default: an fsync per commit would make the run last hours, and what is
// measured is the bytes handed to the file system and the time the code itself takes. On an SD
// card each commit adds the card's own fsync latency, as every write of the store does.
const base = process.env.BENCH_HISTORY_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
const dir = mkdtempSync(join(base, 'opencube-bench-history-'));
try {
  // ---- the history: a year through the recording path ----
  const file = join(dir, 'gateway.db');
  const clock = new ManualClock(START);
  const steps: StepReport[] = [];
  // The default settings: raw values 10 days, 5-minute roll-ups 90, hourly ones ten years, batches of 5 s.
  const { db, bus, registry, history } = bareHistory(file, clock, { observe: (s) => steps.push(s) });
  const sensors = Array.from({ length: SENSORS }, (_, i) => {
    const k = sensor(i);
    const d = registry.deviceFound('bench', {
      driver_ref: `s${i}`,
      name: `Sensor ${i}`,
      manufacturer: 'Bench',
      model: 'B-1',
      firmware_version: '1.0.0',
      display_category: 'sensor',
      capabilities: k.caps,
    });
    return { endpoint: { serial_number: d.serial_number }, ...k };
  });
  history.start();
  await history.idle();
  const ticks = (DAYS * DAY) / EVERY_MS;
  const writtenBefore = wchar();
  const began = performance.now();
  let values = 0;
  for (let tick = 0; tick < ticks; tick++) {
    const t = clock.now();
    for (const s of sensors) {
      s.set(t);
      bus.publish('device#updateDeviceState', { endpoint: s.endpoint, payload: s.payload });
    }
    values += SENSORS;
    clock.advance(EVERY_MS);
    if ((tick + 1) % (HOUR / EVERY_MS) === 0) await history.idle();
  }
  await history.stop();
  const written = wchar() - writtenBefore;
  const recordMs = performance.now() - began;
  db.pragma('wal_checkpoint(TRUNCATE)');
  const bytes = statSync(file).size;
  const tables = db
    .prepare<[], { name: string; bytes: number }>(
      "SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'history%' GROUP BY name ORDER BY bytes DESC",
    )
    .all();

  // ---- the baseline: the same values one row each, for one simulated day ----
  const plainFile = join(dir, 'plain.db');
  const plain = openDb(plainFile);
  plain.exec('CREATE TABLE plain (series INTEGER NOT NULL, t INTEGER NOT NULL, v REAL, PRIMARY KEY (series, t))');
  const put = plain.prepare<[number, number, number]>('INSERT INTO plain (series, t, v) VALUES (?, ?, ?)');
  const plainBefore = wchar();
  const perBatch = (5_000 / EVERY_MS) * SENSORS;
  let batch: [number, number, number][] = [];
  const insert = plain.transaction((rows: [number, number, number][]) => {
    for (const r of rows) put.run(...r);
  });
  for (let tick = 0; tick < DAY / EVERY_MS; tick++) {
    const t = START + tick * EVERY_MS;
    sensors.forEach((s, i) => {
      batch.push([i, t, s.set(t)]);
    });
    if (batch.length >= perBatch) {
      insert(batch);
      batch = [];
    }
  }
  insert(batch);
  const plainWritten = wchar() - plainBefore;
  plain.pragma('wal_checkpoint(TRUNCATE)');
  const plainDayBytes = statSync(plainFile).size;
  const plainRows = (DAY / EVERY_MS) * SENSORS;
  const sensorYears = (SENSORS * DAYS) / 365;
  const ours = bytes / sensorYears;
  const naive = (plainDayBytes * 365) / SENSORS;
  report(
    `store size per sensor-year (${SENSORS} sensors, ${DAYS} days, raw 10 d, 5-min 90 d, hourly kept) vs one row a value`,
    ours / naive,
    {
      store_mb: bytes / 1e6,
      per_sensor_year_kb: ours / 1e3,
      plain_per_sensor_year_kb: naive / 1e3,
      ...Object.fromEntries(tables.map((r) => [`${r.name}_mb`, r.bytes / 1e6])),
    },
  );
  report(
    'bytes written per recorded value vs one row a value in the same batches',
    written / values / (plainWritten / plainRows),
    {
      per_value_bytes: written / values,
      plain_per_value_bytes: plainWritten / plainRows,
      values,
      written_mb: written / 1e6,
      record_s: recordMs / 1000,
      per_value_us: (recordMs * 1000) / values,
    },
  );

  // ---- queries against a bare read of the same rows ----
  const { db: reopened, history: again } = bareHistory(file, clock, { settings: { enabled: false } });
  again.start();
  const end = clock.now();
  const bare = reopened.prepare<[number], { data: Buffer }>('SELECT data FROM history_hourly WHERE id = ?');
  const bare5 = reopened.prepare<[number], { data: Buffer }>('SELECT data FROM history_5min WHERE id = ?');
  const idsOf = (serial: string) => {
    const row = reopened
      .prepare<[string], { id: number }>(
        'SELECT s.id FROM history_series s JOIN history_devices d ON d.id = s.device WHERE d.serial_number = ?',
      )
      .get(serial);
    return row?.id ?? 0;
  };
  // Each query and its baseline in turns, so that both meet the same load of a shared machine.
  // Wall time (the stall a request sees); CPU time beside it counts V8's helper threads too.
  const timedPair = (n: number, ours: (i: number) => void, base: (i: number) => void) => {
    const out = { ours: [] as number[], base: [] as number[], oursCpu: [] as number[] };
    for (let i = 0; i < n; i++) {
      const c0 = process.cpuUsage();
      let t0 = performance.now();
      ours(i);
      out.ours.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      out.oursCpu.push((c.user + c.system) / 1000);
      t0 = performance.now();
      base(i);
      out.base.push(performance.now() - t0);
    }
    return out;
  };
  const ids = sensors.map((s) => idsOf(s.endpoint.serial_number));
  const ROUNDS = 1000;
  const yearFrom = end - Math.min(DAYS, 365) * DAY;
  const query = (from: number, i: number) => {
    const r = again.series({
      serial_number: sensors[i % SENSORS]?.endpoint.serial_number,
      capability: capOf(i),
      name: nameOf(i),
      from: new Date(from).toISOString(),
      points: 500,
    });
    if (!r.ok) throw new Error(r.errors.join('; '));
  };
  // The baseline reads the same rows: the hourly roll-ups, a row a day.
  const year = timedPair(
    ROUNDS,
    (i) => query(yearFrom, i),
    (i) => {
      const id = ids[i % SENSORS] as number;
      for (let d = Math.floor(yearFrom / DAY); d <= Math.floor(end / DAY); d++) bare.get(d * 2 ** 20 + id);
    },
  );
  // The same rows: the hourly roll-ups of the day (its reports counted: too many to answer raw),
  // then the 5-minute roll-ups, a row an hour.
  const day = timedPair(
    ROUNDS,
    (i) => query(end - DAY, i),
    (i) => {
      const id = ids[i % SENSORS] as number;
      for (let d = Math.floor((end - DAY) / DAY); d <= Math.floor(end / DAY); d++) bare.get(d * 2 ** 20 + id);
      for (let h = Math.floor((end - DAY) / HOUR); h <= Math.floor(end / HOUR); h++) bare5.get(h * 2 ** 20 + id);
    },
  );
  for (const [name, r] of [
    ['one-year', year],
    ['24 h', day],
  ] as const)
    report(
      `${name} chart query (500 points) p99 vs a bare read of the same rows`,
      percentile(r.ours, 99) / percentile(r.base, 99),
      {
        p99_ms: percentile(r.ours, 99),
        p50_ms: percentile(r.ours, 50),
        p99_cpu_ms: percentile(r.oursCpu, 99),
        bare_p99_ms: percentile(r.base, 99),
        bare_p50_ms: percentile(r.base, 50),
      },
    );
  await again.stop();
  reopened.close();

  // ---- stalls: the longest step against deleting a day of plain rows at once ----
  const t0 = performance.now();
  plain.prepare('DELETE FROM plain WHERE t < ?').run(START + DAY);
  const plainDelete = performance.now() - t0;
  plain.close();
  const upkeep = steps.filter((s) => s.kind === 'rollup' || s.kind === 'prune');
  const flushes = steps.filter((s) => s.kind === 'flush');
  const max = (xs: number[]) => xs.reduce((m, x) => Math.max(m, x), 0);
  const longest = upkeep.reduce((m, s) => (s.ms > m.ms ? s : m), { ms: 0, cpuMs: 0 });
  // A step's wall time also holds the time this process waited for a core of a shared machine;
  // its CPU time beside it says how much was the step's own.
  report(
    'longest event-loop stall of a roll-up or prune step vs deleting one day of plain rows at once',
    longest.ms / plainDelete,
    {
      upkeep_max_ms: longest.ms,
      its_cpu_ms: longest.cpuMs,
      upkeep_p99_ms: percentile(
        upkeep.map((s) => s.ms),
        99,
      ),
      upkeep_p999_ms: percentile(
        upkeep.map((s) => s.ms),
        99.9,
      ),
      upkeep_cpu_max_ms: max(upkeep.map((s) => s.cpuMs)),
      upkeep_cpu_p99_ms: percentile(
        upkeep.map((s) => s.cpuMs),
        99,
      ),
      prune_max_ms: max(upkeep.filter((s) => s.kind === 'prune').map((s) => s.ms)),
      flush_p99_ms: percentile(
        flushes.map((s) => s.ms),
        99,
      ),
      flush_max_ms: max(flushes.map((s) => s.ms)),
      plain_day_delete_ms: plainDelete,
      steps: steps.length,
    },
  );
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function capOf(i: number): string {
  return ['temperature', 'temperature', 'humidity', 'toggle-electric-power'][i % 4] as string;
}

function nameOf(i: number): string | undefined {
  return i % 4 === 3 ? '1' : undefined;
}
