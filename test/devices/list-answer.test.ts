/**
 * D3's answer kept ready and patched by the registry's changes (src/http/open-api/device-list.ts):
 * after any sequence of changes (devices added, reporting, renamed, retagged, removed, the list
 * cleared or reloaded), the answer is the list as the registry holds it, byte for byte what
 * serializing it whole gives, plain and gzip; and a real client gets it compressed when it asks.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { DeviceAnnouncement } from '../../src/core/devices/contract.ts';
import { DeviceRegistry } from '../../src/core/devices/registry.ts';
import { toWire } from '../../src/core/devices/wire.ts';
import { EventBus } from '../../src/core/event-bus.ts';
import { DeviceListAnswer, SEGMENT } from '../../src/http/open-api/device-list.ts';
import { openDb } from '../../src/store/db.ts';
import { call, rest, startGateway } from '../helpers/foundation.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';

const DRIVER = 'test';

function light(ref: string, name = `Light ${ref}`): DeviceAnnouncement {
  return {
    driver_ref: ref,
    name,
    manufacturer: 'Test',
    model: 'L1',
    firmware_version: '1.0.0',
    display_category: 'light',
    capabilities: [
      { capability: 'power', permission: '1100' },
      { capability: 'brightness', permission: '1100' },
    ],
    state: { power: { powerState: 'off' }, brightness: { brightness: 10 } },
    tags: { room: 'hall', note: 'é ✓ \u2028' },
  };
}

/** What serializing the whole list at once gives. */
function expected(registry: DeviceRegistry): string {
  return JSON.stringify({ error: 0, data: { device_list: registry.list().map(toWire) }, message: 'success' });
}

async function check(list: DeviceListAnswer, registry: DeviceRegistry): Promise<void> {
  const plain = list.answer();
  const bytes = Buffer.concat(plain.parts);
  assert.equal(bytes.length, plain.length);
  assert.equal(bytes.toString('utf8'), expected(registry));
  const gz = await list.gzipped();
  const packed = Buffer.concat(gz.parts);
  assert.equal(packed.length, gz.length);
  assert.deepEqual(gunzipSync(packed), bytes);
}

type Op =
  | { kind: 'add'; n: number }
  | { kind: 'state'; at: number; brightness: number }
  | { kind: 'rename'; at: number; name: string }
  | { kind: 'retag'; at: number; tags: Record<string, unknown> | null }
  | { kind: 'remove'; at: number; n: number }
  | { kind: 'reload' }
  | { kind: 'clear' }
  | { kind: 'read' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('add' as const), n: fc.integer({ min: 1, max: 400 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('state' as const),
      at: fc.nat(),
      brightness: fc.integer({ min: 0, max: 100 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('rename' as const),
      at: fc.nat(),
      name: fc.string({ minLength: 1, maxLength: 30 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('retag' as const),
      at: fc.nat(),
      tags: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('remove' as const), at: fc.nat(), n: fc.integer({ min: 1, max: 300 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'reload' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'read' as const }) },
);

describe('the kept device list (D3)', () => {
  it('is, after any changes, what serializing the whole list gives, plain and gzip', async () => {
    let next = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        const db = openDb(':memory:');
        const registry = new DeviceRegistry(db, new EventBus(100));
        const list = new DeviceListAnswer(registry);
        const pick = (at: number) => {
          const all = registry.list();
          return all.length === 0 ? undefined : all[at % all.length];
        };
        try {
          for (const o of ops) {
            if (o.kind === 'add')
              registry.batch(() => {
                for (let i = 0; i < o.n; i++) registry.deviceFound(DRIVER, light(`d${next++}`));
              });
            else if (o.kind === 'state') {
              const d = pick(o.at);
              if (d) registry.stateReported(d.serial_number, { brightness: { brightness: o.brightness } });
            } else if (o.kind === 'rename') {
              const d = pick(o.at);
              if (d) registry.updateLocal(d.serial_number, { userName: o.name });
            } else if (o.kind === 'retag') {
              const d = pick(o.at);
              if (d) registry.updateLocal(d.serial_number, { tags: o.tags });
            } else if (o.kind === 'remove') {
              const all = registry.list();
              for (let i = 0; i < Math.min(o.n, all.length); i++) {
                const d = all[(o.at + i * 7) % all.length];
                if (d && registry.get(d.serial_number)) registry.deviceLeft(d.serial_number);
              }
            } else if (o.kind === 'reload') {
              // A batch that fails rolls back and reloads the registry from the store.
              assert.throws(() =>
                registry.batch(() => {
                  registry.deviceFound(DRIVER, light(`d${next++}`));
                  throw new Error('rolled back');
                }),
              );
            } else if (o.kind === 'clear') registry.clear();
            else await check(list, registry);
          }
          await check(list, registry);
        } finally {
          db.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it(`patches one segment of ${SEGMENT} devices for a change, not the whole list`, async () => {
    const db = openDb(':memory:');
    try {
      const registry = new DeviceRegistry(db, new EventBus(100));
      registry.batch(() => {
        for (let i = 0; i < SEGMENT * 4; i++) registry.deviceFound(DRIVER, light(`p${i}`));
      });
      const list = new DeviceListAnswer(registry);
      const before = list.answer().parts;
      const target = registry.list()[SEGMENT * 2 + 5];
      registry.stateReported(target?.serial_number as string, { brightness: { brightness: 99 } });
      const after = list.answer().parts;
      // The head, four segments with three commas between them, the tail: only the third segment is new.
      assert.equal(after.length, 9);
      const same = after.filter((p, i) => p.buffer === before[i]?.buffer && p.byteOffset === before[i]?.byteOffset);
      assert.equal(same.length, 8);
      await check(list, registry);
    } finally {
      db.close();
    }
  });
});

describe('D3 compressed for clients that ask', () => {
  it('answers gzip to clients that accept it (node fetch, python requests), plain to the others, small lists plain', async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    const token = g.token('gzip');
    const headers = { authorization: `Bearer ${token}` };
    const url = `${g.url}${rest('v2', 'devices')}`;
    const get = (extra: Record<string, string>) => fetch(url, { headers: { ...headers, ...extra } });

    // One device: a small answer goes out plain even to a client that accepts gzip.
    await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('small-0', 'http://127.0.0.1:9/x')] });
    const small = await get({ 'accept-encoding': 'gzip' });
    assert.equal(small.headers.get('content-encoding'), null);
    assert.equal(((await small.json()) as { data: { device_list: unknown[] } }).data.device_list.length, 1);

    await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: Array.from({ length: 120 }, (_, i) => endpoint(`big-${i}`, 'http://127.0.0.1:9/x')),
    });
    const plain = await call(g.url, 'GET', rest('v2', 'devices'), {
      token,
      headers: { 'accept-encoding': 'identity' },
    });
    assert.equal(plain.headers.get('content-encoding'), null);
    assert.equal(plain.json.data.device_list.length, 121);

    // node's fetch asks for gzip by itself (as Node-RED's and axios' stacks do) and reads it back.
    const viaFetch = await fetch(url, { headers });
    assert.equal(viaFetch.headers.get('content-encoding'), 'gzip');
    assert.equal(viaFetch.headers.get('vary'), 'Accept-Encoding');
    assert.equal(await viaFetch.text(), plain.text);

    for (const [accept, gzip] of [
      ['gzip, deflate', true],
      ['br;q=1.0, gzip;q=0.8, *;q=0.1', true],
      ['*', true],
      ['gzip;q=0', false],
      ['deflate, br', false],
      ['identity', false],
      ['*;q=0', false],
    ] as const) {
      const res = await get({ 'accept-encoding': accept });
      assert.equal(res.headers.get('content-encoding') === 'gzip', gzip, accept);
      const body = Buffer.from(await res.arrayBuffer());
      // fetch decodes what it asked for itself only: here the header is the test's, so read it raw.
      const text = gzip && body[0] === 0x1f ? gunzipSync(body).toString() : body.toString();
      assert.equal(text, plain.text, accept);
    }

    // python requests (what the Python client uses): asks for gzip, deflate and decodes it.
    // Run apart (not spawnSync): the gateway answering it runs in this process.
    const py = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve, reject) => {
      const child = execFile(
        'python3',
        [
          '-c',
          `import requests, sys
r = requests.get(sys.argv[1], headers={"Authorization": "Bearer " + sys.argv[2]})
print(r.request.headers["Accept-Encoding"]); print(r.headers.get("Content-Encoding")); print(len(r.json()["data"]["device_list"])); sys.stdout.write(r.text)`,
          url,
          token,
        ],
        { encoding: 'utf8', timeout: 30_000 },
        (err, stdout, stderr) => resolve({ stdout, stderr, code: err ? (child.exitCode ?? -1) : 0 }),
      );
      child.once('error', reject);
    });
    if (/No module named/.test(py.stderr)) t.skip(`python3 with requests is not installed here: ${py.stderr}`);
    else {
      assert.equal(py.code, 0, py.stderr);
      const [asked, encoding, count, ...text] = py.stdout.split('\n');
      assert.equal(asked, 'gzip, deflate');
      assert.equal(encoding, 'gzip');
      assert.equal(count, '121');
      assert.equal(text.join('\n'), plain.text);
    }
  });
});
