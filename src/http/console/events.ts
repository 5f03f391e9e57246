/**
 * The console's event stream: which domain events a console sees (devices, the link requests,
 * arm and alarm states, pairing, tokens and sessions), under their bus names
 * (`device#updateDeviceState`, `link#waiting`), on the same stream writer as the Open API's, as
 * its own audience: `GET /console/api/events` with the session cookie. A session that ends
 * (logout, revoked, a password change) ends its streams at once.
 */
import type { FastifyInstance } from 'fastify';
import type { BusEvent, EventName } from '../../core/event-bus.ts';
import type { Projection, StreamWriter } from '../stream/writer.ts';
import type { ConsoleAccess } from './access.ts';
import { eventWithoutCredentials } from './camera-view.ts';
import { COOKIE, cookieValue } from './route.ts';

/** The events a console receives. */
export const CONSOLE_EVENTS: ReadonlySet<EventName> = new Set<EventName>([
  'device#addDevice',
  'device#updateDeviceState',
  'device#updateDeviceInfo',
  'device#updateDeviceOnline',
  'device#deleteDevice',
  'security#updateArmState',
  'bridge#updateAlarmState',
  'link#waiting',
  'link#window',
  'token#revoked',
  'token#cleared',
  'session#revoked',
  'pairing#window',
]);

/** Events that carry a device's capabilities, a camera's account among them. */
const WITH_CAPABILITIES: ReadonlySet<EventName> = new Set<EventName>(['device#addDevice', 'device#updateDeviceInfo']);

/**
 * The console's view of the bus: its own events and those the integrations add (`extra`, known
 * once they are loaded); a camera's password never reaches a page (camera-view.ts).
 */
export function consoleProjectionOf(extra: () => readonly EventName[]): Projection {
  return {
    project(event: BusEvent) {
      if (!CONSOLE_EVENTS.has(event.name) && !extra().includes(event.name)) return undefined;
      if (WITH_CAPABILITIES.has(event.name) && event.json.includes('"camera-stream"')) {
        const data = event.data as { payload?: unknown };
        return { name: event.name, json: JSON.stringify({ ...data, payload: eventWithoutCredentials(data.payload) }) };
      }
      return { name: event.name, json: event.json };
    },
    ends(event: BusEvent) {
      if (event.name !== 'session#revoked') return undefined;
      return [(event as BusEvent<'session#revoked'>).data.payload.session_id];
    },
  };
}

function lastEventId(header: unknown): number | null {
  const raw = Array.isArray(header) ? header[0] : header;
  if (typeof raw !== 'string' || !/^\d{1,16}$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

/** `GET /events`: the stream of the session's console. */
export function consoleStreamRoute(app: FastifyInstance, access: ConsoleAccess, writer: StreamWriter): void {
  app.get('/events', async (req, reply) => {
    const session = access.verify(cookieValue(req.headers.cookie, COOKIE));
    // 401 and no stream: the page logs in again instead of EventSource retrying forever.
    if (!session)
      return reply.code(401).type('application/json; charset=utf-8').send({ error: 'not logged in: log in again' });
    reply.hijack();
    writer.attach(reply.raw, { variant: 'console', principal: session.id }, lastEventId(req.headers['last-event-id']));
  });
}
