/**
 * The fuzzer: requests across every route of the OpenAPI document and every header form (API
 * versions v1, v2 and odd ones, odd bytes, odd authorization, random bodies and catalog bodies
 * mutated, huge and deeply nested bodies, raw malformed HTTP) against a real `opencube start`,
 * counting crashes, answers outside the envelope (or T1's event shape), 5xx, transport errors and
 * memory growth. Every URL it puts in a body points at 127.0.0.1; run it inside a private network
 * namespace (scripts/fuzz.ts does) so that nothing can leave the machine.
 */
import { connect } from 'node:net';
import { Pool } from 'undici';
import { capabilities } from '../../src/catalog/index.ts';
import { startFaultZoo } from '../../test/helpers/fault-zoo.ts';
import { tempDir } from '../../test/helpers/foundation.ts';
import { endpoint } from '../../test/helpers/thirdparty.ts';
import { type GatewayProcess, launchGateway, linkToken } from './gateway-process.ts';
import { Random } from './random.ts';

export interface FuzzOptions {
  requests: number;
  seed: number;
  concurrency?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

export interface Finding {
  method: string;
  path: string;
  status: number;
  excerpt: string;
}

export interface FuzzFigures {
  requests: number;
  raw: number;
  crashes: number;
  outsideEnvelope: number;
  serverErrors: number;
  transportErrors: number;
  /** Route templates exercised. */
  routes: number;
  /** Answers by envelope error code (T1: by header name; streams: `stream`). */
  codes: Record<string, number>;
  findings: Finding[];
  rss: { start: number; peak: number; end: number };
  seconds: number;
  /** The end of the gateway's stderr when it crashed. */
  crashLog?: string;
}

interface Route {
  method: string;
  template: string;
  hasBody: boolean;
}

const VERSIONS = ['v1', 'v2', 'V2', 'v2', 'v2', 'V1', 'v3', 'v02', ''];
const PROTO_KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'prototype'];
const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\u2028',
  '%00',
  '%E0%A4%A',
  '../../etc/passwd',
  'a'.repeat(600),
  '😀'.repeat(50),
  '<script>',
  '1e309',
  '-1',
  '0',
  ...PROTO_KEYS,
];
const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];
const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'json',
  ';',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
];

/** A random JSON value, at most `depth` deep. */
function randomJson(r: Random, depth: number): unknown {
  const kind = depth <= 0 ? r.int(0, 4) : r.int(0, 6);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, r.int(-1000, 100000)]);
    case 3:
      return r.chance(0.3) ? r.pick(ODD_STRINGS) : r.string(r.int(0, 20));
    case 4:
      return r.pick(['on', 'off', 'toggle', 'c', 'f', '1', 'Zigbee', 'play_sound', 'alert1']);
    case 5:
      return Array.from({ length: r.int(0, 4) }, () => randomJson(r, depth - 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = r.int(0, 5); i > 0; i--) {
        const key = r.chance(0.1) ? r.pick(PROTO_KEYS) : r.chance(0.5) ? r.pick(FIELD_NAMES) : r.string(r.int(1, 8));
        o[key] = randomJson(r, depth - 1);
      }
      return o;
    }
  }
}

/** Field names the routes read, so that random bodies reach past the first check. */
const FIELD_NAMES = [
  'state',
  'name',
  'tags',
  'capabilities',
  'configuration',
  'enable',
  'type',
  'volume',
  'sound',
  'beep',
  'countdown',
  'query_state',
  'event',
  'header',
  'payload',
  'endpoint',
  'endpoints',
  'serial_number',
  'third_serial_number',
  'text',
  'engine',
  'audio_url',
  'exit_delay_seconds',
  'power',
  'powerState',
];

/** Sets `value` at a random place of a JSON value. */
function mutate(r: Random, base: unknown, value: unknown, depth = 0): unknown {
  if (base === null || typeof base !== 'object' || depth > 6 || r.chance(0.2)) return value;
  if (Array.isArray(base)) {
    if (base.length === 0) return [value];
    const copy = [...base];
    const i = r.int(0, copy.length - 1);
    copy[i] = mutate(r, copy[i], value, depth + 1);
    return copy;
  }
  const copy: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  const keys = Object.keys(copy);
  if (keys.length === 0 || r.chance(0.15)) copy[r.chance(0.3) ? r.pick(PROTO_KEYS) : r.string(4)] = value;
  else if (r.chance(0.1)) delete copy[r.pick(keys)];
  else {
    const k = r.pick(keys);
    copy[k] = mutate(r, copy[k], value, depth + 1);
  }
  return copy;
}

interface World {
  token: string;
  serials: string[];
  caps: string[];
  service: string;
  engineId: string;
}

/** Valid bodies per route, from the catalog and the spec, that mutations start from. */
function catalogBodies(w: World, r: Random): Record<string, unknown[]> {
  const controls = capabilities.flatMap((c) => c.examples.control ?? []);
  const reports = capabilities.flatMap((c) => c.examples.report ?? []);
  const header = (name: string) => ({ name, message_id: crypto.randomUUID(), version: r.pick(['1', '2']) });
  const serial = () => r.pick(w.serials);
  return {
    'devices/{serial_number}': [
      ...controls.map((state) => ({ state })),
      { name: 'renamed' },
      { tags: { room: 'hall', toggle: { '1': 'left' } } },
      { capabilities: capabilities[3]?.examples.declaration ?? [] },
    ],
    'devices/{serial_number}/query-state/{capability}': [
      { query_state: {} },
      { query_state: { 'power-consumption': { type: 'rlSummarize' } } },
    ],
    'thirdparty/event': [
      { event: { header: header('DiscoveryRequest'), payload: { endpoints: [endpoint(r.string(6), w.service)] } } },
      ...reports.map((state) => ({
        event: {
          header: header('DeviceStatesChangeReport'),
          endpoint: { serial_number: serial() },
          payload: { state },
        },
      })),
      {
        event: {
          header: header('DeviceOnlineChangeReport'),
          endpoint: { serial_number: serial() },
          payload: { online: r.chance(0.5) },
        },
      },
      {
        event: {
          header: header('DeviceInformationUpdatedReport'),
          endpoint: { serial_number: serial() },
          payload: { capabilities: [], tags: { a: 1 } },
        },
      },
      { event: { header: header('RegisterTTSEngine'), payload: { service_address: w.service, name: 'fuzz engine' } } },
    ],
    'bridge/config': [{ volume: 50 }],
    'hardware/speaker': [
      { type: 'play_sound', sound: { name: 'alert1', volume: 10, countdown: 1 } },
      { type: 'play_beep', beep: { name: 'bootComplete', volume: 10 } },
    ],
    'devices/discovery': [{ enable: true, type: 'Zigbee' }],
    devices: [
      {
        name: 'cam',
        display_category: 'camera',
        protocal: 'RTSP',
        manufacturer: 'x',
        model: 'y',
        firmware_version: '1',
        capabilities: [{ capability: 'camera-stream', permission: '0010' }],
        configuration: {},
      },
    ],
    'security/{security_id}/config': [{ exit_delay_seconds: 0, entry_delay_seconds: 0 }],
    'tts/engine/{id}/synthesize': [{ text: 'hello' }],
    'tts/speak': [{ text: 'hi' }],
    'media/audio-player': [{ audio_url: `${w.service.replace(/\/[^/]*$/, '')}/garbage`, volume: 5 }],
  };
}

/** Percent-encodes any string, lone surrogates included (as U+FFFD, as a client's encoder would). */
function enc(s: string): string {
  return [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** A path parameter: mostly one that exists, sometimes anything. */
function param(r: Random, name: string, w: World): string {
  if (r.chance(0.25)) return r.chance(0.2) ? r.pick(['%E0%A4%A', '%', '..', '%2F']) : enc(r.pick(ODD_STRINGS)) || 'x';
  switch (name) {
    case 'serial_number':
      return r.pick(w.serials);
    case 'capability':
      return r.pick(w.caps);
    case 'security_id':
      return String(r.int(0, 4));
    case 'id':
      return r.chance(0.7) ? w.engineId : 'builtin';
    default:
      return r.string(8);
  }
}

interface Request {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
  /** What the answer must look like. */
  shape: 'envelope' | 'event' | 'stream' | 'document' | 'media' | 'csv' | 'any';
}

function makeRequest(r: Random, routes: Route[], w: World, bodies: Record<string, unknown[]>): Request {
  let route = r.pick(routes);
  // Speech is synthesised for real (tens of ms of CPU each): fewer of those, more of the rest.
  while (/tts\/(speak|engine)/.test(route.template) && r.chance(0.85)) route = r.pick(routes);
  const version = r.chance(0.9) ? r.pick(['v1', 'v2', 'V2']) : r.pick(VERSIONS);
  const under = route.template.replace(/^\/open-api\/v\d+\//, '');
  const filled = under.replace(/\{(\w+)\}/g, (_m, name: string) => param(r, name, w));
  const versioned = /^\/open-api\/v\d+\//.test(route.template);
  let path = versioned ? `/open-api/${version}/${filled}` : route.template;
  let served = !versioned || /^v[12]$/i.test(version);
  if (r.chance(0.05) && path.includes('/rest/')) {
    const mangle = r.pick(['//rest//', '/REST/', '/rest/./']);
    path = path.replace(/\/rest\//, mangle);
    // Duplicate slashes are ignored by the router; the others name no route.
    if (mangle !== '//rest//') served = false;
  }
  if (r.chance(0.1)) path += `${path.includes('?') ? '&' : '?'}${r.string(3)}=${enc(r.pick(ODD_STRINGS))}`;
  if (route.template.endsWith('/sse/bridge') || route.template.includes('/cameras/'))
    path += `${path.includes('?') ? '&' : '?'}access_token=${r.chance(0.8) ? w.token : r.string(10)}`;
  const method = r.chance(0.93) ? route.method : r.pick(METHODS);
  const headers: Record<string, string> = {};
  const auth = r.next();
  if (auth < 0.8) headers.authorization = `Bearer ${w.token}`;
  else if (auth < 0.84) headers.authorization = '';
  else if (auth < 0.87) headers.authorization = 'Bearer';
  else if (auth < 0.9) headers.authorization = `bearer ${w.token}`;
  else if (auth < 0.93) headers.authorization = `Bearer ${w.token} extra`;
  else if (auth < 0.96) headers.authorization = `Bearer ${r.string(r.int(1, 4000))}`;
  if (r.chance(0.05)) headers['last-event-id'] = r.pick(['0', '-1', 'abc', '99999999999999999999', '', ' 12 ', '1.5']);
  let body: Buffer | string | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    headers['content-type'] = r.pick(CONTENT_TYPES);
    const kind = r.next();
    const valid = bodies[under.replace(/^rest\//, '')] ?? [];
    if (kind < 0.1) body = undefined;
    else if (kind < 0.45 && valid.length > 0) body = JSON.stringify(r.pick(valid));
    else if (kind < 0.8 && valid.length > 0) body = JSON.stringify(mutate(r, r.pick(valid), randomJson(r, 3)));
    else if (kind < 0.9) body = JSON.stringify(randomJson(r, 5));
    else if (kind < 0.94) body = r.bytes(r.int(1, 200));
    else if (kind < 0.96) body = `${'['.repeat(r.int(70, 100_000))}${']'.repeat(r.chance(0.5) ? 0 : 10)}`;
    else if (kind < 0.97)
      body = JSON.stringify({ state: { power: { powerState: 'a'.repeat(r.pick([1_100_000, 70_000])) } } });
    else if (kind < 0.98) body = '{"name":"\\ud800"}';
    else body = r.pick(['', ' ', '{', 'null', '[]', '"x"', '1e309', '{"a":1,"a":2}']);
  }
  const shape = !served
    ? 'envelope'
    : route.template.endsWith('/sse/bridge')
      ? 'stream'
      : route.template.endsWith('thirdparty/event') && method === 'POST'
        ? 'event'
        : route.template.endsWith('.json')
          ? 'document'
          : /\/(cameras|tts\/audio)\//.test(route.template)
            ? 'media'
            : route.template.endsWith('/csv')
              ? 'csv'
              : 'envelope';
  return { method, path, headers, body, shape };
}

/** Why an answer is outside what its route promises, or undefined when it is fine. */
function judge(req: Request, status: number, type: string, text: string, pathMatched: boolean): string | undefined {
  if (req.method === 'HEAD' || req.method === 'OPTIONS') return status >= 500 ? `HTTP ${status}` : undefined;
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const isEnvelope =
    json !== undefined &&
    Number.isInteger(json.error) &&
    json.data !== null &&
    typeof json.data === 'object' &&
    // A success's data is an object, but on ui/cards the array of cards (docs/api.md).
    (!Array.isArray(json.data) || json.error === 0) &&
    typeof json.message === 'string' &&
    json.message.length > 0 &&
    (json.error !== 0 || json.message === 'success') &&
    (json.error === 0 || Object.keys(json.data).length === 0);
  if (isEnvelope && json.error === 500) return 'envelope error 500';
  if (!pathMatched || req.shape === 'envelope') return isEnvelope ? undefined : 'not the envelope';
  if (req.shape === 'event') {
    if (isEnvelope && json.error === 404) return undefined; // another method on the path
    const ok =
      status === 200 &&
      json?.header &&
      ['Response', 'ErrorResponse'].includes(json.header.name) &&
      typeof json.header.message_id === 'string' &&
      json.payload !== null &&
      typeof json.payload === 'object';
    return ok ? undefined : 'not the T1 event shape';
  }
  if (req.shape === 'stream') {
    if (status === 200 && type.startsWith('text/event-stream')) return undefined;
    if (status === 401 && json?.error === 401) return undefined;
    return isEnvelope ? undefined : 'neither a stream nor the 401 body';
  }
  // An export (the history's CSV): the file, or the envelope when the query is refused.
  if (req.shape === 'csv')
    return isEnvelope || (status === 200 && type.startsWith('text/csv')) ? undefined : 'neither CSV nor the envelope';
  if (req.shape === 'document') return json !== undefined || isEnvelope ? undefined : 'not JSON';
  return isEnvelope || (status === 200 && !type.startsWith('application/json'))
    ? undefined
    : 'neither media nor the envelope';
}

/** What an answer says in one word: its envelope code, T1 header name, or kind. */
function codeOf(type: string, text: string): string {
  if (type.startsWith('text/event-stream')) return 'stream';
  try {
    const json = JSON.parse(text);
    if (Number.isInteger(json.error)) return String(json.error);
    if (json.header?.name) return `T1 ${json.header.name}`;
    return 'json';
  } catch {
    return type.split(';')[0] || 'empty';
  }
}

/** Raw requests: HTTP that clients should never send. */
function rawRequest(r: Random, w: World): Buffer {
  const path = `/open-api/v2/rest/${r.pick(['devices', 'bridge', 'security/1/enable', 'thirdparty/event'])}`;
  const forms = [
    () =>
      `${r.pick(['GET', 'PUT', 'FOO', 'get'])} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${w.token}\r\nConnection: close\r\n\r\n`,
    () => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \u00e9\u00ff\r\nConnection: close\r\n\r\n`,
    () =>
      `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${w.token}\r\nAuthorization: Bearer other\r\nConnection: close\r\n\r\n`,
    () =>
      `PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n`,
    () => `PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\nConnection: close\r\n\r\n`,
    () => `GET ${path}\u0000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    () => `GET ${path} HTTP/1.1\r\nHost: x\r\nX: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
    () => `GET ${path} HTTP/9.9\r\nConnection: close\r\n\r\n`,
    () => `${r.bytes(r.int(1, 100)).toString('latin1')}\r\n\r\n`,
    () => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\nGET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
  ];
  return Buffer.from(r.pick(forms)(), 'latin1');
}

/** Sends raw bytes; resolves with what came back before the connection closed (10 s guard). */
function sendRaw(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.on('data', (c) => {
      text += c.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.end(bytes);
  });
}

/** Whether every HTTP answer in raw text carries the envelope. */
function rawAnswersOk(text: string): string | undefined {
  if (text === '') return undefined; // the server may close a connection it cannot read
  for (const part of text.split(/(?=HTTP\/1\.1 \d{3})/)) {
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(part)?.[1]);
    if (status >= 500) return `HTTP ${status}`;
    const body = part.split('\r\n\r\n').slice(1).join('\r\n\r\n');
    if (/content-type: text\/event-stream/i.test(part)) continue;
    try {
      const json = JSON.parse(body);
      if (!(Number.isInteger(json.error) || json.header)) return 'raw answer without the envelope';
    } catch {
      if (!/transfer-encoding: chunked/i.test(part)) return 'raw answer that is not JSON';
    }
  }
  return undefined;
}

/** Sets up a gateway with devices of every capability, runs the requests, and stops it. */
export async function runFuzz(opts: FuzzOptions): Promise<FuzzFigures> {
  const log = opts.log ?? (() => {});
  const r = new Random(opts.seed);
  const zoo = await startFaultZoo();
  const dataDir = tempDir('opencube-fuzz-');
  let g: GatewayProcess | undefined;
  let crashes = 0;
  try {
    g = await launchGateway({ dataDir });
    const gw = g;
    const token = await linkToken(gw, 'fuzz');
    const service = zoo.address('garbage');
    // One device per capability (its catalog declaration), behind a service that always answers.
    const endpoints = capabilities
      .filter((c) => c.capability !== 'camera-stream')
      .map((c) => endpoint(`cap-${c.capability}`, service, { capabilities: c.examples.declaration, state: {} }));
    const sync = await fetch(`${gw.url}/open-api/v2/rest/thirdparty/event`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        event: {
          header: { name: 'DiscoveryRequest', message_id: crypto.randomUUID(), version: '1' },
          payload: { endpoints },
        },
      }),
    }).then((x) => x.json() as Promise<any>);
    if (sync.header?.name !== 'Response') throw new Error(`setup failed: ${JSON.stringify(sync).slice(0, 500)}`);
    const engine = await fetch(`${gw.url}/open-api/v2/rest/thirdparty/event`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        event: {
          header: { name: 'RegisterTTSEngine', message_id: crypto.randomUUID(), version: '1' },
          payload: { service_address: service, name: 'fuzz' },
        },
      }),
    }).then((x) => x.json() as Promise<any>);
    const world: World = {
      token,
      serials: sync.payload.endpoints.map((e: { serial_number: string }) => e.serial_number),
      caps: capabilities.map((c) => c.capability),
      service,
      engineId: engine.payload?.engine_id ?? 'none',
    };
    const doc = (await fetch(`${gw.url}/open-api/openapi.json`).then((x) => x.json())) as {
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    const routes: Route[] = Object.entries(doc.paths).flatMap(([template, ops]) =>
      Object.entries(ops)
        .map(([method, op]) => ({ method: method.toUpperCase(), template, hasBody: op.requestBody !== undefined }))
        // A reboot with a valid token restarts the gateway: it is sent with bad tokens only (below).
        .filter((x) => !x.template.endsWith('hardware/reboot')),
    );
    routes.push(
      ...['/open-api/openapi.json', '/open-api/asyncapi.json', '/nowhere', '/open-api/v2/rest/nothing'].map(
        (template) => ({ method: 'GET', template, hasBody: false }),
      ),
    );
    const bodies = catalogBodies(world, r);
    const pool = new Pool(gw.url, { connections: opts.concurrency ?? 32, pipelining: 1 });
    const figures: FuzzFigures = {
      requests: 0,
      raw: 0,
      crashes: 0,
      outsideEnvelope: 0,
      serverErrors: 0,
      transportErrors: 0,
      routes: routes.length,
      codes: {},
      findings: [],
      rss: { start: gw.rss(), peak: 0, end: 0 },
      seconds: 0,
    };
    const started = performance.now();
    let crashed = false;
    void gw.exited.then(() => {
      crashed = true;
    });
    const note = (req: { method: string; path: string }, status: number, why: string, text: string) => {
      if (figures.findings.length < 30)
        figures.findings.push({
          method: req.method,
          path: req.path.slice(0, 160),
          status,
          excerpt: `${why}: ${text.slice(0, 200)}`,
        });
    };
    const one = async (i: number) => {
      if (i === 1000) figures.rss.start = gw.rss();
      if (r.chance(0.03)) {
        figures.raw++;
        const text = await sendRaw(gw.port, rawRequest(r, world));
        const why = rawAnswersOk(text);
        if (why) {
          if (why.startsWith('HTTP 5')) figures.serverErrors++;
          else figures.outsideEnvelope++;
          note({ method: 'RAW', path: '' }, 0, why, text);
        }
        return;
      }
      const req = r.chance(0.002)
        ? {
            ...makeRequest(r, routes, world, bodies),
            method: 'POST',
            path: '/open-api/v2/rest/hardware/reboot',
            headers: { authorization: 'Bearer nope' },
            shape: 'envelope' as const,
          }
        : makeRequest(r, routes, world, bodies);
      try {
        const res = await pool.request({
          method: req.method as 'GET',
          path: req.path,
          headers: req.headers,
          body: req.body,
          headersTimeout: 20_000,
          bodyTimeout: 20_000,
        });
        const type = String(res.headers['content-type'] ?? '');
        let text = '';
        if (type.startsWith('text/event-stream')) res.body.on('error', () => {}).destroy();
        else text = await res.body.text();
        if (res.statusCode >= 500) {
          figures.serverErrors++;
          note(req, res.statusCode, `HTTP ${res.statusCode}`, text);
          return;
        }
        figures.codes[codeOf(type, text)] = (figures.codes[codeOf(type, text)] ?? 0) + 1;
        const why = judge(req, res.statusCode, type, text, res.statusCode !== 404);
        if (why === 'envelope error 500') {
          figures.serverErrors++;
          note(req, res.statusCode, why, text);
        } else if (why) {
          figures.outsideEnvelope++;
          note(req, res.statusCode, why, text);
        }
      } catch (err) {
        // A connection the server closed on purpose (a body it refuses to read) is not a finding
        // unless the gateway is gone.
        figures.transportErrors++;
        if (figures.transportErrors <= 5)
          log(`transport: ${req.method} ${req.path.slice(0, 80)}: ${(err as Error).message}`);
      }
    };
    let next = 0;
    const worker = async () => {
      while (next < opts.requests && !crashed) {
        const i = next++;
        figures.requests++;
        await one(i);
        if (i % 500 === 0) figures.rss.peak = Math.max(figures.rss.peak, gw.rss());
        if (i > 0 && i % 10_000 === 0) log(`${i} requests, rss ${(gw.rss() / 1048576).toFixed(0)} MB`);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency ?? 32 }, worker));
    figures.seconds = (performance.now() - started) / 1000;
    await pool.close();
    if (crashed || !gw.alive()) {
      crashes++;
      figures.crashes = crashes;
      figures.crashLog = gw.cli.stderr().slice(-3000);
    } else {
      figures.rss.end = gw.rss();
      figures.rss.peak = Math.max(figures.rss.peak, figures.rss.end);
    }
    return figures;
  } finally {
    await g?.stop().catch(() => {});
    await zoo.close();
    const { rmSync } = await import('node:fs');
    rmSync(dataDir, { recursive: true, force: true });
  }
}
