/**
 * When time and sun triggers fall: each occurrence is a UTC instant computed from the local date
 * in the gateway's zone (zone.ts has the DST rule), so "07:00 on weekdays" stays 07:00 on the
 * wall across clock changes, and sunrise follows the sun.
 */
import type { Trigger } from './model.ts';
import { type Location, nextSunTime } from './sun.ts';
import { addDays, parseTimeOfDay, type Resolution, WEEKDAYS, weekdayOf, type Zone } from './zone.ts';

const YEAR_MS = 366 * 86_400_000;

export type ScheduledTrigger = Extract<Trigger, { type: 'time' | 'sun' }>;

export interface Occurrence {
  at: number;
  /** For a time of day: whether the wall time fell in a DST gap or overlap that day. */
  resolution?: Resolution;
}

/** Whether a trigger is scheduled on the clock (time of day or sun). */
export function isScheduled(t: Trigger): t is ScheduledTrigger {
  return t.type === 'time' || t.type === 'sun';
}

/** The first occurrence strictly after `after`; null when none comes within a year (the sun at a pole). */
export function nextOccurrence(
  t: ScheduledTrigger,
  after: number,
  zone: Zone,
  location: Location | null,
): Occurrence | null {
  const days = new Set<string>(t.weekdays ?? WEEKDAYS);
  if (t.type === 'sun') {
    if (!location) return null;
    const next = nextSunTime({ event: t.event, offsetMinutes: t.offset_minutes ?? 0 }, after, zone, location, days);
    return next && { at: next.at };
  }
  const second = parseTimeOfDay(t.at) as number;
  const start = zone.date(after);
  // From the day before (a wall time of yesterday may still be ahead in UTC) to 8 days on.
  for (let i = -1; i <= 8; i++) {
    const date = addDays(start, i);
    if (!days.has(weekdayOf(date))) continue;
    const { at, resolution } = zone.instant(date, second);
    if (at > after) return { at, resolution };
  }
  return null;
}

/**
 * The occurrences in (after, until], oldest first. A gateway down for more than a year does not
 * list them all: only the last year's, and `more` says older ones were left out.
 */
export function occurrencesBetween(
  t: ScheduledTrigger,
  after: number,
  until: number,
  zone: Zone,
  location: Location | null,
): { list: Occurrence[]; more: boolean } {
  const list: Occurrence[] = [];
  const start = Math.max(after, until - YEAR_MS);
  let from = start;
  for (;;) {
    const o = nextOccurrence(t, from, zone, location);
    if (!o || o.at > until) return { list, more: start > after };
    list.push(o);
    from = o.at;
  }
}
