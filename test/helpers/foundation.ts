/**
 * The one way tests (and benches) start a gateway: on 127.0.0.1 with a fresh data folder,
 * restartable on the same folder. Also the JSON client every test uses, a token obtained the
 * way clients get one, and a raw event-stream reader that keeps every byte it got.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { type ClientRequest, type IncomingMessage, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway.ts';
import type { AnswerCheck } from '../../src/http/open-api/route.ts';
import { loadSettings, type Settings } from '../../src/settings/index.ts';

type Nested = Record<string, unknown>;

function isPlain(v: unknown): v is Nested {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function merge(a: Nested, b: Nested): Nested {
  const out: Nested = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isPlain(v) && isPlain(out[k]) ? merge(out[k] as Nested, v) : v;
  return out;
}

/** A fresh temporary data folder. */
export function tempDir(prefix = 'opencube-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Settings for a test gateway: loopback, any free port, no mDNS, no Zigbee, quiet logs, no sound card used. */
export function testSettings(dataDir: string, overrides: Nested = {}): Settings {
  const base: Nested = {
    port: 0,
    host: '127.0.0.1',
    mdns: false,
    zigbee: { mode: 'off' },
    data_dir: dataDir,
    log_level: 'error',
    // A developer's machine may have speakers: tests never play on them.
    audio: { sink: 'null' },
  };
  return loadSettings({ overrides: merge(base, overrides) });
}

export interface TestGateway {
  gateway: Gateway;
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  dataDir: string;
  /** A valid token, made directly in the token service (no link window involved). */
  token(appName?: string): string;
  /** A token the way clients get one: the link button is pressed, the client polls G1, the window closes. */
  linkToken(appName?: string): Promise<string>;
  /**
   * Stops the gateway (a second call does nothing). The data folder is removed when the helper
   * made it; a folder given by the caller is kept.
   */
  stop(): Promise<void>;
  /**
   * Stops this gateway, keeping its data folder, and starts a new one on that folder with the same
   * options; the new one removes the folder on stop() when this one would have. `whileDown` runs
   * between the stop and the start (a test moves its clock: the time the gateway was down).
   */
  restart(whileDown?: () => void): Promise<TestGateway>;
}

export interface StartOptions {
  /** Setting overrides, merged into testSettings(), e.g. `{ thirdparty: { timeout_ms: 500 } }`. */
  overrides?: Nested;
  /** Reuse this data folder (and keep it after stop). */
  dataDir?: string;
  gatewayOptions?: GatewayOptions;
  /**
   * false: the gateway's answers are not checked against their declared schemas (benchmarks
   * measure the gateway as users run it, which checks nothing of what it answers).
   */
  checkAnswers?: boolean;
  /** Runs once the gateway is built, before it starts (a test that must hear every event of a start subscribes here). */
  beforeStart?: (gateway: Gateway) => void;
}

/** Starts a gateway listening on 127.0.0.1:<free port>. Call stop() in t.after/after. */
export async function startGateway(opts: StartOptions = {}): Promise<TestGateway> {
  const ownDir = opts.dataDir === undefined;
  return launch(opts, opts.dataDir ?? tempDir(), ownDir);
}

async function launch(opts: StartOptions, dataDir: string, ownDir: boolean): Promise<TestGateway> {
  // Every answer of every test gateway is checked against the schema its route declares (the
  // OpenAPI document's): a test that got an undeclared answer fails when its gateway stops.
  const answerCheck: AnswerCheck = opts.gatewayOptions?.answerCheck ?? { violations: [] };
  const gateway = createGateway(testSettings(dataDir, opts.overrides), {
    ...opts.gatewayOptions,
    answerCheck: opts.checkAnswers === false ? undefined : answerCheck,
  });
  let url: string;
  try {
    opts.beforeStart?.(gateway);
    url = await gateway.start();
  } catch (err) {
    await gateway.stop().catch(() => {});
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  let stopped = false;
  const halt = async (removeDir: boolean) => {
    if (stopped) return;
    stopped = true;
    await gateway.stop();
    if (removeDir && ownDir) rmSync(dataDir, { recursive: true, force: true });
    if (answerCheck.violations.length > 0)
      throw new Error(
        `answers outside their declared schema: ${JSON.stringify(answerCheck.violations).slice(0, 2000)}`,
      );
  };
  return {
    gateway,
    url,
    dataDir,
    token: (appName) => gateway.tokens.create(appName ?? null),
    async linkToken(appName = 'test-app') {
      gateway.tokens.press();
      const r = await call(url, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=${encodeURIComponent(appName)}`);
      if (r.json?.error !== 0) throw new Error(`no token: ${r.text}`);
      gateway.tokens.closeWindow();
      return r.json.data.token as string;
    },
    stop: () => halt(true),
    async restart(whileDown) {
      await halt(false);
      whileDown?.();
      return launch(opts, dataDir, ownDir);
    },
  };
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface CallOptions {
  token?: string;
  /** A JSON value, or a raw string sent as is (`'{'`, `''`). */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * One HTTP request with `Content-Type: application/json` (as every client sends); parses the
 * answer. Aborted after 20 s: a guard against hangs, not a timing assertion.
 */
export async function call(base: string, method: string, path: string, opts: CallOptions = {}): Promise<ApiAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  const body =
    opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const res = await fetch(`${base}${path}`, { method, headers, body, signal: AbortSignal.timeout(20_000) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** One frame of an event stream as read off the wire. */
export interface Frame {
  id?: string;
  event?: string;
  data: string[];
  retry?: string;
  comments: string[];
  raw: string;
}

/** Splits event-stream text into complete frames (the text after the last blank line is kept back). */
export function parseFrames(text: string): { frames: Frame[]; rest: string } {
  const frames: Frame[] = [];
  const parts = text.split('\n\n');
  const rest = parts.pop() as string;
  for (const raw of parts) {
    const f: Frame = { data: [], comments: [], raw };
    for (const line of raw.split('\n')) {
      if (line.startsWith(':')) f.comments.push(line.slice(1).trim());
      else if (line.startsWith('id: ')) f.id = line.slice(4);
      else if (line.startsWith('event: ')) f.event = line.slice(7);
      else if (line.startsWith('data: ')) f.data.push(line.slice(6));
      else if (line.startsWith('retry: ')) f.retry = line.slice(7);
    }
    frames.push(f);
  }
  return { frames, rest };
}

/** A raw event-stream reader over node:http: status, headers and every frame. */
export interface RawStream {
  status: number;
  headers: IncomingMessage['headers'];
  frames: Frame[];
  /** Every byte received, as text. */
  text(): string;
  /** Frames that carry an event (not pure comments). */
  events(): Frame[];
  /** Resolves once `pred` holds for the frames received so far (rejects when the stream ends first or after `ms`). */
  waitFor(pred: (frames: Frame[]) => boolean, ms?: number): Promise<Frame[]>;
  /** Resolves when the server ends or cuts the stream. */
  closed: Promise<void>;
  close(): void;
}

/** Opens GET <path> as a raw stream; resolves once the response head is in. */
export function openStream(base: string, path: string, headers: Record<string, string> = {}): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request(`${base}${path}`, { headers: { accept: 'text/event-stream', ...headers } });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      let buffer = '';
      const frames: Frame[] = [];
      const waiters = new Set<() => void>();
      let ended = false;
      let markClosed: () => void = () => {};
      const closed = new Promise<void>((done) => {
        markClosed = done;
      });
      const finish = () => {
        if (ended) return;
        ended = true;
        markClosed();
        for (const w of waiters) w();
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        buffer += chunk;
        const parsed = parseFrames(buffer);
        buffer = parsed.rest;
        frames.push(...parsed.frames);
        for (const w of waiters) w();
      });
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      req.on('error', finish);
      const stream: RawStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        frames,
        text: () => text,
        events: () => frames.filter((f) => f.event !== undefined),
        closed,
        waitFor(pred, ms = 10_000) {
          return new Promise((ok, fail) => {
            const check = () => {
              if (pred(frames)) {
                cleanup();
                ok(frames);
              } else if (ended) {
                cleanup();
                fail(new Error(`stream ended before the condition held; got:\n${text.slice(-2000)}`));
              }
            };
            const timer = setTimeout(() => {
              cleanup();
              fail(new Error(`condition not met within ${ms} ms; got:\n${text.slice(-2000)}`));
            }, ms);
            const cleanup = () => {
              clearTimeout(timer);
              waiters.delete(check);
            };
            waiters.add(check);
            check();
          });
        },
        close() {
          req.destroy();
          res.destroy();
        },
      };
      resolve(stream);
    });
    req.end();
  });
}

/** Polls `cond` every few ms until it holds; fails after `ms` (a guard against hangs, not a timing assertion). */
export async function eventually(cond: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`${what} did not hold within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Polls `fn` (which may be async) until it gives a value other than undefined or false; returns it. */
export async function waitForValue<T>(
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 10_000,
  what = 'value',
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`${what} did not come within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The REST path of `rest` under one API version segment (`v1`, `v2` or `V2`). */
export function rest(version: string, path: string): string {
  return `/open-api/${version}/rest/${path}`;
}

/** Version segments every REST and SSE test runs on. */
export const VERSIONS = ['v1', 'v2', 'V2'] as const;

/** Every REST route of the foundation (G1-G9, S1-S5) as [method, path under rest/]; `{sid}` is a security mode id. */
export const FOUNDATION_ROUTES: readonly (readonly [string, string])[] = [
  ['GET', 'bridge/access_token'],
  ['GET', 'bridge/runtime'],
  ['PUT', 'bridge/config'],
  ['GET', 'bridge'],
  ['PUT', 'bridge/mute'],
  ['PUT', 'bridge/unmute'],
  ['PUT', 'bridge/cancel_alarm'],
  ['POST', 'hardware/reboot'],
  ['POST', 'hardware/speaker'],
  ['GET', 'security'],
  ['PUT', 'security/{sid}/enable'],
  ['PUT', 'security/{sid}/disable'],
  ['PUT', 'security/enable'],
  ['PUT', 'security/disable'],
];

/** GET devices (D3) on one version segment: its `device_list` (asserts the call succeeded). */
export async function listDevices(base: string, token: string, version = 'v2'): Promise<any[]> {
  const r = await call(base, 'GET', rest(version, 'devices'), { token });
  assert.equal(r.json?.error, 0, r.text);
  return r.json.data.device_list;
}
