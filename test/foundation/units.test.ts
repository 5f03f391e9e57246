/** Small pieces of the foundation, each on its own: event ring, URL and header parsing, runtime, info. */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { EventBus } from '../../src/core/event-bus.ts';
import { lanInterface, threePartVersion } from '../../src/core/gateway-info.ts';
import { RuntimeMonitor } from '../../src/core/runtime.ts';
import { isValidMediaType, parseBody } from '../../src/http/body.ts';
import { bearerToken } from '../../src/http/open-api/auth.ts';
import { normalizeUrl } from '../../src/http/server.ts';
import { mdnsHostName } from '../../src/integrations/mdns/advertise.ts';
import { tempDir, testSettings } from '../helpers/foundation.ts';

function event(bus: EventBus, n: number) {
  return bus.publish('device#deleteDevice', { endpoint: { serial_number: String(n) } });
}

describe('EventBus', () => {
  it('gives monotonic ids above the starting id and calls subscribers in order', () => {
    const bus = new EventBus(10, 1000);
    const seen: number[] = [];
    bus.subscribe((e) => seen.push(e.id));
    const ids = [1, 2, 3].map((n) => event(bus, n).id);
    assert.deepEqual(ids, [1001, 1002, 1003]);
    assert.deepEqual(seen, ids);
    const e = event(bus, 4);
    assert.equal(e.module, 'device');
    assert.equal(e.type, 'deleteDevice');
    assert.equal(e.json, JSON.stringify(e.data));
  });

  it('isolates a throwing subscriber from the others', () => {
    const errors: unknown[] = [];
    const bus = new EventBus(10, 0, (err) => errors.push(err));
    const seen: number[] = [];
    bus.subscribe(() => {
      throw new Error('boom');
    });
    bus.subscribe((e) => seen.push(e.id));
    event(bus, 1);
    assert.deepEqual(seen, [1]);
    assert.equal(errors.length, 1);
  });

  it('replays exactly the events after any kept id, and reports a gap for anything else (model check)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: -5, max: 70 }),
        (capacity, count, firstId, offset) => {
          const bus = new EventBus(capacity, firstId);
          const all = Array.from({ length: count }, (_, i) => event(bus, i).id);
          const lastSeen = firstId + offset;
          const r = bus.since(lastSeen);
          const kept = all.slice(-capacity);
          const lastId = firstId + count;
          const oldest = kept[0];
          // the client can be served when it saw the last event, or the one just before the oldest kept
          const servable =
            lastSeen === lastId || (oldest !== undefined && lastSeen >= oldest - 1 && lastSeen <= lastId);
          if (servable) {
            assert.ok(r.ok, `lastSeen ${lastSeen} should be served`);
            assert.deepEqual(
              r.events.map((e) => e.id),
              all.filter((id) => id > lastSeen),
            );
          } else {
            assert.equal(r.ok, false, `lastSeen ${lastSeen} should be a gap`);
            if (!r.ok) {
              assert.equal(r.last, lastId);
              assert.equal(r.oldest, oldest ?? null);
            }
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('URL versions', () => {
  const table: [string, string][] = [
    ['/open-api/V2/rest/bridge', '/open-api/v2/rest/bridge'],
    ['/open-api/V1/sse/bridge?access_token=A', '/open-api/v1/sse/bridge?access_token=A'],
    ['/OPEN-API/V2/rest/bridge', '/open-api/v2/rest/bridge'],
    ['/open-api/v2', '/open-api/v2'],
    ['/open-api/V2?x=V2', '/open-api/v2?x=V2'],
    ['/open-api/V2x/rest', '/open-api/V2x/rest'],
    ['/open-api/v2/rest/devices/V2', '/open-api/v2/rest/devices/V2'],
    ['/other/V2/rest', '/other/V2/rest'],
  ];
  for (const [input, output] of table) {
    it(`${input} -> ${output}`, () => assert.equal(normalizeUrl(input), output));
  }
});

describe('bearerToken', () => {
  const table: [string | string[] | undefined, string | null][] = [
    [undefined, null],
    ['', null],
    ['   ', null],
    ['Bearer', null],
    ['Bearer ', null],
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER \t abc  ', 'abc'],
    ['abc', 'abc'],
    [['Bearer first', 'Bearer second'], 'first'],
  ];
  for (const [header, token] of table) {
    it(`${JSON.stringify(header)} -> ${JSON.stringify(token)}`, () => assert.equal(bearerToken(header), token));
  }
});

describe('bodies', () => {
  it('reads empty and whitespace bodies as {}', () => {
    for (const text of ['', ' ', '\n\t ']) assert.deepEqual(parseBody(text), {});
  });
  it('names the problem of a body that is not JSON', () => {
    assert.throws(() => parseBody('{'), /body is not valid JSON/);
    assert.deepEqual(parseBody('  '), {});
  });
  it('refuses JSON nested deeper than 64 levels, and accepts 64', () => {
    const nest = (n: number) => `${'['.repeat(n - 1)}{}${']'.repeat(n - 1)}`;
    assert.doesNotThrow(() => parseBody(nest(64)));
    assert.throws(() => parseBody(nest(65)), /nested deeper than 64/);
  });
  it('tells which Content-Type headers Fastify can parse', () => {
    for (const ok of ['application/json', 'text/plain; charset=utf-8', ' a/b ', 'x/y;'])
      assert.ok(isValidMediaType(ok), ok);
    for (const bad of ['', 'json', ';', '/', 'a/', '/b', 'a b/c', 'a/b c']) assert.ok(!isValidMediaType(bad), bad);
  });
});

describe('runtime readings', () => {
  it('are integers within range, power_up_time in the past in ISO with Z', () => {
    const monitor = new RuntimeMonitor(50);
    const r = monitor.read();
    assert.ok(Number.isInteger(r.ram_used) && r.ram_used >= 0 && r.ram_used <= 100);
    assert.ok(Number.isInteger(r.cpu_used) && r.cpu_used >= 0 && r.cpu_used <= 100);
    assert.match(r.power_up_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    assert.ok(Date.parse(r.power_up_time) < Date.now());
    assert.equal(r.sd_card_used, '');
    assert.ok(Number.isInteger(r.cpu_temp));
    assert.equal(r.cpu_temp_unit, 'c');
  });
  it('read the CPU temperature from a thermal zone, else from a hwmon sensor, else serve 0 and say there is no sensor', () => {
    const sys = tempDir();
    try {
      const none = new RuntimeMonitor(50, sys).read();
      assert.deepEqual([none.cpu_temp, none.cpu_temp_unit, none.cpu_temp_sensor], [0, 'c', false]);
      mkdirSync(join(sys, 'class/hwmon/hwmon0'), { recursive: true });
      writeFileSync(join(sys, 'class/hwmon/hwmon0/name'), 'nvme\n');
      writeFileSync(join(sys, 'class/hwmon/hwmon0/temp1_input'), '31000\n');
      mkdirSync(join(sys, 'class/hwmon/hwmon1'), { recursive: true });
      writeFileSync(join(sys, 'class/hwmon/hwmon1/name'), 'coretemp\n');
      writeFileSync(join(sys, 'class/hwmon/hwmon1/temp1_input'), '47600\n');
      const hwmon = new RuntimeMonitor(50, sys).read();
      assert.deepEqual([hwmon.cpu_temp, hwmon.cpu_temp_sensor], [48, true]);
      for (const [zone, type, milli] of [
        ['thermal_zone0', 'acpitz', '27800'],
        ['thermal_zone1', 'cpu_thermal', '52100'],
      ]) {
        mkdirSync(join(sys, 'class/thermal', zone), { recursive: true });
        writeFileSync(join(sys, 'class/thermal', zone, 'type'), `${type}\n`);
        writeFileSync(join(sys, 'class/thermal', zone, 'temp'), `${milli}\n`);
      }
      const zone = new RuntimeMonitor(50, sys).read();
      assert.deepEqual([zone.cpu_temp, zone.cpu_temp_unit, zone.cpu_temp_sensor], [52, 'c', true]);
    } finally {
      rmSync(sys, { recursive: true, force: true });
    }
  });
});

describe('gateway info', () => {
  it('reduces versions to three numeric parts', () => {
    assert.equal(threePartVersion('0.1.0'), '0.1.0');
    assert.equal(threePartVersion('2.4.0-beta.1'), '2.4.0');
    assert.equal(threePartVersion('v1'), '0.0.0');
  });
  it('finds an IPv4 address and a MAC for the LAN interface (loopback when there is none)', () => {
    const lan = lanInterface();
    assert.match(lan.ip, /^\d{1,3}(\.\d{1,3}){3}$/);
    assert.match(lan.mac, /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i);
  });
  it('advertises an mDNS host name that contains "cube"', () => {
    const name = (n: string) => mdnsHostName({ ...testSettings('/tmp/unused'), name: n });
    assert.equal(name('opencube'), 'opencube.local');
    assert.equal(name('My Home!'), 'my-home-cube.local');
    assert.equal(name('***'), 'opencube.local');
    assert.equal(name('Cube Kitchen'), 'cube-kitchen.local');
  });
});
