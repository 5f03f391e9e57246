/**
 * The gateway's time zones read from the system's zone database (/usr/share/zoneinfo, TZif files)
 * instead of Intl, which would load ICU's zone data into an idle gateway: the same local times as
 * the C library's reading of the same files in every zone, and as Intl in the zones whose rules
 * have long stood still (the two copies of the rules may differ for a while where one changes),
 * the rules past a file's table, the DST rule for a time of day, and
 * damaged, foreign or missing files (a clear error naming the zone inside; outside, the answers of
 * Intl, never a crash).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { parsePosixTz, posixOffset } from '../../src/lib/posix-tz.ts';
import { parseTzif, readZoneRules, ZONEINFO, ZoneFileError } from '../../src/lib/tzif.ts';
import { isTimeZone, machineZone, Zone } from '../../src/lib/zone.ts';

const HAVE_DB = existsSync(join(ZONEINFO, 'Europe/Berlin'));
const NO_DB = '/nonexistent/zoneinfo';
const tmp = mkdtempSync(join(tmpdir(), 'opencube-zoneinfo-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A version-2 TZif file: transitions (s) to offsets (s), an initial offset, and a TZ rule footer. */
function tzif(transitions: [number, number][], initial: number, footer: string): Buffer {
  const offsets = [initial, ...new Set(transitions.map(([, o]) => o))];
  const typeIndex = (o: number) => offsets.indexOf(o);
  const block = (size: 4 | 8) => {
    const head = Buffer.alloc(44);
    head.write('TZif2', 0, 'latin1');
    head.writeUInt32BE(transitions.length, 32);
    head.writeUInt32BE(offsets.length, 36);
    head.writeUInt32BE(4, 40);
    const body = Buffer.alloc(transitions.length * (size + 1) + offsets.length * 6 + 4);
    transitions.forEach(([t], k) => {
      if (size === 8) body.writeBigInt64BE(BigInt(t), k * 8);
      else body.writeInt32BE(Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, t)), k * 4);
    });
    transitions.forEach(([, o], k) => {
      body.writeUInt8(typeIndex(o), transitions.length * size + k);
    });
    offsets.forEach((o, k) => {
      body.writeInt32BE(o, transitions.length * (size + 1) + k * 6);
    });
    body.write('ZZZ\0', transitions.length * (size + 1) + offsets.length * 6, 'latin1');
    return Buffer.concat([head, body]);
  };
  return Buffer.concat([block(4), block(8), Buffer.from(`\n${footer}\n`, 'latin1')]);
}

/** A zone database in a folder of the test's own, with the given files. */
function database(files: Record<string, Buffer>): string {
  const dir = mkdtempSync(join(tmp, 'db-'));
  for (const [name, bytes] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), bytes);
  }
  return dir;
}

// Against Intl: Debian's tzdata folds zones that differ only before 1970 into one (Africa/Accra
// into Africa/Abidjan), where ICU keeps their old history; and Tijuana's 1970s summers differ
// between the two. From 1976 on, the two databases agreed in every zone (tzdata 2025b, node's 2025c).
const FROM = Date.UTC(1976, 0, 1);
const TO = Date.UTC(2100, 0, 1);

describe('time zones from the zone database', { skip: !HAVE_DB && 'no /usr/share/zoneinfo (tzdata)' }, () => {
  const zones = Intl.supportedValuesOf('timeZone');

  test('every zone shows the same local time as the C library reading the same file (date), 1900 to 2100', () => {
    // glibc reads the very files the gateway does, so the two agree whatever tzdata's version; a
    // zone's instants are drawn from a generator seeded by its name, the same on every run.
    const names = zones.filter((name) => readZoneRules(name));
    assert.ok(names.length > 300, `${names.length} zones in the database`);
    for (const name of names) {
      let seed = [...name].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7);
      const instants = Array.from({ length: 40 }, () => {
        seed = (seed * 1_103_515_245 + 12_345) >>> 0;
        return Math.floor(Date.UTC(1900, 0, 1) / 1000 + (seed / 2 ** 32) * ((TO - Date.UTC(1900, 0, 1)) / 1000));
      });
      const out = execFileSync('date', ['-f', '-', '+%Y %m %d %H %M %S'], {
        input: instants.map((t) => `@${t}`).join('\n'),
        env: { TZ: `:${join(ZONEINFO, name)}`, LC_ALL: 'C' },
        encoding: 'utf8',
      })
        .trim()
        .split('\n');
      instants.forEach((t, k) => {
        const [year, month, day, hour, minute, second] = out[k].split(' ').map(Number);
        assert.deepEqual(
          new Zone(name).wall(t * 1000),
          { year, month, day, hour, minute, second },
          `${name} at ${new Date(t * 1000).toISOString()}`,
        );
      });
    }
  });

  test('the zones people live in show the same local time as Intl did before the database, 1976 to 2100', () => {
    // Intl's copy of the zones is node's (process.versions.tz), the database Debian's: a zone whose
    // rules change may differ between the two for a while, so this compares the zones whose rules
    // have long stood still, the migration's check that users' times did not move.
    const stable = [
      'Europe/Berlin',
      'Europe/London',
      'Europe/Paris',
      'America/New_York',
      'America/Chicago',
      'America/Los_Angeles',
      'Asia/Tokyo',
      'Asia/Shanghai',
      'Asia/Kolkata',
      'Australia/Sydney',
      'Pacific/Auckland',
      'UTC',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...stable), fc.integer({ min: FROM, max: TO }), (name, t) => {
        assert.deepEqual(
          new Zone(name).wall(t),
          new Zone(name, NO_DB).wall(t),
          `${name} at ${new Date(t).toISOString()}`,
        );
      }),
      { numRuns: 5_000 },
    );
  });

  test('a local time on the days clocks change becomes the same instant as with Intl (gap: the change; overlap: the first)', () => {
    const changing = [
      'Europe/Berlin',
      'America/New_York',
      'Australia/Sydney',
      'Pacific/Auckland',
      'Australia/Lord_Howe',
      'Pacific/Chatham',
      'America/Santiago',
      'Asia/Jerusalem',
      'America/Nuuk',
      'Europe/London',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...changing),
        fc.integer({ min: 1990, max: 2060 }),
        fc.constantFrom(3, 4, 9, 10, 11),
        fc.integer({ min: 1, max: 31 }),
        fc.integer({ min: 0, max: 86_399 }),
        (name, year, month, day, second) => {
          const date = { year, month, day: Math.min(day, 28) };
          assert.deepEqual(new Zone(name).instant(date, second), new Zone(name, NO_DB).instant(date, second));
        },
      ),
      { numRuns: 5_000 },
    );
  });

  test('asking for the zone never loads Intl: the zone, the machine zone and the name check work with Intl.DateTimeFormat gone', () => {
    const real = Intl.DateTimeFormat;
    Intl.DateTimeFormat = (() => {
      throw new Error('Intl.DateTimeFormat was used');
    }) as unknown as typeof Intl.DateTimeFormat;
    try {
      const berlin = new Zone('Europe/Berlin');
      assert.deepEqual(berlin.wall(Date.UTC(2025, 6, 1, 10)), {
        year: 2025,
        month: 7,
        day: 1,
        hour: 12,
        minute: 0,
        second: 0,
      });
      assert.equal(isTimeZone('America/New_York'), true);
      assert.equal(machineZone(ZONEINFO, { TZ: 'Asia/Tokyo' }), 'Asia/Tokyo');
    } finally {
      Intl.DateTimeFormat = real;
    }
  });

  test('the machine zone comes from TZ in each of its spellings, names of UTC read UTC, and Intl decides the rest', () => {
    assert.equal(machineZone(ZONEINFO, { TZ: 'Europe/Berlin' }), 'Europe/Berlin');
    assert.equal(machineZone(ZONEINFO, { TZ: ':America/New_York' }), 'America/New_York');
    assert.equal(machineZone(ZONEINFO, { TZ: '/usr/share/zoneinfo/Australia/Sydney' }), 'Australia/Sydney');
    assert.equal(machineZone(ZONEINFO, { TZ: 'Etc/UTC' }), 'UTC');
    const intl = Intl.DateTimeFormat().resolvedOptions().timeZone;
    assert.equal(machineZone(ZONEINFO, { TZ: 'CET-1CEST' }), intl, 'a POSIX rule is left to Intl');
    assert.equal(machineZone(ZONEINFO, { TZ: 'Not/AZone' }), intl);
    assert.equal(machineZone(NO_DB, { TZ: 'Europe/Berlin' }), intl, 'no database: Intl');
  });
});

describe('the rule past the table (POSIX TZ)', () => {
  const ruleOnly = (rule: string) => parseTzif(tzif([], 0, rule), 'Test/Rule');

  for (const [rule, zone] of [
    ['CET-1CEST,M3.5.0,M10.5.0/3', 'Europe/Berlin'],
    ['EST5EDT,M3.2.0,M11.1.0', 'America/New_York'],
    ['AEST-10AEDT,M10.1.0,M4.1.0/3', 'Australia/Sydney'],
    ['IST-2IDT,M3.4.4/26,M10.5.0', 'Asia/Jerusalem'],
    ['<-02>2<-01>,M3.5.0/-1,M10.5.0/0', 'America/Nuuk'],
    ['<+1030>-10:30<+11>-11,M10.1.0,M4.1.0', 'Australia/Lord_Howe'],
    ['<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45', 'Pacific/Chatham'],
    ['<+0545>-5:45', 'Asia/Kathmandu'],
  ] as const) {
    test(`${rule} gives the offsets Intl gives ${zone} from 2030 to 2100`, () => {
      const rules = ruleOnly(rule);
      const intl = new Zone(zone, NO_DB);
      fc.assert(
        fc.property(fc.integer({ min: Date.UTC(2030, 0, 1), max: TO }), (t) => {
          assert.equal(rules.offset(Math.floor(t / 1000)) * 1000, intl.offset(t), new Date(t).toISOString());
        }),
        { numRuns: 2_000 },
      );
    });
  }

  test('a Jn day never counts February 29 and an n day does', () => {
    const julian = parsePosixTz('AAA0BBB,J60/0,J300/0');
    const zeroBased = parsePosixTz('AAA0BBB,59/0,300/0');
    assert.ok(julian && zeroBased);
    for (const year of [2023, 2024, 2100, 2000]) {
      const march1 = Date.UTC(year, 2, 1) / 1000;
      assert.equal(posixOffset(julian, march1 - 1), 0, `${year}: not yet`);
      assert.equal(posixOffset(julian, march1), 3600, `${year}: J60 is March 1`);
      const day59 = Date.UTC(year, 0, 60) / 1000;
      assert.equal(posixOffset(zeroBased, day59 - 1), 0);
      assert.equal(posixOffset(zeroBased, day59), 3600, `${year}: day 59 counted from 0`);
    }
  });

  test('summer time all year (a start at the year start, an end past its last day) is summer time all year', () => {
    const always = parsePosixTz('EST5EDT,0/0,J365/25');
    assert.ok(always);
    fc.assert(fc.property(fc.integer({ min: 0, max: 4_000_000_000 }), (t) => posixOffset(always, t) === -4 * 3600));
  });

  test('text that is not a TZ rule is refused', () => {
    for (const bad of [
      '',
      'CE',
      'CET',
      'CET-1CEST',
      'CET-1CEST,M3.5.0',
      'CET-1CEST,M13.5.0,M10.5.0',
      'CET-1CEST,M3.6.0,M10.5.0',
      'CET-1CEST,M3.5.7,M10.5.0',
      'CET-1CEST,J0,J10',
      'CET-1CEST,366,10',
      'CET-25',
      'CET-1:60',
      '<+03',
      'CET-1CEST,M3.5.0,M10.5.0/3x',
      'CET-1CEST,M3.5.0/200,M10.5.0',
    ])
      assert.equal(parsePosixTz(bad), undefined, bad);
  });
});

describe('zone files that are damaged, foreign or missing', () => {
  test('any bytes either read as a zone or give a ZoneFileError naming the zone, never another error', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.boolean(), (bytes, asTzif) => {
        const input = asTzif ? Buffer.concat([Buffer.from('TZif2'), Buffer.from(bytes)]) : Buffer.from(bytes);
        try {
          const rules = parseTzif(input, 'Test/Fuzz');
          assert.equal(typeof rules.offset(0), 'number');
        } catch (err) {
          assert.ok(err instanceof ZoneFileError, String(err));
          assert.match(err.message, /^time zone Test\/Fuzz: /);
        }
      }),
      { numRuns: 3_000 },
    );
  });

  test('a real zone file cut at every point, or with any byte changed, reads or is refused by name', {
    skip: !HAVE_DB && 'no tzdata',
  }, () => {
    const berlin = readFileSync(join(ZONEINFO, 'Europe/Berlin'));
    for (let cut = 0; cut < berlin.length; cut++) {
      assert.throws(
        () => parseTzif(berlin.subarray(0, cut), 'Europe/Berlin'),
        (err: Error) => err instanceof ZoneFileError && err.message.includes('Europe/Berlin'),
      );
    }
    fc.assert(
      fc.property(fc.nat({ max: berlin.length - 1 }), fc.integer({ min: 0, max: 255 }), (at, value) => {
        const bytes = Buffer.from(berlin);
        bytes[at] = value;
        try {
          parseTzif(bytes, 'Europe/Berlin').offset(1_700_000_000);
        } catch (err) {
          assert.ok(err instanceof ZoneFileError, String(err));
        }
      }),
      { numRuns: 2_000 },
    );
  });

  test('a zone the database lacks, or whose file is damaged, is answered by Intl; a name neither knows is refused', () => {
    const dir = database({
      'Europe/Berlin': Buffer.from('TZif2 and then nothing'),
      'Europe/Paris': Buffer.from('# not a zone file but a text of more than forty-four bytes\n'),
    });
    assert.throws(
      () => readZoneRules('Europe/Berlin', dir),
      /^ZoneFileError: time zone Europe\/Berlin: the file is cut short$/,
    );
    assert.throws(
      () => readZoneRules('Europe/Paris', dir),
      /^ZoneFileError: time zone Europe\/Paris: not a TZif file$/,
    );
    assert.equal(readZoneRules('Asia/Tokyo', dir), undefined);
    const t = Date.UTC(2025, 6, 1, 10);
    for (const name of ['Europe/Berlin', 'Europe/Paris', 'Asia/Tokyo']) {
      assert.deepEqual(new Zone(name, dir).wall(t), new Zone(name, NO_DB).wall(t), name);
      assert.equal(isTimeZone(name, dir), true, name);
    }
    assert.throws(() => new Zone('Mars/Olympus_Mons', dir), RangeError);
    assert.equal(isTimeZone('Mars/Olympus_Mons', dir), false);
  });

  test('a name that is a path out of the database, or one of its other files, is never read as a zone', () => {
    const dir = database({ 'Test/Kathmandu': tzif([], 20_700, '<+0545>-5:45') });
    writeFileSync(join(tmp, 'outside'), tzif([], 3600, '<+01>-1'));
    assert.equal(readZoneRules('Test/Kathmandu', dir)?.offset(0), 20_700);
    for (const name of [
      '../outside',
      '/etc/passwd',
      'Test/../../outside',
      'posix/Europe/Berlin',
      'right/Europe/Berlin',
      'posixrules',
      'localtime',
      '',
      'Test/Kathmandu/',
    ])
      assert.equal(readZoneRules(name, dir), undefined, name);
    assert.equal(isTimeZone('../outside', dir), false);
  });

  test('a zone follows its own file where the database has it: transitions, then the rule', () => {
    const dir = database({
      'Test/Shifting': tzif(
        [
          [0, 3600],
          [1_000_000_000, 7200],
        ],
        -1800,
        '<+03>-3',
      ),
    });
    const zone = new Zone('Test/Shifting', dir);
    assert.equal(zone.offset(-1000), -1_800_000, 'before the first transition: the first type');
    assert.equal(zone.offset(500_000_000_000), 3_600_000);
    assert.equal(zone.offset(1_000_000_000_000 - 1), 3_600_000);
    assert.equal(zone.offset(1_000_000_000_000), 10_800_000, 'from the last transition on: the rule');
    assert.deepEqual(zone.wall(1_000_000_000_000), { year: 2001, month: 9, day: 9, hour: 4, minute: 46, second: 40 });
  });

  test('a file counting leap seconds (a right/ zone) is refused, and the zone answered by Intl', () => {
    const plain = tzif([], 0, 'UTC0');
    const leap = Buffer.from(plain);
    // The leap count of the 64-bit block's header.
    leap.writeUInt32BE(1, plain.indexOf('TZif', 4) + 28);
    const dir = database({ UTC: leap });
    assert.throws(() => readZoneRules('UTC', dir), /^ZoneFileError: time zone UTC: the file counts leap seconds/);
    assert.equal(new Zone('UTC', dir).offset(1_700_000_000_000), 0);
  });
});
