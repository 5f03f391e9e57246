/**
 * A reader of the zone database's compiled files (TZif, RFC 8536; /usr/share/zoneinfo on every
 * Debian box, from the tzdata package): a zone's offsets from UTC at any instant, from its table of
 * transitions and, past the table, the POSIX TZ rule at the file's end. The gateway reads its zone
 * here rather than through Intl because Intl's time zones load about 6 MB of ICU data from node's
 * binary into an idle gateway's memory (docs/benchmarks.md). Leap-second tables (the `right/` zones)
 * are not read: they are refused and the caller falls back to Intl.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type PosixTz, parsePosixTz, posixOffset } from './posix-tz.ts';

/** Where Debian's tzdata installs the database. */
export const ZONEINFO = '/usr/share/zoneinfo';

/** A zone file that exists but cannot be read as one: names the zone and says what is wrong. */
export class ZoneFileError extends Error {
  constructor(zone: string, why: string) {
    super(`time zone ${zone}: ${why}`);
    this.name = 'ZoneFileError';
  }
}

/** A zone's offsets: transitions (seconds since the epoch, ascending) and the offset from each. */
export class ZoneRules {
  constructor(
    private readonly times: Float64Array,
    private readonly offsets: Int32Array,
    /** The offset before the first transition. */
    private readonly initial: number,
    /** The rule after the last transition; without one, the last offset lasts. */
    private readonly footer: PosixTz | undefined,
  ) {}

  /** Local time minus UTC, in seconds, at `t` seconds since the epoch. */
  offset(t: number): number {
    const n = this.times.length;
    if (n === 0 || t < (this.times[0] as number))
      return n === 0 && this.footer ? posixOffset(this.footer, t) : this.initial;
    if (t >= (this.times[n - 1] as number))
      return this.footer ? posixOffset(this.footer, t) : (this.offsets[n - 1] as number);
    let lo = 0;
    let hi = n - 1;
    // Invariant: times[lo] <= t < times[hi].
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if ((this.times[mid] as number) <= t) lo = mid;
      else hi = mid;
    }
    return this.offsets[lo] as number;
  }
}

/** Names that are IANA zones' files, not the database's other files or its `posix/`, `right/` copies. */
const NAME = /^(?!posix\/|right\/|posixrules$|localtime$|Factory$)[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/;

/**
 * The rules of zone `name` from `dir`: undefined when the database has no such file (or no
 * database is there); a ZoneFileError when the file is there but damaged or foreign.
 */
export function readZoneRules(name: string, dir: string = ZONEINFO): ZoneRules | undefined {
  if (!NAME.test(name)) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, name));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
    throw new ZoneFileError(name, `${join(dir, name)} cannot be read (${code ?? String(err)})`);
  }
  return parseTzif(bytes, name);
}

/** Parses a TZif file (versions 1 to 4; the 64-bit block where there is one). */
export function parseTzif(bytes: Uint8Array, zone: string): ZoneRules {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fail = (why: string): never => {
    throw new ZoneFileError(zone, why);
  };
  const header = (at: number) => {
    if (bytes.length < at + 44) fail('the file is cut short');
    if (view.getUint32(at) !== 0x545a6966) fail('not a TZif file');
    const c = (k: number) => view.getUint32(at + 20 + 4 * k);
    return {
      version: bytes[at + 4] as number,
      isut: c(0),
      isstd: c(1),
      leap: c(2),
      time: c(3),
      type: c(4),
      char: c(5),
    };
  };
  const blockLength = (h: ReturnType<typeof header>, timeSize: number) =>
    h.time * timeSize + h.time + h.type * 6 + h.char + h.leap * (timeSize + 4) + h.isstd + h.isut;

  let h = header(0);
  let at = 44;
  let timeSize = 4;
  if (h.version !== 0) {
    // Version 2 and later: skip the 32-bit block for the 64-bit one that follows it.
    at += blockLength(h, 4);
    h = header(at);
    at += 44;
    timeSize = 8;
  }
  if (h.type === 0) fail('the file lists no local time types');
  if (h.leap !== 0) fail('the file counts leap seconds (a right/ zone)');
  if (at + blockLength(h, timeSize) > bytes.length) fail('the file is cut short');

  const times = new Float64Array(h.time);
  for (let k = 0; k < h.time; k++)
    times[k] = timeSize === 8 ? Number(view.getBigInt64(at + 8 * k)) : view.getInt32(at + 4 * k);
  for (let k = 1; k < h.time; k++)
    if ((times[k] as number) <= (times[k - 1] as number)) fail('its transitions are out of order');
  at += h.time * timeSize;
  const typeOf = bytes.subarray(at, at + h.time);
  at += h.time;
  const types: number[] = [];
  for (let k = 0; k < h.type; k++) {
    const off = view.getInt32(at + 6 * k);
    if (off < -89_999 || off > 93_599) fail(`an offset of ${off} s is out of range`);
    types.push(off);
  }
  at += h.type * 6 + h.char + h.isstd + h.isut;
  const offsets = new Int32Array(h.time);
  for (let k = 0; k < h.time; k++) {
    const t = typeOf[k] as number;
    if (t >= types.length) fail(`a transition names local time type ${t} of ${types.length}`);
    offsets[k] = types[t] as number;
  }

  let footer: PosixTz | undefined;
  if (timeSize === 8) {
    // "\n<TZ rule>\n"; an empty rule means none.
    if (bytes[at] !== 0x0a) fail('the rule after the table is missing');
    const end = bytes.indexOf(0x0a, at + 1);
    if (end < 0) fail('the rule after the table is cut short');
    const text = Buffer.from(bytes.subarray(at + 1, end)).toString('latin1');
    if (text !== '') {
      footer = parsePosixTz(text);
      if (!footer) fail(`the rule after the table (${JSON.stringify(text.slice(0, 60))}) cannot be read`);
    }
  }
  return new ZoneRules(times, offsets, types[0] as number, footer);
}
