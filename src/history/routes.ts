/**
 * The history's API, declared once (src/core/route.ts) and served on both surfaces: the Open API
 * under `/open-api/{v1,v2}/rest/opencube/history` (a token, the envelope) and the console's API
 * under `/console/api/history` (a session, HTTP statuses). The Open API's path has the vendor
 * segment the automations use too: no client of the hardware gateways calls anything under
 * `opencube/` (docs/history.md, "The API"). A query's parameters are strings, as a URL carries
 * them: whole numbers and comma-separated lists are read here, and every other rule (dates, ranges,
 * bounds) is the history's own (arguments.ts), every problem one `path: rule` message.
 */
import { ErrorCode } from '../catalog/errors.ts';
import type { Result } from '../catalog/index.ts';
import { any, arr, bool, int, map, num, obj, oneOf, opt, optOrNull, type Schema, str } from '../catalog/schema.ts';
import { answered, type RouteAnswer, type RouteDecl, refused } from '../core/route.ts';
import { EXCLUSION } from './arguments.ts';
import type { History } from './history.ts';

/** What the routes use: the history, and whether it records (the setting `history.enabled`). */
export interface HistoryApi {
  history: History;
  recording(): boolean;
}

const text = (doc: string, maxLength = 128) => opt(str({ maxLength, doc }));
const digits = (doc: string) => opt(str({ pattern: /^\d{1,7}$/, patternDoc: 'a whole number', doc }));
const list = (doc: string) => opt(str({ maxLength: 4000, doc: `${doc}, comma-separated` }));

const SERIES_PARAMS = {
  serial_number: str({ maxLength: 128, doc: 'the device' }),
  capability: str({ maxLength: 128, doc: 'the capability, e.g. `temperature`' }),
  name: text('the channel of a named capability, e.g. `1`', 64),
  field: text("the state field, when the capability's body has several", 64),
  from: str({ maxLength: 64, doc: 'start of the range, ISO 8601' }),
  to: text('end of the range, ISO 8601 (now when absent)', 64),
};

const SERIES_QUERY = obj({ ...SERIES_PARAMS, points: digits('points at most, 2 to 10000 (500 when absent)') });
const SERIES_CSV_QUERY = obj({
  ...SERIES_PARAMS,
  points: digits('rows at most, 2 to 1000000 (1000000 when absent)'),
});
const LOGBOOK_FIELDS = {
  from: text('oldest entry, ISO 8601', 64),
  to: text('entries before this, ISO 8601 (now when absent)', 64),
  serial_number: list('devices (all when absent)'),
  kind: list('kinds: state, press, online, added, renamed, removed, security, alarm, automation, notify'),
  capability: text('only state changes and presses of this capability'),
};
const LOGBOOK_QUERY = obj({
  ...LOGBOOK_FIELDS,
  before: text('the `next` of the previous page', 64),
  limit: digits('entries in the page, 1 to 1000 (100 when absent)'),
});
const LOGBOOK_CSV_QUERY = obj(LOGBOOK_FIELDS);
const ENERGY_QUERY = obj({
  serial_number: list('devices (all that report energy or power when absent)'),
  from: str({ maxLength: 64, doc: 'start of the range, ISO 8601' }),
  to: text('end of the range, ISO 8601 (now when absent)', 64),
  period: { ...oneOf('hour', 'day', 'month'), doc: 'local, in the time zone of the setting `time_zone`' },
});

const SERIAL_PARAM = { serial_number: str({ maxLength: 128, doc: 'the device' }) };

const scalar = any('a number, a boolean, a text, or null where a value ended');
const numbers = arr(optOrNull(num()));
const seriesAnswer = obj({
  serial_number: str(),
  device_name: str(),
  capability: str(),
  name: optOrNull(str()),
  field: str(),
  kind: oneOf('number', 'state', 'press'),
  unit: optOrNull(str()),
  from: int({ doc: 'epoch ms' }),
  to: int({ doc: 'epoch ms' }),
  resolution: str({ doc: '`raw` (numbers), `changes` (states and presses), or the bucket size `1m` .. `7d`' }),
  bucket_ms: optOrNull(int()),
  before: optOrNull(obj({ t: int(), value: scalar }, { doc: 'the value standing at `from`' })),
  t: arr(int(), { doc: 'epoch ms of each value, change or bucket' }),
  value: opt(arr(scalar)),
  min: opt(numbers),
  mean: opt(numbers),
  max: opt(numbers),
  n: opt(arr(int(), { doc: 'reports in each bucket' })),
  share: opt(map(arr(num()), { doc: 'states: the share (0..1) of each bucket spent in each value' })),
  count: opt(map(arr(int()), { doc: 'presses: how many of each kind in each bucket' })),
});
const entry = obj({
  id: str({ doc: 'the cursor of this entry' }),
  t: int({ doc: 'epoch ms' }),
  time: str({ doc: 'local time with its offset' }),
  kind: str(),
  serial_number: optOrNull(str()),
  device_name: optOrNull(str()),
  capability: optOrNull(str()),
  name: optOrNull(str()),
  field: optOrNull(str()),
  value: any('the new value, or what the entry says'),
});
const logbookAnswer = obj({
  entries: arr(entry),
  next: optOrNull(str({ doc: 'give it as `before` for the next page; null on the last' })),
});
const energyAnswer = obj({
  unit: oneOf('kWh'),
  time_zone: str(),
  period: oneOf('hour', 'day', 'month'),
  buckets: arr(obj({ t: int(), start: str(), end: str(), kwh: optOrNull(num()) })),
  total_kwh: num(),
  devices: arr(obj({ serial_number: str(), name: str(), source: oneOf('meter', 'power'), kwh: num() })),
});
const exclusionsAnswer = obj({
  exclusions: arr(obj({ serial_number: str(), capability: optOrNull(str({ doc: 'null: the whole device' })) })),
});
const devicesAnswer = obj({
  time_zone: str(),
  recording: bool('whether new values are recorded (the setting `history.enabled`)'),
  devices: arr(
    obj({
      serial_number: str(),
      name: str(),
      removed_at: optOrNull(int({ doc: 'when it was removed from the gateway, its history kept' })),
      series: arr(
        obj({
          capability: str(),
          name: optOrNull(str()),
          field: str(),
          kind: str(),
          unit: optOrNull(str()),
        }),
      ),
    }),
  ),
});

/** A number from the digits of a query, or undefined when absent. */
const whole = (v: unknown): number | undefined => (typeof v === 'string' ? Number(v) : undefined);
/** A comma-separated list, or undefined when absent. */
const items = (v: unknown): string[] | undefined => (typeof v === 'string' ? v.split(',') : undefined);

/** Copies the fields that are present (a query leaves absent ones out, as the history's schemas want). */
function present(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

const seriesArgs = (q: Record<string, unknown>) => present({ ...q, points: whole(q.points) });
const logbookArgs = (q: Record<string, unknown>) =>
  present({ ...q, serial_number: items(q.serial_number), kind: items(q.kind), limit: whole(q.limit) });
const energyArgs = (q: Record<string, unknown>) => present({ ...q, serial_number: items(q.serial_number) });

/** The answer of a query: its value, or every problem refused at once. */
function answer<T extends object>(r: Result<T>, wrap: (v: T) => object = (v) => v): RouteAnswer {
  return r.ok ? answered(wrap(r.value)) : refused(ErrorCode.INVALID_PARAMETERS, r.errors.join('; '));
}

/** A CSV export: its lines streamed, or the problems refused. */
function csv(r: Result<Iterable<string>>, filename: string): RouteAnswer {
  if (!r.ok) return refused(ErrorCode.INVALID_PARAMETERS, r.errors.join('; '));
  return { ok: true, file: { type: 'text/csv; charset=utf-8', filename, lines: r.value } };
}

/** `2026-11-28` of an ISO date (for file names), or `now`. */
const day = (v: unknown) => (typeof v === 'string' ? v.slice(0, 10) : 'now');

/** The routes under `base` (`/opencube/history` on the Open API, `/history` in the console). */
export function historyRoutes(api: HistoryApi, base: string): RouteDecl[] {
  const { history } = api;
  const exclusionBody: Schema = EXCLUSION;
  return [
    {
      method: 'GET',
      path: `${base}/devices`,
      summary: 'The devices with a history (removed ones whose history was kept too), and what is recorded of each',
      answer: devicesAnswer,
      handle: () => answered({ time_zone: history.timeZone, recording: api.recording(), devices: history.devices() }),
    },
    {
      method: 'DELETE',
      path: `${base}/devices/{serial_number}`,
      summary: "Deletes a device's whole history (the choice when removing a device; kept by default)",
      description:
        'Answers once every row of it is deleted. A device still on the gateway starts a new history from its next report.',
      params: SERIAL_PARAM,
      answer: obj({ serial_number: str() }),
      errors: [ErrorCode.NOT_FOUND],
      handle: async ({ params }) => {
        const r = await history.forget({ serial_number: params.serial_number });
        return r.ok ? answered(r.value) : refused(ErrorCode.NOT_FOUND, r.errors.join('; '));
      },
    },
    {
      method: 'GET',
      path: `${base}/series`,
      summary: "A device's values for a capability over a time range, at a resolution that fits `points`",
      description:
        'The raw values when they fit (`resolution` `raw`, or `changes` for states and presses), else buckets of a round size (`1m` .. `7d`) with `min`, `mean`, `max` and `n` per bucket (states: the `share` of each value; presses: the `count` of each kind). Times are epoch ms.',
      query: SERIES_QUERY,
      answer: seriesAnswer,
      handle: ({ query: q }) => answer(history.series(seriesArgs(q))),
    },
    {
      method: 'GET',
      path: `${base}/series/csv`,
      summary: "A device's values for a capability as CSV (the raw values when they number up to `points`)",
      query: SERIES_CSV_QUERY,
      produces: 'text/csv',
      handle: ({ query: q }) =>
        csv(history.seriesCsv(seriesArgs(q)), `history-${q.serial_number}-${q.capability}-${day(q.from)}.csv`),
    },
    {
      method: 'GET',
      path: `${base}/logbook`,
      summary: 'The logbook, newest first, a page at a time, filtered by devices, kinds, capability and time',
      query: LOGBOOK_QUERY,
      answer: logbookAnswer,
      handle: ({ query: q }) => answer(history.logbook(logbookArgs(q))),
    },
    {
      method: 'GET',
      path: `${base}/logbook/csv`,
      summary: 'The logbook the filters select, every page of it, as CSV',
      query: LOGBOOK_CSV_QUERY,
      produces: 'text/csv',
      handle: ({ query: q }) => csv(history.logbookCsv(logbookArgs(q)), `logbook-${day(q.from)}.csv`),
    },
    {
      method: 'GET',
      path: `${base}/energy`,
      summary: 'Energy used per hour, day or month (kWh, local time), in all or for the devices given',
      query: ENERGY_QUERY,
      answer: energyAnswer,
      handle: ({ query: q }) => answer(history.energy(energyArgs(q))),
    },
    {
      method: 'GET',
      path: `${base}/energy/csv`,
      summary: 'Energy used per hour, day or month as CSV',
      query: ENERGY_QUERY,
      produces: 'text/csv',
      handle: ({ query: q }) => csv(history.energyCsv(energyArgs(q)), `energy-${q.period}-${day(q.from)}.csv`),
    },
    {
      method: 'GET',
      path: `${base}/exclusions`,
      summary: 'The devices and capabilities left out of the history',
      answer: exclusionsAnswer,
      handle: () => answered({ exclusions: history.exclusions() }),
    },
    {
      method: 'POST',
      path: `${base}/exclusions`,
      summary: 'Leaves a device, or one capability of it, out of the history (stored before the answer)',
      body: exclusionBody,
      answer: exclusionsAnswer,
      handle: ({ body }) => answer(history.exclude(body), (exclusions) => ({ exclusions })),
    },
    {
      method: 'DELETE',
      path: `${base}/exclusions/{serial_number}`,
      summary:
        'Records a device again (`?capability=`: only that capability; without it, every exclusion of the device goes)',
      params: SERIAL_PARAM,
      query: obj({ capability: text('the capability recorded again') }),
      answer: exclusionsAnswer,
      handle: ({ params, query: q }) =>
        answer(
          history.include(present({ serial_number: params.serial_number, capability: q.capability })),
          (exclusions) => ({
            exclusions,
          }),
        ),
    },
  ];
}
