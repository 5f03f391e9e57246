/**
 * Conditions, evaluated at the instant a trigger fires (a queued run keeps that answer). Each
 * condition's result goes into the run's trace, so a run that did not happen says which
 * condition stopped it. Time windows and sun windows are read against the current night: a
 * window that crosses midnight (22:00 to 06:00, sunset to sunrise) holds at 01:00, and its
 * weekdays are those of the evening it began.
 */
import type { Condition, SunBound } from './model.ts';
import type { DevicesPort, SecurityPort } from './ports.ts';
import { type Location, nextSunTime, previousSunTime, type SunRule } from './sun.ts';
import type { ConditionResult } from './trace.ts';
import { compare, readValue, resolveRef } from './values.ts';
import { addDays, parseTimeOfDay, weekdayOf, type Zone } from './zone.ts';

export interface ConditionContext {
  now: number;
  zone: Zone;
  location: Location | null;
  devices: Pick<DevicesPort, 'get'>;
  security: Pick<SecurityPort, 'modes'>;
}

/** Evaluates all conditions (all must hold); every one is evaluated and recorded, for the trace. */
export function evaluateAll(
  list: readonly Condition[],
  ctx: ConditionContext,
  out: ConditionResult[],
  path = 'conditions',
): boolean {
  let all = true;
  list.forEach((c, i) => {
    if (!evaluate(c, ctx, out, `${path}.${i}`)) all = false;
  });
  return all;
}

function record(out: ConditionResult[], path: string, type: string, result: boolean, detail?: string): boolean {
  out.push({ path, type, result, ...(detail ? { detail } : {}) });
  return result;
}

function evaluate(c: Condition, ctx: ConditionContext, out: ConditionResult[], path: string): boolean {
  switch (c.type) {
    case 'all':
    case 'any':
    case 'not': {
      const inner: ConditionResult[] = [];
      const results = c.conditions.map((x, i) => evaluate(x, ctx, inner, `${path}.conditions.${i}`));
      const r =
        c.type === 'any' ? results.some(Boolean) : c.type === 'all' ? results.every(Boolean) : !results.every(Boolean);
      record(out, path, c.type, r);
      out.push(...inner);
      return r;
    }
    case 'time':
      return timeWindow(c.after, c.before, c.weekdays, ctx, out, path);
    case 'weekday': {
      const day = weekdayOf(ctx.zone.date(ctx.now));
      return record(out, path, 'weekday', c.weekdays.includes(day), `today is ${day}`);
    }
    case 'sun':
      return sunWindow(c.after, c.before, ctx, out, path);
    case 'state': {
      const d = ctx.devices.get(c.device);
      if (!d) return record(out, path, 'state', false, `device ${c.device} is gone`);
      const errors: string[] = [];
      const r = resolveRef(d.capabilities, c, path, errors);
      if (!r) return record(out, path, 'state', false, errors.join('; '));
      const v = readValue(d.state, r);
      return record(out, path, 'state', compare(v, c), `${d.name} ${r.field} is ${JSON.stringify(v) ?? 'unknown'}`);
    }
    case 'online': {
      const d = ctx.devices.get(c.device);
      if (!d) return record(out, path, 'online', false, `device ${c.device} is gone`);
      return record(out, path, 'online', d.online === c.online, `${d.name} is ${d.online ? 'online' : 'offline'}`);
    }
    case 'security': {
      const modes = ctx.security.modes();
      const armed = c.sid === undefined ? modes.some((m) => m.enable) : modes.some((m) => m.sid === c.sid && m.enable);
      const now = modes.find((m) => m.enable);
      return record(
        out,
        path,
        'security',
        armed === (c.state === 'armed'),
        now ? `${now.name} is armed` : 'no mode is armed',
      );
    }
  }
}

function timeWindow(
  after: string | undefined,
  before: string | undefined,
  weekdays: readonly string[] | undefined,
  ctx: ConditionContext,
  out: ConditionResult[],
  path: string,
): boolean {
  const s = ctx.zone.secondOfDay(ctx.now);
  const today = ctx.zone.date(ctx.now);
  const a = after === undefined ? 0 : (parseTimeOfDay(after) as number);
  const b = before === undefined ? 86_400 : (parseTimeOfDay(before) as number);
  let inside: boolean;
  let day = today;
  if (a < b) inside = s >= a && s < b;
  else {
    // Across midnight: the part after midnight belongs to the evening before.
    inside = s >= a || s < b;
    if (s < b) day = addDays(today, -1);
  }
  const weekday = weekdayOf(day);
  const ok = inside && (weekdays === undefined || weekdays.includes(weekday));
  const hh = `${String(Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}`;
  return record(
    out,
    path,
    'time',
    ok,
    `it is ${hh} on ${weekdayOf(today)}${day !== today ? ` (the window began on ${weekday})` : ''}`,
  );
}

const opposite = (e: 'sunrise' | 'sunset'): 'sunrise' | 'sunset' => (e === 'sunrise' ? 'sunset' : 'sunrise');
const rule = (b: SunBound): SunRule => ({ event: b.event, offsetMinutes: b.offset_minutes ?? 0 });

/**
 * A sun window: from the last `after` event to the first `before` event following it. A missing
 * bound is the opposite event: "after sunset" holds until sunrise, "before sunrise" since sunset.
 */
function sunWindow(
  after: SunBound | undefined,
  before: SunBound | undefined,
  ctx: ConditionContext,
  out: ConditionResult[],
  path: string,
): boolean {
  if (!ctx.location) return record(out, path, 'sun', false, 'no location is set');
  const from = rule(after ?? { event: opposite((before as SunBound).event) });
  const to = rule(before ?? { event: opposite((after as SunBound).event) });
  const start = previousSunTime(from, ctx.now, ctx.zone, ctx.location);
  if (start === null) return record(out, path, 'sun', false, `no ${from.event} at this location lately`);
  const end = nextSunTime(to, start, ctx.zone, ctx.location);
  const ok = end === null || ctx.now < end.at;
  return record(
    out,
    path,
    'sun',
    ok,
    `window from ${new Date(start).toISOString()} to ${end ? new Date(end.at).toISOString() : 'no end'}`,
  );
}
