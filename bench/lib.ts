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
 * fresh data folder removed on stop()) with warnings logged, plus `overrides`. Imported on use,
 * so that benches without a gateway and the client processes do not load it.
 */
export async function startBenchGateway(overrides: Record<string, unknown> = {}): Promise<TestGateway> {
  const { startGateway } = await import('../test/helpers/foundation.ts');
  return startGateway({ overrides: { log_level: 'warn', ...overrides } });
}

/** Listens on 127.0.0.1, a free port; resolves with the origin, e.g. `http://127.0.0.1:41234`. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const here = dirname(fileURLToPath(import.meta.url));

function forkTsx(file: string): ChildProcess {
  return fork(join(here, file), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
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

export interface LoadClient {
  /** Runs one job; jobs run one after another. */
  run(job: LoadJob): Promise<LoadResult>;
  close(): void;
}

/** The closed-loop HTTP load generator (bench/load-client.ts) in its own process, so it does not share a CPU thread with the server it measures. */
export function startLoadClient(): LoadClient {
  const child = forkTsx('load-client.ts');
  let queue: Promise<unknown> = Promise.resolve();
  const once = (job: LoadJob) =>
    new Promise<LoadResult>((resolve, reject) => {
      const onExit = (code: number | null, signal: string | null) =>
        reject(new Error(`the load generator exited (${code ?? signal})`));
      child.once('exit', onExit);
      child.once('message', (m: { ok: boolean; result?: LoadResult; error?: string }) => {
        child.off('exit', onExit);
        if (m.ok) resolve(m.result as LoadResult);
        else reject(new Error(m.error));
      });
      child.send(job);
    });
  return {
    run(job) {
      const result = queue.then(() => once(job));
      queue = result.catch(() => {});
      return result;
    },
    close: () => child.kill(),
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
