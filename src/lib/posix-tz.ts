/**
 * The POSIX TZ rule a TZif file ends with (RFC 8536 section 3.3, with its extensions: hours from
 * -167 to 167 in a rule's time, `<+0330>`-quoted names), which gives a zone's offsets after its
 * last listed transition: `CET-1CEST,M3.5.0,M10.5.0/3` is UTC+1, and UTC+2 from the last Sunday of
 * March at 02:00 to the last Sunday of October at 03:00. Read here rather than through Intl so that
 * an idle gateway never loads ICU's time zone data (docs/benchmarks.md).
 */

/** One end of summer time: a day of the year by one of POSIX's three forms, and a local time. */
interface Change {
  /** `J`: day 1-365, February 29 never counted; `n`: day 0-365; `M`: month, week, weekday. */
  kind: 'J' | 'n' | 'M';
  day: number;
  month: number;
  week: number;
  /** Seconds after local midnight (may be negative or past 24 h). */
  time: number;
}

export interface PosixTz {
  /** Standard time's offset from UTC in seconds (east positive, unlike the string's sign). */
  std: number;
  /** Summer time, when the zone has one. */
  dst?: { offset: number; start: Change; end: Change };
}

const DAY = 86_400;

/** Parses a TZ rule; undefined when it is not one (the caller names the zone in its error). */
export function parsePosixTz(text: string): PosixTz | undefined {
  let i = 0;
  const name = (): boolean => {
    if (text[i] === '<') {
      const close = text.indexOf('>', i);
      if (close < 0) return false;
      i = close + 1;
      return true;
    }
    const start = i;
    while (i < text.length && /[A-Za-z]/.test(text[i] as string)) i++;
    return i - start >= 3;
  };
  /** `[+-]hh[:mm[:ss]]` in seconds; undefined when malformed or out of range. */
  const clock = (max: number): number | undefined => {
    const m = /^([+-]?)(\d{1,3})(?::(\d{1,2}))?(?::(\d{1,2}))?/.exec(text.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    const [h, mi, s] = [Number(m[2]), Number(m[3] ?? 0), Number(m[4] ?? 0)];
    if (h > max || mi > 59 || s > 59) return undefined;
    return (m[1] === '-' ? -1 : 1) * (h * 3600 + mi * 60 + s);
  };
  const change = (): Change | undefined => {
    const rest = text.slice(i);
    const mwd = /^M(\d{1,2})\.(\d)\.(\d)/.exec(rest);
    const julian = /^J(\d{1,3})/.exec(rest);
    const zeroBased = /^(\d{1,3})/.exec(rest);
    const m = mwd ?? julian ?? zeroBased;
    if (!m) return undefined;
    const c: Change = mwd
      ? { kind: 'M', month: Number(m[1]), week: Number(m[2]), day: Number(m[3]), time: 7200 }
      : { kind: julian ? 'J' : 'n', day: Number(m[1]), month: 0, week: 0, time: 7200 };
    if (c.kind === 'M' && (c.month < 1 || c.month > 12 || c.week < 1 || c.week > 5 || c.day > 6)) return undefined;
    if (c.kind === 'J' && (c.day < 1 || c.day > 365)) return undefined;
    if (c.kind === 'n' && c.day > 365) return undefined;
    i += m[0].length;
    if (text[i] === '/') {
      i++;
      const t = clock(167);
      if (t === undefined) return undefined;
      c.time = t;
    }
    return c;
  };

  if (!name()) return undefined;
  const stdWest = clock(24);
  if (stdWest === undefined) return undefined;
  const std = 0 - stdWest;
  if (i === text.length) return { std };
  if (!name()) return undefined;
  let dstOffset = std + 3600;
  if (i < text.length && text[i] !== ',') {
    const west = clock(24);
    if (west === undefined) return undefined;
    dstOffset = 0 - west;
  }
  // A DST name with no rule: POSIX leaves the dates to the implementation; tzdata never writes one.
  if (text[i] !== ',') return undefined;
  i++;
  const start = change();
  if (!start || text[i] !== ',') return undefined;
  i++;
  const end = change();
  if (!end || i !== text.length) return undefined;
  return { std, dst: { offset: dstOffset, start, end } };
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** Seconds from the epoch to local midnight of the change's day in `year`, plus its time. */
function localSeconds(c: Change, year: number): number {
  const jan1 = Date.UTC(year, 0, 1) / 1000;
  if (c.kind === 'J') return jan1 + (c.day - 1 + (isLeap(year) && c.day >= 60 ? 1 : 0)) * DAY + c.time;
  if (c.kind === 'n') return jan1 + c.day * DAY + c.time;
  const first = new Date(Date.UTC(year, c.month - 1, 1));
  const daysInMonth = new Date(Date.UTC(year, c.month, 0)).getUTCDate();
  let day = 1 + ((c.day - first.getUTCDay() + 7) % 7) + (c.week - 1) * 7;
  while (day > daysInMonth) day -= 7;
  return Date.UTC(year, c.month - 1, day) / 1000 + c.time;
}

/** The offset (seconds east of UTC) the rule gives at `t` (seconds since the epoch). */
export function posixOffset(tz: PosixTz, t: number): number {
  const dst = tz.dst;
  if (!dst) return tz.std;
  const year = new Date((t + tz.std) * 1000).getUTCFullYear();
  // The start is written in standard time, the end in summer time (POSIX).
  const start = localSeconds(dst.start, year) - tz.std;
  const end = localSeconds(dst.end, year) - dst.offset;
  const summer = start < end ? t >= start && t < end : t >= start || t < end;
  return summer ? dst.offset : tz.std;
}
