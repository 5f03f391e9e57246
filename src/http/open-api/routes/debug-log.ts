/**
 * `GET thirdparty/debug-log/{serial_number}` (COMPAT.md "seen in clients"): the last directives
 * the gateway sent a third-party device and the last events its service sent about it, from the
 * debug log of src/core/devices/debug-log.ts. Shapes in docs/api.md.
 */
import { ErrorCode } from '../../../catalog/errors.ts';
import { any, arr, int, obj, oneOf, opt, str } from '../../../catalog/schema.ts';
import { DEBUG_LOG_SIZE } from '../../../core/devices/debug-log.ts';
import { done, failed, type RouteSpec, route } from '../route.ts';
import type { OpenApiServices } from '../services.ts';

/** The driver of third-party devices (the only ones with a debug log). */
const THIRDPARTY = 'thirdparty';

const digits = (doc: string) => opt(str({ pattern: /^\d{1,15}$/, patternDoc: 'a whole number', doc }));
/** Epoch milliseconds, or an ISO 8601 date. */
const time = (doc: string) =>
  opt(
    str({
      pattern: /^(\d{1,15}|\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?)$/,
      patternDoc: 'epoch milliseconds or an ISO 8601 date',
      doc,
    }),
  );

function epoch(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  return /^\d+$/.test(v) ? Number(v) : Date.parse(v);
}

const entry = obj({
  index: int({ min: 0 }),
  time: str({ doc: 'ISO 8601' }),
  name: str({ doc: 'the directive or the event (header name)' }),
  payload: any('the directive or event payload (a payload over 2 KB as `{truncated, chars}`)'),
  result: oneOf('success', 'error', 'timeout', 'fault'),
  error: opt(any('`{code, message}` (directives) or `{type, message}` (events)')),
  latency_ms: opt(int({ min: 0, doc: 'directives: milliseconds to the answer' })),
});

/** The debug log route. */
export function debugLogRoutes(s: OpenApiServices): RouteSpec[] {
  return [
    route({
      id: 'X-debug-log',
      method: 'GET',
      path: '/thirdparty/debug-log/{serial_number}',
      summary: "A third-party device's last directives (with outcome and latency) or last events received",
      description: `Oldest first; the last ${DEBUG_LOG_SIZE} of each kind are kept per device, in memory (a restart empties them). A device that is not a third party's has an empty log.`,
      auth: 'token',
      params: { serial_number: str({ maxLength: 500 }) },
      query: obj({
        type: opt(oneOf('directive_log', 'event_log')),
        limit: digits(`entries at most (default 50, at most ${DEBUG_LOG_SIZE})`),
        from_index: digits('only entries with this index or above'),
        start_time: time('only entries at or after this time'),
        end_time: time('only entries at or before this time'),
      }),
      answer: obj({
        serial_number: str(),
        type: oneOf('directive_log', 'event_log'),
        total: int({ min: 0, doc: 'entries kept now' }),
        next_index: int({ min: 0, doc: 'the index the next entry will have' }),
        logs: arr(entry),
      }),
      errors: [ErrorCode.DEVICE_NOT_FOUND],
      handle({ params, query }) {
        const device = s.devices.registry.get(params.serial_number);
        if (!device) return failed(ErrorCode.DEVICE_NOT_FOUND, `no device with serial_number ${params.serial_number}`);
        const start = epoch(query.start_time);
        const end = epoch(query.end_time);
        if (Number.isNaN(start) || Number.isNaN(end)) return failed(400, 'start_time, end_time: not a valid date');
        const type = (query.type ?? 'directive_log') as 'directive_log' | 'event_log';
        // A device that exists but is not a third party's has no directives or events to show: an
        // empty log, as the hardware gateways answer (a client library's example shows it).
        if (device.driver !== THIRDPARTY)
          return done({ serial_number: device.serial_number, type, total: 0, next_index: 0, logs: [] });
        const limit = Math.min(query.limit === undefined ? 50 : Number(query.limit), DEBUG_LOG_SIZE);
        const r = s.debugLog.read(device.serial_number, {
          type,
          limit,
          ...(query.from_index !== undefined ? { fromIndex: Number(query.from_index) } : {}),
          ...(start !== undefined ? { start } : {}),
          ...(end !== undefined ? { end } : {}),
        });
        return done({
          serial_number: device.serial_number,
          type,
          total: r.kept,
          next_index: r.next_index,
          logs: r.entries,
        });
      },
    }),
  ];
}
