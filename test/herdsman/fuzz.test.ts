/**
 * The herdsman driver under random device traffic: the fake coordinator's devices report random
 * values of random attributes of their clusters (in range, out of range, of the wrong kind) and
 * send random commands. After every batch the gateway answers D3, every device's state is valid
 * for its capabilities, and the light still obeys a command.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { sanitizeReport } from '../../src/catalog/index.ts';
import { call, listDevices, rest, type TestGateway, waitForValue } from '../helpers/foundation.ts';
import { COLOUR_LIGHT, FAKE_DEVICES } from '../z2m/fake/devices.ts';
import type { AttributeValues, FakeDeviceSpec } from '../z2m/fake/spec.ts';
import { type HerdsmanSetup, herdsmanSetup, startHerdsmanGateway, zh } from './harness.ts';

const PAIRED = FAKE_DEVICES.filter((d) => d.paired);
/** Devices that send the random traffic (the light is kept for the command after each batch). */
const SENDERS = PAIRED.filter((d) => d !== COLOUR_LIGHT);

/** The attribute names of a cluster, as herdsman knows them. */
const attributesOf = (cluster: string): string[] =>
  Object.keys(zh.Zcl.Utils.getCluster(cluster, undefined, {}).attributes);
/** The commands a device may send on a cluster (client side). */
const commandsOf = (cluster: string): string[] => Object.keys(zh.Zcl.Utils.getCluster(cluster, undefined, {}).commands);

const value = fc.oneof(
  fc.constantFrom(0, 1, -1, 254, 255, 256, 65535, 0x7fffffff, -32768, 0.5),
  fc.integer({ min: -70000, max: 70000 }),
  fc.boolean(),
  fc.string({ maxLength: 8 }),
);

/** One thing a device sends. */
const frame = fc.record({
  device: fc.integer({ min: 0, max: SENDERS.length - 1 }),
  endpoint: fc.nat(),
  cluster: fc.nat(),
  kind: fc.constantFrom('report', 'command'),
  name: fc.nat(),
  value,
  extra: fc.dictionary(
    fc.constantFrom('level', 'stepmode', 'stepsize', 'movemode', 'rate', 'transtime', 'zonestatus'),
    value,
  ),
});

/** One random frame, as generated. */
type Frame = typeof frame extends fc.Arbitrary<infer T> ? T : never;

const pick = <T>(list: readonly T[], n: number): T | undefined =>
  list.length === 0 ? undefined : list[n % list.length];

describe('the herdsman driver under random device traffic', () => {
  let s: HerdsmanSetup;
  let g: TestGateway;
  let token: string;

  before(async () => {
    s = herdsmanSetup(PAIRED);
    g = await startHerdsmanGateway(s);
    token = g.token();
    await waitForValue(
      async () =>
        (await listDevices(g.url, token)).filter((d) => d.online).length === PAIRED.length ? true : undefined,
      15_000,
      'the devices online',
    );
  });

  after(async () => {
    await g?.stop();
    s?.net.close();
    if (s) rmSync(s.dataDir, { recursive: true, force: true });
  });

  /** Sends one random frame from a device; a frame the fake cannot even encode is not sent. */
  function send(f: Frame): void {
    const spec = SENDERS[f.device] as FakeDeviceSpec;
    const ep = pick(spec.endpoints, f.endpoint);
    if (!ep) return;
    const clusters = (f.kind === 'report' ? ep.inputClusters : ep.outputClusters).filter(
      (c): c is string => typeof c === 'string',
    );
    const cluster = pick(clusters, f.cluster);
    if (!cluster) return;
    try {
      if (f.kind === 'report') {
        const name = pick(attributesOf(cluster), f.name);
        if (name) s.net.report(spec.ieee, ep.id, cluster, { [name]: f.value } as AttributeValues);
      } else {
        const name = pick(commandsOf(cluster), f.name);
        if (name) s.net.command(spec.ieee, ep.id, cluster, name, f.extra);
      }
    } catch {
      // the value does not fit the attribute's type: no device could send it
    }
  }

  test('stays consistent, keeps states valid, and keeps obeying', async () => {
    const light = (await listDevices(g.url, token)).find((d) => d.model === COLOUR_LIGHT.expectedModel);
    assert.ok(light);
    let on = false;
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 12 }), async (batch) => {
        for (const f of batch) send(f);
        await new Promise((r) => setTimeout(r, 30));
        const list = await listDevices(g.url, token);
        assert.equal(list.length, PAIRED.length);
        for (const d of list) {
          const clean = sanitizeReport(d.capabilities, d.state);
          assert.deepEqual(clean.warnings, [], `${d.model}: ${JSON.stringify(d.state)}`);
        }
        on = !on;
        const r = await call(g.url, 'PUT', rest('v2', `devices/${light.serial_number}`), {
          token,
          body: { state: { power: { powerState: on ? 'on' : 'off' } } },
        });
        assert.equal(r.json.error, 0, r.text);
      }),
      { numRuns: 40, seed: 14 },
    );
  });
});
