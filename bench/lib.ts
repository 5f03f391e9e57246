/**
 * Small helpers shared by the benchmarks. Every benchmark measures the gateway against a
 * baseline in the same run and prints the ratio; absolute numbers are printed for context only.
 */
import { type ChildProcess, fork } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestGateway } from '../test/helpers/foundation.ts';

/** Runs `fn` repeatedly for about `ms` milliseconds (after a warm-up) and returns operations per second. */
export function opsPerSecond(fn: () => void, ms = 1000): number {
  const warmUntil = performance.now() + Math.min(200, ms / 4);
  while (performance.now() < warmUntil) fn();
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 100; i++) fn();
    n += 100;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

/** The p-th percentile (0-100) of a list of numbers. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] as number;
}

/** Prints one result line: name, the ratio against the baseline, and the raw figures. */
export function report(name: string, ratio: number, details: Record<string, number | string>, target?: string): void {
  const extra = Object.entries(details)
    .map(([k, v]) => `${k}=${typeof v === 'number' ? round(v) : v}`)
    .join(' ');
  console.log(`${name}: ratio ${round(ratio)}${target ? ` (target ${target})` : ''}  ${extra}`);
}

function round(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(3);
}

/** Wall-clock time in epoch ms with sub-ms precision: comparable across processes on one machine. */
export const epochNow = (): number => performance.timeOrigin + performance.now();

/**
 * A gateway for a benchmark: the test gateway (127.0.0.1, a free port, mDNS and Zigbee off, a
 * fresh data folder removed on stop()) with warnings logged, plus `overrides`, and its answers
 * not checked against their schemas (as users run it; tests check them); in `dataDir` when given
 * (kept after stop). Imported on use, so
 * that benches without a gateway and the client processes do not load it.
 */
export async function startBenchGateway(
  overrides: Record<string, unknown> = {},
  dataDir?: string,
): Promise<TestGateway> {
  const { startGateway } = await import('../test/helpers/foundation.ts');
  return startGateway({ overrides: { log_level: 'warn', ...overrides }, checkAnswers: false, dataDir });
}

/**
 * The DiscoveryRequest endpoint of bench light `i` (a third-party light with power, brightness,
 * colour temperature and rssi), its service at `serviceAddress`; `extra` overrides fields.
 */
export function benchLight(i: number, serviceAddress: string, extra: Record<string, unknown> = {}) {
  return {
    third_serial_number: `bench-${i}`,
    name: `Bench light ${i}`,
    display_category: 'light',
    capabilities: [
      { capability: 'power', permission: '1100' },
      { capability: 'brightness', permission: '1100' },
      { capability: 'color-temperature', permission: '1100' },
      { capability: 'rssi', permission: '0100' },
    ],
    state: {
      power: { powerState: 'off' },
      brightness: { brightness: 50 },
      'color-temperature': { colorTemperature: 50 },
    },
    manufacturer: 'Bench',
    model: 'BL-1',
    firmware_version: '1.2.3',
    service_address: serviceAddress,
    tags: { room: `room-${i % 20}` },
    ...extra,
  };
}

/** Listens on 127.0.0.1, a free port; resolves with the origin, e.g. `http://127.0.0.1:41234`. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const here = dirname(fileURLToPath(import.meta.url));

function forkTsx(file: string): ChildProcess {
  return fork(join(here, file), [], { execArgv: ['--import', 'tsx', '--expose-gc'], stdio: 'inherit' });
}

export interface LoadJob {
  origin: string;
  path: string;
  headers?: Record<string, string>;
  /** Keep-alive connections, each sending one GET at a time. */
  connections: number;
  /** Requests during the first `warmupMs` are not counted; then `durationMs` is measured. */
  warmupMs: number;
  durationMs: number;
}

export interface LoadResult {
  rps: number;
  count: number;
  bytes: number;
  /** Failed requests and answers other than 200, warm-up included. */
  errors: number;
  p50: number;
  p99: number;
}

/** Requests sent one after another, each waiting for the answer before the next (a client's commands). */
export interface SequenceJob {
  kind: 'sequence';
  origin: string;
  requests: { method: string; path: string; headers?: Record<string, string>; body?: string }[];
  /** The first `warmup` requests are sent but not counted. */
  warmup?: number;
  /** Text every answer must hold (e.g. `"error":0`); an answer without it is a failure. */
  expect?: string;
  /** Milliseconds to wait before each request (a person's commands come apart; 0: back to back). */
  pauseMs?: number;
}

export interface SequenceResult {
  /** Milliseconds from sending each counted request to its whole answer. */
  latencies: number[];
  /** Answers other than HTTP 200 with the expected text. */
  failures: string[];
}

export interface LoadClient {
  /** Runs one job; jobs run one after another. */
  run(job: LoadJob): Promise<LoadResult>;
  /** Runs a sequence job (after the jobs before it). */
  sequence(job: SequenceJob): Promise<SequenceResult>;
  close(): void;
}

/** The closed-loop HTTP load generator (bench/load-client.ts) in its own process, so it does not share a CPU thread with the server it measures. */
export function startLoadClient(): LoadClient {
  const child = forkTsx('load-client.ts');
  let queue: Promise<unknown> = Promise.resolve();
  const once = <R>(job: LoadJob | SequenceJob) =>
    new Promise<R>((resolve, reject) => {
      const onExit = (code: number | null, signal: string | null) =>
        reject(new Error(`the load generator exited (${code ?? signal})`));
      child.once('exit', onExit);
      child.once('message', (m: { ok: boolean; result?: unknown; error?: string }) => {
        child.off('exit', onExit);
        if (m.ok) resolve(m.result as R);
        else reject(new Error(m.error));
      });
      child.send(job);
    });
  return {
    run(job) {
      const result = queue.then(() => once<LoadResult>(job));
      queue = result.catch(() => {});
      return result;
    },
    sequence(job) {
      const result = queue.then(() => once<SequenceResult>(job));
      queue = result.catch(() => {});
      return result;
    },
    close: () => child.kill(),
  };
}

/** Runs `file` (a script of bench/) in its own process with one job, and resolves with its one answer. */
export function runInChild<R>(file: string, job: unknown): Promise<R> {
  const child = forkTsx(file);
  return new Promise<R>((resolve, reject) => {
    child.once('message', (m: { ok: boolean; result?: R; error?: string }) =>
      m.ok ? resolve(m.result as R) : reject(new Error(m.error)),
    );
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}) without an answer`)));
    child.send(job as object);
  });
}

/** The third-party service (bench/directive-service.ts) in its own process: its origin, and how to stop it. */
export async function startDirectiveService(): Promise<{ origin: string; stop(): Promise<void> }> {
  const child = forkTsx('directive-service.ts');
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const origin = await new Promise<string>((resolve, reject) => {
    child.once('message', (m: { origin: string }) => resolve(m.origin));
    child.once('exit', (code) => reject(new Error(`the directive service exited (${code})`)));
  });
  return {
    origin,
    stop() {
      if (child.connected) child.disconnect();
      return exited;
    },
  };
}

export interface StreamClients {
  /**
   * Opens `count` event streams of GET `url` (once per StreamClients); resolves once every
   * stream has its response head. The marker of an event is the first capture group of
   * `pattern` in its frame.
   */
  open(url: string, count: number, pattern: RegExp): Promise<void>;
  /**
   * Resolves with the arrival time (epoch ms) at each stream of the next event whose marker is
   * `marker`, once every stream has it. Call it before the event is published: an event that
   * nobody waits for is dropped.
   */
  delivered(marker: string): Promise<number[]>;
  /** Closes the streams as clients do; resolves once the clients' process has exited. */
  close(): Promise<void>;
}

/**
 * Event-stream clients (bench/sse-clients.ts) in their own process, so that they do not share a
 * CPU thread with the server they measure. The process starts here; open() connects the streams.
 */
export function startStreamClients(): StreamClients {
  const child = forkTsx('sse-clients.ts');
  const waiting = new Map<string, { resolve: (arrivals: number[]) => void; reject: (err: Error) => void }>();
  let opened: { resolve: () => void; reject: (err: Error) => void } | undefined;
  let closing = false;
  const fail = (err: Error) => {
    opened?.reject(err);
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.on('exit', (code, signal) => {
    if (!closing) fail(new Error(`the stream clients exited (${code ?? signal})`));
  });
  child.on('message', (m: { type: string; marker?: string; arrivals?: number[]; error?: string }) => {
    if (m.type === 'ready') opened?.resolve();
    else if (m.type === 'error') fail(new Error(m.error));
    else if (m.type === 'delivered') {
      const w = waiting.get(m.marker as string);
      waiting.delete(m.marker as string);
      w?.resolve(m.arrivals as number[]);
    }
  });
  return {
    open(url, count, pattern) {
      if (opened) throw new Error('the stream clients are open already');
      return new Promise((resolve, reject) => {
        opened = { resolve, reject };
        child.send({ url, count, pattern: pattern.source, flags: pattern.flags });
      });
    },
    delivered(marker) {
      if (waiting.has(marker)) throw new Error(`already waiting for ${marker}`);
      return new Promise((resolve, reject) => waiting.set(marker, { resolve, reject }));
    },
    close() {
      closing = true;
      if (child.connected) child.send('close');
      return exited;
    },
  };
}

/**
 * The simulated Zigbee2MQTT (bench/zigbee-sim-process.ts) in its own process, on the broker at
 * `url`: the friendly name and model of each of its devices, and how to stop it.
 */
export async function startSimZigbee2mqtt(
  url: string,
  baseTopic: string,
  devices: number,
): Promise<{ devices: { friendly: string; model: string }[]; stop(): Promise<void> }> {
  const child = forkTsx('zigbee-sim-process.ts');
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const list = await new Promise<{ friendly: string; model: string }[]>((resolve, reject) => {
    child.once('message', (m: { ok: boolean; devices?: { friendly: string; model: string }[]; error?: string }) =>
      m.ok ? resolve(m.devices ?? []) : reject(new Error(m.error)),
    );
    child.once('exit', (code) => reject(new Error(`the simulated Zigbee2MQTT exited (${code})`)));
    child.send({ url, baseTopic, devices });
  });
  return {
    devices: list,
    stop() {
      if (child.connected) child.disconnect();
      return exited;
    },
  };
}
