/**
 * Helpers of the device and third-party tests: a gateway on 127.0.0.1 port 0 with a temporary
 * data folder (restartable on the same folder), a token obtained the way clients get one (a
 * press of the link button, then a poll), a JSON client, and small third-party services.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { loadSettings } from '../../src/settings/index.ts';

export interface StartedGateway {
  gw: Gateway;
  url: string;
  dataDir: string;
  /** Stops the gateway (the data folder stays until cleanup()). */
  stop(): Promise<void>;
  /** Stops it and starts a new gateway on the same data folder. */
  restart(): Promise<StartedGateway>;
  /** Removes the data folder. */
  cleanup(): void;
}

export interface StartOptions {
  dataDir?: string;
  /** Setting overrides, e.g. `{ thirdparty: { timeout_ms: 500 } }`. */
  settings?: Record<string, unknown>;
}

/** Starts a gateway on 127.0.0.1, port 0, mDNS and Zigbee off, quiet logs. */
export async function startGateway(opts: StartOptions = {}): Promise<StartedGateway> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'opencube-devices-'));
  const settings = loadSettings({
    overrides: {
      port: 0,
      host: '127.0.0.1',
      mdns: false,
      data_dir: dataDir,
      log_level: 'silent',
      ...opts.settings,
      zigbee: { mode: 'off', ...((opts.settings?.zigbee as object) ?? {}) },
    },
  });
  const gw = createGateway(settings);
  const url = await gw.start();
  const started: StartedGateway = {
    gw,
    url,
    dataDir,
    stop: () => gw.stop(),
    async restart() {
      await gw.stop();
      return startGateway({ ...opts, dataDir });
    },
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
  return started;
}

export interface Answer {
  status: number;
  json: any;
  text: string;
}

/** One request with a JSON body (or none) and `Content-Type: application/json`, as clients send. */
export async function api(
  url: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const res = await fetch(`${url}${path}`, { method, headers, body, signal: AbortSignal.timeout(20_000) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

/** A token the way clients get one: the link button is pressed, then the client polls G1. */
export async function getToken(g: StartedGateway, appName = 'test-app'): Promise<string> {
  g.gw.tokens.press();
  const r = await api(g.url, 'GET', `/open-api/v2/rest/bridge/access_token?app_name=${encodeURIComponent(appName)}`);
  if (r.json?.error !== 0) throw new Error(`no token: ${r.text}`);
  g.gw.tokens.closeWindow();
  return r.json.data.token as string;
}

/** Sends one T1 event; returns the parsed reply. */
export async function sendEvent(
  g: { url: string },
  token: string | undefined,
  name: string,
  payload: unknown,
  opts: { endpoint?: unknown; version?: string; messageId?: string; path?: string } = {},
): Promise<Answer> {
  const header: Record<string, unknown> = {
    name,
    message_id: opts.messageId ?? crypto.randomUUID(),
    version: opts.version ?? '1',
  };
  const event: Record<string, unknown> = { header, payload };
  if (opts.endpoint !== undefined) event.endpoint = opts.endpoint;
  return api(g.url, 'POST', opts.path ?? '/open-api/v2/rest/thirdparty/event', { token, body: { event } });
}

/** A third-party endpoint as DiscoveryRequest sends it. */
export function endpoint(third: string, serviceAddress: string, extra: Record<string, unknown> = {}) {
  return {
    third_serial_number: third,
    name: `Device ${third}`,
    display_category: 'light',
    capabilities: [
      { capability: 'power', permission: '1100' },
      { capability: 'brightness', permission: '1100' },
      { capability: 'toggle', permission: '1100', name: '1' },
      { capability: 'toggle', permission: '1100', name: '2' },
    ],
    state: { power: { powerState: 'off' }, brightness: { brightness: 10 } },
    manufacturer: 'ACME',
    model: 'L1',
    firmware_version: '1.0.0',
    service_address: serviceAddress,
    ...extra,
  };
}

/** What a third-party service got: one directive. */
export interface Received {
  body: any;
  headers: IncomingMessage['headers'];
}

export type ServiceHandler = (directive: any, req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface Service {
  url: string;
  received: Received[];
  /** Replaces how the service answers. */
  handle(handler: ServiceHandler): void;
  close(): Promise<void>;
}

/** The common success reply of a provider. */
export function successReply(directive: any): unknown {
  return {
    event: {
      header: {
        name: 'UpdateDeviceStatesResponse',
        message_id: directive?.directive?.header?.message_id,
        version: '1',
      },
      payload: {},
    },
  };
}

/** A small third-party service on 127.0.0.1 that records directives and answers by `handler`. */
export async function startService(handler?: ServiceHandler): Promise<Service> {
  let current: ServiceHandler =
    handler ??
    ((d, _req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(successReply(d)));
    });
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      received.push({ body, headers: req.headers });
      Promise.resolve(current(body, req, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/directive`,
    received,
    handle(h) {
      current = h;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** A service address where nothing listens (a port that was just free). */
export async function deadAddress(): Promise<string> {
  const s = createServer();
  await new Promise<void>((done) => s.listen(0, '127.0.0.1', done));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((done) => s.close(() => done()));
  return `http://127.0.0.1:${port}/directive`;
}
