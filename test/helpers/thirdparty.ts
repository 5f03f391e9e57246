/**
 * Helpers of the third-party tests (T1 events, directives to third-party services): sending an
 * event, an endpoint as DiscoveryRequest sends it, and small third-party services on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ApiAnswer, call, rest } from './foundation.ts';

export interface SendEventOptions {
  endpoint?: unknown;
  version?: string;
  messageId?: string;
  /** The request path; defaults to `thirdparty/event` under `apiVersion`. */
  path?: string;
  /** The API version segment of the default path (`v1`, `v2`, `V2`); defaults to `v2`. */
  apiVersion?: string;
  /** The Authorization header as sent (`''` included); defaults to `Bearer <token>`. */
  authorization?: string;
}

/** Sends one T1 event as clients do (`{event: {header, endpoint?, payload}}`); returns the parsed reply. */
export async function sendEvent(
  g: { url: string },
  token: string | undefined,
  name: string,
  payload: unknown,
  opts: SendEventOptions = {},
): Promise<ApiAnswer> {
  const header = { name, message_id: opts.messageId ?? crypto.randomUUID(), version: opts.version ?? '1' };
  const event = opts.endpoint === undefined ? { header, payload } : { header, endpoint: opts.endpoint, payload };
  const path = opts.path ?? rest(opts.apiVersion ?? 'v2', 'thirdparty/event');
  if (opts.authorization !== undefined) {
    return call(g.url, 'POST', path, { body: { event }, headers: { authorization: opts.authorization } });
  }
  return call(g.url, 'POST', path, { token, body: { event } });
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
  /** The exact bytes received, as text. */
  raw: string;
}

export type ServiceHandler = (directive: any, req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface Service {
  url: string;
  received: Received[];
  /** Replaces how the service answers. */
  handle(handler: ServiceHandler): void;
  close(): Promise<void>;
}

/** The common success reply of a provider: wrapped, UpdateDeviceStatesResponse, message_id and version echoed. */
export function successReply(directive: any): unknown {
  const h = directive?.directive?.header ?? {};
  return {
    event: {
      header: { name: 'UpdateDeviceStatesResponse', message_id: h.message_id, version: h.version ?? '1' },
      payload: {},
    },
  };
}

/** Answers 200 with `value` (a string is sent as is, anything else as JSON) and a Content-Length. */
export function sendJson(res: ServerResponse, value: unknown, type = 'application/json'): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A small third-party service on 127.0.0.1 that records directives and answers by `handler`. */
export async function startService(handler?: ServiceHandler): Promise<Service> {
  let current: ServiceHandler = handler ?? ((d, _req, res) => sendJson(res, successReply(d)));
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      received.push({ body, headers: req.headers, raw });
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
