/**
 * The two Zigbee2MQTTs the fidelity tests observe the same way: the simulator and the real
 * Zigbee2MQTT 2.14.1 with the fake coordinator, each on its own broker, with the same models, and
 * the helpers that reduce an observation to what does not depend on the network (names and
 * addresses replaced by placeholders).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Broker, loadFixtures, startBroker, Z2mSimulator } from '../../src/drivers/zigbee-sim/index.ts';
import type { ModelFixture } from '../../src/zigbee/index.ts';
import { eventually, tempDir } from '../helpers/foundation.ts';
import {
  COLOUR_LIGHT,
  CONTACT_SENSOR,
  COVER,
  METERING_PLUG,
  REMOTE,
  THERMOSTAT,
  TWO_GANG_SWITCH,
} from './fake/devices.ts';
import { writeOtaFolder } from './fake/ota-image.ts';
import type { FakeDeviceSpec } from './fake/spec.ts';
import { holdOtaDownload } from './ota-hold.ts';
import { type RealZigbee2mqtt, startRealZigbee2mqtt } from './real-z2m.ts';
import { MqttRecorder, type Recorded, retainedOn } from './recorder.ts';

/** One Zigbee2MQTT (simulated or real) on its own broker, and the devices behind it. */
export interface Target {
  readonly label: string;
  readonly url: string;
  readonly base: string;
  readonly rec: MqttRecorder;
  /** The friendly name and IEEE address the device has on this network (after it joined, for a joining one). */
  friendly(d: FakeDeviceSpec): string;
  ieee(d: FakeDeviceSpec): string;
  /** The device's next command gets no answer. */
  failNext(d: FakeDeviceSpec): Promise<void>;
  /** The device leaves the network by itself. */
  leave(d: FakeDeviceSpec): Promise<void>;
  /** The device tries to join (joining is open). */
  tryJoin(d: FakeDeviceSpec): Promise<void>;
  /** The `url` of a firmware check or update (real Zigbee2MQTT reads the index there; the simulator needs none). */
  readonly otaUrl?: string;
  /** The remote's toggle button is pressed. */
  press(d: FakeDeviceSpec): Promise<void>;
  /** The device's next firmware download waits after its first block (`held`) until `release`. */
  holdUpdate(d: FakeDeviceSpec): Promise<{ held: Promise<void>; release(): Promise<void> }>;
  stop(): Promise<void>;
}

export const PAIRED = [COLOUR_LIGHT, TWO_GANG_SWITCH, REMOTE, THERMOSTAT, COVER];
export const JOINING = CONTACT_SENSOR;

const fixtures = loadFixtures();
const fixture = (model: string): ModelFixture => {
  const f = fixtures.find((x) => x.model === model);
  assert.ok(f, `a simulator fixture of ${model}`);
  return f;
};

/** The simulator on a broker of its own, with the paired models and the joining ones in range. */
export async function simulated(): Promise<Target> {
  const broker: Broker = await startBroker();
  const base = 'fidelity_sim';
  const sim = new Z2mSimulator({
    url: broker.url,
    baseTopic: base,
    devices: PAIRED.map((d) => fixture(d.expectedModel)),
    joinCandidates: [fixture(JOINING.expectedModel), fixture(METERING_PLUG.expectedModel)],
    joinsPerWindow: 1,
    joinDelayMs: 50,
    // Long enough to read the list while the device is interviewed, as on real Zigbee2MQTT.
    interviewMs: 1500,
    reportIntervalMs: 0,
  });
  await sim.start();
  const rec = await MqttRecorder.start(broker.url);
  const dev = (d: FakeDeviceSpec) => {
    const found = sim.list().find((x) => x.fixture.model === d.expectedModel);
    assert.ok(found, `the simulated ${d.expectedModel}`);
    return found;
  };
  return {
    label: 'the simulator',
    url: broker.url,
    base,
    rec,
    friendly: (d) => dev(d).friendly,
    ieee: (d) => dev(d).ieee,
    async failNext(d) {
      dev(d).failNext = 1;
    },
    async leave(d) {
      sim.leave(dev(d).ieee);
    },
    // The simulated devices in range join by themselves once joining is open.
    async tryJoin() {},
    async press(d) {
      sim.report(dev(d).ieee, { action: 'toggle' });
    },
    async holdUpdate(d) {
      const ieee = dev(d).ieee;
      sim.holdNextUpdate(ieee);
      return {
        held: eventually(() => sim.updateHeld(ieee), 30_000, 'the simulated update held'),
        release: async () => sim.releaseUpdate(ieee),
      };
    },
    async stop() {
      await rec.close();
      await sim.stop();
      await broker.close();
    },
  };
}

/** Real Zigbee2MQTT 2.14.1 with the fake coordinator on a broker of its own. */
export async function real(): Promise<Target> {
  const broker: Broker = await startBroker();
  const base = 'fidelity_z2m';
  // A newer image for the colour light, in an index Zigbee2MQTT reads (absolute paths: it reads
  // relative ones from its own data folder).
  const otaDir = tempDir('opencube-ota-');
  writeOtaFolder(
    otaDir,
    [{ manufacturerCode: COLOUR_LIGHT.manufacturerCode, imageType: 0x0103, fileVersion: 0x01001000, build: '1.104.2' }],
    true,
  );
  // No availability pings in between (they read the devices and publish their state); no
  // firmware check of its own, and its quickest pace of image blocks.
  const z2m: RealZigbee2mqtt = await startRealZigbee2mqtt({
    mqttUrl: broker.url,
    baseTopic: base,
    availabilityTimeoutSeconds: 3600,
    settings: { ota: { disable_automatic_update_check: true, image_block_response_delay: 50 } },
  });
  const rec = await MqttRecorder.start(broker.url);
  const hook = (path: string, body: unknown = {}) => rec.publish(`${z2m.hookPrefix}/${path}`, body);
  return {
    label: 'real Zigbee2MQTT 2.14.1',
    url: broker.url,
    base,
    rec,
    // A paired device has the name it was given; one that joined is named by its address.
    friendly: (d) => (d.paired ? d.name : d.ieee),
    ieee: (d) => d.ieee,
    // Only the on/off cluster: an availability ping (a Basic read) must not use the failure up.
    failNext: (d) => hook(`${d.ieee}/fail-next`, { count: 1, cluster: 'genOnOff' }),
    leave: (d) => hook(`${d.ieee}/leave`),
    tryJoin: (d) => hook('join', { ieee: d.ieee }),
    otaUrl: join(otaDir, 'index.json'),
    press: (d) => hook(`${d.ieee}/command`, { cluster: 'genOnOff', command: 'toggle' }),
    holdUpdate: (d) => holdOtaDownload(rec, z2m.hookPrefix, d.ieee),
    async stop() {
      await z2m.stop();
      await rec.close();
      await broker.close();
      rmSync(z2m.dataDir, { recursive: true, force: true });
      rmSync(otaDir, { recursive: true, force: true });
    },
  };
}

export const devicesIn = (m: Recorded): any[] => (Array.isArray(m.json) ? (m.json as any[]) : []);
export const listed = async (t: Target) => devicesIn(await retainedOn(t.url, `${t.base}/bridge/devices`));
/** Replaces the device's name and address on this network with placeholders. */
export const placeholders = (names: { friendly: string; ieee: string }, text: string) =>
  // The address first: a device that joined is named by its address.
  text.split(names.ieee).join('<ieee>').split(names.friendly).join('<name>');
export const namesOf = (t: Target, d: FakeDeviceSpec) => ({ friendly: t.friendly(d), ieee: t.ieee(d) });

/** An observation: what it is, how it is made on a target, what real Zigbee2MQTT 2.14.1 gives. */
export type Observation = [what: string, observe: (t: Target) => Promise<unknown>, expected: unknown];

/** Makes each observation on real Zigbee2MQTT (it must give `expected`) and on the simulator (the same). */
export function observeBoth(title: string, observations: readonly Observation[]): void {
  describe(title, () => {
    let sim: Target;
    let z2m: Target;

    before(async () => {
      sim = await simulated();
      z2m = await real();
    });

    after(async () => {
      await sim?.stop();
      await z2m?.stop();
    });

    for (const [what, observe, expected] of observations)
      it(`agree: ${what}`, async () => {
        const onReal = await observe(z2m);
        assert.deepEqual(onReal, expected, `real Zigbee2MQTT: ${what}`);
        const onSim = await observe(sim);
        assert.deepEqual(onSim, onReal, `the simulator differs from real Zigbee2MQTT: ${what}`);
      });
  });
}
