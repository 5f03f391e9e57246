/**
 * The Open API's event stream (spec 6, COMPAT.md): which domain events its clients see, under
 * which names (`<module>#<version>#<messageType>`, the version of the URL the stream was opened
 * on), with which payloads; and the stream route `GET /open-api/{v1,v2}/sse/bridge?access_token=`.
 * A revoked token's streams end at once; a factory reset ends them all. The AsyncAPI document is
 * generated from these declarations.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { any, bool, int, map, obj, oneOf, opt, type Schema, str } from '../../catalog/schema.ts';
import type { BusEvent, EventName } from '../../core/event-bus.ts';
import type { TokenService } from '../../core/tokens.ts';
import { GAP_EVENT, type Projection, type StreamWriter } from '../stream/writer.ts';
import { API_VERSIONS } from './versions.ts';
import { deviceObject } from './wire.ts';

const endpoint = obj({
  serial_number: str(),
  third_serial_number: opt(str({ doc: 'devices connected through the open interface' })),
});

/** Every event an Open API client sees, with the schema of its `data`. */
export const OPEN_API_EVENTS: OpenApiEvents = {
  'device#addDevice': { summary: 'A device was added', data: obj({ payload: deviceObject }) },
  'device#updateDeviceState': {
    summary: 'What changed of a device state (a press is always an event)',
    data: obj({ endpoint, payload: map(any(), { doc: 'capability -> its new state' }) }),
  },
  'device#updateDeviceInfo': {
    summary: "A device's name, capabilities or tags changed (`tags` only when they changed; null: removed)",
    data: obj({
      endpoint,
      payload: obj({ name: str(), capabilities: opt(any('capability objects')), tags: opt(any('object or null')) }),
    }),
  },
  'device#updateDeviceOnline': {
    summary: 'A device went online or offline',
    data: obj({ endpoint, payload: obj({ online: bool() }) }),
  },
  'device#deleteDevice': { summary: 'A device was removed', data: obj({ endpoint }) },
  'security#updateArmState': {
    summary: 'A security mode was armed or disarmed',
    data: obj({
      payload: obj({ arm_state: oneOf('arming', 'disarming'), detail: obj({ sid: int(), name: str() }) }),
    }),
  },
  'bridge#updateAlarmState': {
    summary: 'The alarm state changed',
    data: obj({ payload: obj({ alarm_state: str() }) }),
  },
};

/** The gap event a resuming client gets when events it missed are gone. */
export const GAP_EVENT_DATA: Schema = obj({
  payload: obj({
    last_event_id: int(),
    oldest_event_id: opt(int({ doc: 'null when none is kept' })),
    current_event_id: int(),
  }),
});
export { GAP_EVENT };

/** Open API events with their schemas: these and the ones integrations add. */
export type OpenApiEvents = Readonly<Partial<Record<EventName, { summary: string; data: Schema }>>>;

/**
 * The Open API clients' view of the bus: the gateway's own events and those the integrations add
 * (`extra`, known once they are loaded); a revoked token's streams end.
 */
export function openApiProjectionOf(extra: () => OpenApiEvents): Projection {
  return {
    project(event: BusEvent, version: string) {
      if (!OPEN_API_EVENTS[event.name] && !extra()[event.name]) return undefined;
      return { name: `${event.module}#${version}#${event.type}`, json: event.json };
    },
    ends(event: BusEvent) {
      if (event.name === 'token#revoked') return [(event.data as { payload: { token_id: string } }).payload.token_id];
      if (event.name === 'token#cleared') return ['*'];
      return undefined;
    },
  };
}

/** The Open API clients' view of the bus, of the gateway's own events. */
export const openApiProjection: Projection = openApiProjectionOf(() => ({}));

const INVALID_TOKEN = JSON.stringify({ error: 401, data: {}, message: 'invalid access_token' });

function parseLastEventId(header: unknown, query: unknown): number | null {
  const raw = (Array.isArray(header) ? header[0] : header) ?? query;
  if (typeof raw !== 'string' || !/^\d{1,16}$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

/**
 * Opens a stream for a request whose token and Last-Event-ID come from `query` (a repeated
 * parameter arrives as an array, and is not one token): 401 without a valid token, the head of a
 * stream for HEAD, else the writer takes the response over.
 */
function openStream(
  tokens: TokenService,
  writer: StreamWriter,
  version: string,
  req: IncomingMessage,
  res: ServerResponse,
  query: { access_token?: unknown; lastEventId?: unknown },
): void {
  const token = tokens.verify(typeof query.access_token === 'string' ? query.access_token : undefined);
  const head = { 'Content-Type': 'application/json; charset=utf-8', 'Access-Control-Allow-Origin': '*' };
  // 401, not 200 and not 5xx: EventSource clients stop instead of retrying forever.
  if (!token) {
    res.writeHead(401, { ...head, 'Content-Length': Buffer.byteLength(INVALID_TOKEN) });
    res.end(INVALID_TOKEN);
    return;
  }
  // HEAD gets the head of a stream and no body (a stream that never ends would hang it).
  if (req.method === 'HEAD') {
    res.writeHead(200, { ...head, 'Content-Type': 'text/event-stream; charset=utf-8' });
    res.end();
    return;
  }
  writer.attach(
    res,
    { variant: version, principal: token.id },
    parseLastEventId(req.headers['last-event-id'], query.lastEventId),
  );
}

/** The stream route of one API version: GET /open-api/<v>/sse/bridge?access_token=... */
export function streamRoute(tokens: TokenService, writer: StreamWriter, version: string) {
  return async (app: FastifyInstance) => {
    app.get('/bridge', async (req, reply) => {
      reply.hijack();
      openStream(tokens, writer, version, req.raw, reply.raw, req.query as Record<string, unknown>);
    });
  };
}

/** `/open-api/<version>/sse/bridge`, the version in any case, with its query. */
const STREAM_PATH = /^\/open-api\/(v\d+)\/sse\/bridge\/?(?:\?(.*))?$/i;

/**
 * The stream route ahead of Fastify (src/http/server.ts, `rawRoutes`): a stream lives for hours,
 * and what Fastify keeps for a request (its request and reply objects, their listeners, the
 * rewritten URL) would be held for all that time, a quarter of a stream's memory (issue 29).
 * Takes the canonical path only (GET or HEAD); any other spelling goes on to the Fastify route,
 * which answers the same way.
 */
export function rawStreamRoute(
  tokens: TokenService,
  writer: StreamWriter,
): (req: IncomingMessage, res: ServerResponse) => string | undefined {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    const m = STREAM_PATH.exec(req.url ?? '');
    const version = m?.[1]?.toLowerCase();
    if (!m || !(API_VERSIONS as readonly string[]).includes(version as string)) return undefined;
    const params = new URLSearchParams(m[2] ?? '');
    const one = (name: string) => {
      const all = params.getAll(name);
      return all.length === 1 ? all[0] : all.length === 0 ? undefined : all;
    };
    openStream(tokens, writer, version as string, req, res, {
      access_token: one('access_token'),
      lastEventId: one('lastEventId'),
    });
    return `/open-api/${version}/sse/bridge`;
  };
}
