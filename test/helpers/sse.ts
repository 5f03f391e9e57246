/**
 * A real event-stream client (the `eventsource` package, as browser-like clients use) that keeps
 * every device event, and the other events it is asked for.
 */
import { EventSource } from 'eventsource';

export const DEVICE_EVENTS = [
  'addDevice',
  'updateDeviceState',
  'updateDeviceInfo',
  'updateDeviceOnline',
  'deleteDevice',
];

export interface StreamEvent {
  name: string;
  /** The event name without module and version: `addDevice`. */
  type: string;
  id: string;
  data: any;
}

export interface EventStream {
  events: StreamEvent[];
  /** Resolves with the first event (from the start) that matches; rejects after `timeoutMs`. */
  waitFor(pred: (e: StreamEvent) => boolean, timeoutMs?: number): Promise<StreamEvent>;
  /** Events of one type (`updateDeviceState`) so far. */
  of(type: string): StreamEvent[];
  close(): void;
}

/**
 * Opens `/open-api/<version>/sse/bridge?access_token=` and resolves once the stream is open.
 * `also` names more events to keep, as `<module>#<type>` (`bridge#updateAlarmState`).
 */
export async function openEvents(
  url: string,
  token: string,
  version = 'v2',
  also: readonly string[] = [],
): Promise<EventStream> {
  const es = new EventSource(`${url}/open-api/${version}/sse/bridge?access_token=${encodeURIComponent(token)}`);
  const events: StreamEvent[] = [];
  const waiters = new Set<() => void>();
  const kept = [...DEVICE_EVENTS.map((type) => `device#${type}`), ...also];
  for (const event of kept) {
    const [module, type] = event.split('#') as [string, string];
    const name = `${module}#${version}#${type}`;
    es.addEventListener(name, (e: MessageEvent) => {
      events.push({ name, type, id: e.lastEventId, data: JSON.parse(e.data as string) });
      for (const w of waiters) w();
    });
  }
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('event stream did not open')), 10_000);
    es.onopen = () => {
      clearTimeout(timer);
      resolve();
    };
    es.onerror = (err) => {
      clearTimeout(timer);
      es.close();
      reject(new Error(`event stream failed: ${String((err as { message?: string }).message ?? err)}`));
    };
  });
  return {
    events,
    of: (type) => events.filter((e) => e.type === type),
    waitFor(pred, timeoutMs = 10_000) {
      const found = events.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = events.find(pred);
          if (!hit) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events.map((e) => e.type))}`),
          );
        }, timeoutMs);
        waiters.add(check);
      });
    },
    close: () => es.close(),
  };
}
