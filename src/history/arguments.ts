/**
 * The arguments of the history's queries, in the catalog's schema language (checked strictly,
 * every problem one `path: rule` message), exported for the routes that will serve them. What no
 * schema can say (a range that ends before it starts, a device without history) is checked in
 * code with the same message form.
 */
import { compileTop } from '../catalog/compile-strict.ts';
import type { Result } from '../catalog/index.ts';
import { arr, date, int, obj, oneOf, opt, str } from '../catalog/schema.ts';
import { fmt } from '../lib/format.ts';
import { DAY } from './rollup.ts';

const text = (doc: string) => str({ maxLength: 128, pattern: /\S/, patternDoc: 'a non-empty text', doc });
const serials = opt(arr(text('a device'), { minItems: 1, maxItems: 100, doc: 'devices (all when absent)' }));

const seriesFields = {
  serial_number: text('the device'),
  capability: text('the capability, e.g. `temperature`'),
  name: opt(str({ maxLength: 64, doc: 'the name level (channel) of a named capability, e.g. `1`' })),
  field: opt(str({ maxLength: 64, doc: "the state field; needed only when the capability's body has several" })),
  from: date('start of the range'),
  to: opt(date('end of the range (now when absent)')),
};

/** A device's values for one capability over a time range. */
export const SERIES_QUERY = obj({
  ...seriesFields,
  points: opt(int({ min: 2, max: 10_000, doc: 'how many points at most (500 when absent)' })),
});

/** The same as CSV: as many rows as raw values hold (up to a million). */
export const SERIES_CSV_QUERY = obj({
  ...seriesFields,
  points: opt(int({ min: 2, max: 1_000_000, doc: 'how many rows at most (1,000,000 when absent)' })),
});

/** The logbook, newest first, a page at a time. */
export const LOGBOOK_QUERY = obj({
  from: opt(date('oldest entry (none when absent)')),
  to: opt(date('entries before this (now when absent)')),
  serial_number: serials,
  kind: opt(
    arr(str({ pattern: /^[a-z][a-z0-9_-]{0,31}$/, patternDoc: 'a kind of entry, e.g. `state`' }), {
      minItems: 1,
      maxItems: 20,
      doc: 'kinds (all when absent)',
    }),
  ),
  capability: opt(text('only state changes and presses of this capability')),
  before: opt(str({ pattern: /^\d{1,20}$/, patternDoc: 'the `next` of a previous page' })),
  limit: opt(int({ min: 1, max: 1000, doc: 'entries in the page (100 when absent)' })),
});

/** Energy used per hour, day or month (local time of the configured zone). */
export const ENERGY_QUERY = obj({
  serial_number: serials,
  from: date('start of the range'),
  to: opt(date('end of the range (now when absent)')),
  period: oneOf('hour', 'day', 'month'),
});

/** A device, or one capability of it, left out of the history (or recorded again). */
export const EXCLUSION = obj({
  serial_number: text('the device'),
  capability: opt(text('one capability of it (the whole device when absent)')),
});

/** A device whose history is deleted. */
export const FORGET = obj({ serial_number: text('the device') });

/** Checks `input` against a compiled schema; the value typed when it passes. */
export function check<T>(checker: (v: unknown) => string[], input: unknown): Result<T> {
  const errors = checker(input);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: input as T };
}

export const checkers = {
  series: compileTop(SERIES_QUERY, 'query'),
  seriesCsv: compileTop(SERIES_CSV_QUERY, 'query'),
  logbook: compileTop(LOGBOOK_QUERY, 'query'),
  energy: compileTop(ENERGY_QUERY, 'query'),
  exclusion: compileTop(EXCLUSION, 'body'),
  forget: compileTop(FORGET, 'body'),
};

/** Longest range a query covers. */
const MAX_RANGE = 20 * 366 * DAY;

/** `from` and `to` as epoch ms (`to` defaults to now, inclusive), or the messages saying what is wrong with them. */
export function range(
  from: string | undefined,
  to: string | undefined,
  now: number,
): Result<{ from: number; to: number }> {
  const f = from === undefined ? Number.NEGATIVE_INFINITY : Date.parse(from);
  // Up to now, a value reported this very millisecond included.
  const t = to === undefined ? now + 1 : Date.parse(to);
  if (t <= f)
    return { ok: false, errors: [`to: ${fmt(to ?? new Date(now).toISOString())} is not after from ${fmt(from)}`] };
  if (from !== undefined && t - f > MAX_RANGE) return { ok: false, errors: ['to: the range is longer than 20 years'] };
  return { ok: true, value: { from: f, to: t } };
}
