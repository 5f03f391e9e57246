/**
 * The backends of the upkeep scenario (scenario.ts): the real Zigbee2MQTT 2.14.1 with the fake
 * coordinator, the herdsman driver on the fake coordinator in this process (both with the user's
 * folder of firmware: an index naming images relative to the folder), and the simulated network
 * (the same models; its firmware is simulated).
 */
import { rmSync } from 'node:fs';
import { createHerdsman } from '../../src/drivers/herdsman/index.ts';
import { type Broker, loadFixtures, startBroker, Z2mSimulator } from '../../src/drivers/zigbee-sim/index.ts';
import { Zigbee2MqttDriver } from '../../src/drivers/zigbee2mqtt/index.ts';
import type { ModelFixture } from '../../src/zigbee/index.ts';
import { eventually, tempDir, testSettings } from '../helpers/foundation.ts';
import { herdsmanSetup } from '../herdsman/harness.ts';
import { COLOUR_LIGHT, COVER, DIMMABLE_LIGHT, FAKE_DEVICES } from '../z2m/fake/devices.ts';
import type { ReceivedRequest } from '../z2m/fake/network.ts';
import { writeOtaFolder } from '../z2m/fake/ota-image.ts';
import type { FakeDeviceSpec } from '../z2m/fake/spec.ts';
import { holdOtaDownload } from '../z2m/ota-hold.ts';
import { startRealZigbee2mqtt } from '../z2m/real-z2m.ts';
import { MqttRecorder } from '../z2m/recorder.ts';
import { quiet, startRig } from './rig.ts';
import { SCENARIO_DEVICES, type UpkeepBackend } from './scenario.ts';

/** What the colour light runs after its update (the image of the user's folder). */
const NEW_VERSION = 0x01001000;
const NEW_BUILD = '1.104.2_r32030';
const DEVICES = [...FAKE_DEVICES, DIMMABLE_LIGHT];
/** Commands that change a light or a switch (reads and reporting set-up are not). */
const COMMANDS = /^(on|off|toggle|offWithEffect|moveToLevel\w*|move\w*|step\w*|stop\w*|enhanced\w*)$/;

function firmwareFolder(): string {
  const dir = tempDir('opencube-ota-');
  writeOtaFolder(dir, [
    { manufacturerCode: COLOUR_LIGHT.manufacturerCode, imageType: 0x0103, fileVersion: NEW_VERSION, build: NEW_BUILD },
  ]);
  return dir;
}

/** The real Zigbee2MQTT with the fake coordinator, and the gateway's core in `z2m` mode. */
export async function realZigbee2mqtt(): Promise<UpkeepBackend> {
  const broker: Broker = await startBroker();
  const base = 'upkeep_z2m';
  const otaDir = firmwareFolder();
  const dataDir = tempDir('opencube-upkeep-');
  const z2m = await startRealZigbee2mqtt({
    mqttUrl: broker.url,
    baseTopic: base,
    devices: DEVICES,
    availabilityTimeoutSeconds: 3600,
    // Zigbee2MQTT's smallest pause between image blocks; no check of its own.
    settings: { ota: { disable_automatic_update_check: true, image_block_response_delay: 50 } },
  });
  const rec = await MqttRecorder.start(broker.url);
  const driver = new Zigbee2MqttDriver({
    url: broker.url,
    baseTopics: [base],
    permitJoinSeconds: 60,
    log: quiet,
    otaIndex: otaDir,
    dataDir,
  });
  const rig = await startRig(driver, { dir: dataDir });
  const hook = (path: string, body: unknown = {}) => rec.publish(`${z2m.hookPrefix}/${path}`, body);
  return {
    name: 'real Zigbee2MQTT 2.14.1',
    rig,
    ieee: (d) => d.ieee,
    failNextUpdate: (d) => hook(`${d.ieee}/ota-fail`, { how: 'invalid-image' }),
    holdNextUpdate: (d) => holdOtaDownload(rec, z2m.hookPrefix, d.ieee),
    press: (d) => hook(`${d.ieee}/command`, { cluster: 'genOnOff', command: 'toggle' }),
    mark: () => rec.mark(),
    groupCommands: (mark, group) =>
      rec.since(mark, (m) => m.topic === `${z2m.hookPrefix}/group/${group}/received`).length,
    deviceCommands: (mark) =>
      rec.since(mark, (m) => m.topic.startsWith(`${base}/0x`) && m.topic.endsWith('/set')).length +
      rec.since(
        mark,
        (m) =>
          /^[^/]+\/0x[0-9a-f]+\/received$/.test(m.topic) && COMMANDS.test(String((m.json as ReceivedRequest).command)),
      ).length,
    failure: /^Zigbee2MQTT: OTA update of 'hue_colour_light' failed \(/,
    newVersion: NEW_VERSION,
    newBuild: NEW_BUILD,
    async stop() {
      await rig.stop();
      await z2m.stop();
      await rec.close();
      await broker.close();
      for (const d of [z2m.dataDir, otaDir, dataDir]) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** The herdsman driver on the fake coordinator, in this process (`herdsman` mode). */
export async function herdsmanOnFakeCoordinator(): Promise<UpkeepBackend> {
  const otaDir = firmwareFolder();
  const s = herdsmanSetup(DEVICES, { net: { otaBlockDelayMs: 1 } });
  const received: (ReceivedRequest & { seq: number })[] = [];
  s.net.events.on('received', (r) => received.push({ ...r, seq: received.length }));
  const zigbee = { ...(s.overrides.zigbee as object), ota_index: otaDir };
  const driver = createHerdsman(testSettings(s.dataDir, { ...s.overrides, zigbee }), quiet, {
    ...s.driver,
    // No pause between image blocks; every step of the progress told; a quick scan.
    otaResponseDelayMs: 0,
    otaProgressEveryMs: 0,
    scanPaceMs: 10,
    scanRetryMs: 50,
  });
  const rig = await startRig(driver, { dir: s.dataDir });
  const since = (mark: number) => received.slice(mark);
  return {
    name: 'the herdsman driver',
    rig,
    ieee: (d) => d.ieee,
    async failNextUpdate(d) {
      s.net.failOta(d.ieee, 'invalid-image');
    },
    async holdNextUpdate(d) {
      const held = new Promise<void>((resolve) => {
        const on = (e: { ieee: string }) => {
          if (e.ieee !== d.ieee) return;
          s.net.events.off('otaHeld', on);
          resolve();
        };
        s.net.events.on('otaHeld', on);
      });
      s.net.holdOta(d.ieee);
      return { held, release: async () => s.net.releaseOta(d.ieee) };
    },
    async press(d) {
      s.net.command(d.ieee, undefined, 'genOnOff', 'toggle');
    },
    mark: () => received.length,
    groupCommands: (mark, group) => since(mark).filter((r) => r.kind === 'group' && r.ieee === `group ${group}`).length,
    deviceCommands: (mark) => since(mark).filter((r) => r.kind === 'zcl' && COMMANDS.test(r.command)).length,
    failure: /^Zigbee: OTA update of 0x0017880100fa4e01 failed with reason: /,
    newVersion: NEW_VERSION,
    newBuild: NEW_BUILD,
    unplug: () => s.net.unplug(),
    plugIn: () => s.net.plugIn(),
    ask: (d) =>
      s.net.command(d.ieee, undefined, 'genOta', 'queryNextImageRequest', {
        fieldControl: 0,
        manufacturerCode: d.manufacturerCode,
        imageType: d.ota?.imageType ?? 0,
        fileVersion: d.ota?.fileVersion ?? 0,
      }),
    answers: (mark) => since(mark).map((r) => r.command),
    async stop() {
      await rig.stop();
      s.net.close();
      for (const d of [s.dataDir, otaDir]) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** The simulated network (`sim` mode): the Zigbee2MQTT driver on a simulated Zigbee2MQTT. */
export async function simulatedNetwork(): Promise<UpkeepBackend> {
  const broker: Broker = await startBroker();
  const base = 'upkeep_sim';
  const fixtures = loadFixtures();
  const fixture = (d: FakeDeviceSpec) => fixtures.find((f) => f.model === d.expectedModel) as ModelFixture;
  const sim = new Z2mSimulator({
    url: broker.url,
    baseTopic: base,
    devices: [...SCENARIO_DEVICES, COVER].map(fixture),
    reportIntervalMs: 0,
    otaStepMs: 10,
    mapStepMs: 10,
  });
  await sim.start();
  const rec = await MqttRecorder.start(broker.url);
  const dataDir = tempDir('opencube-upkeep-');
  const driver = new Zigbee2MqttDriver({
    url: broker.url,
    baseTopics: [base],
    permitJoinSeconds: 60,
    log: quiet,
    dataDir,
  });
  const rig = await startRig(driver, { dir: dataDir });
  const ieee = (d: FakeDeviceSpec) => {
    const found = sim.list().find((x) => x.fixture.model === d.expectedModel);
    if (!found) throw new Error(`no simulated ${d.expectedModel}`);
    return found.ieee;
  };
  const light = sim.device(ieee(COLOUR_LIGHT));
  const setTo = (names: string[]) => (m: { topic: string }) => names.some((n) => m.topic === `${base}/${n}/set`);
  return {
    name: 'the simulated network',
    rig,
    ieee,
    async failNextUpdate(d) {
      sim.failNextUpdate(ieee(d));
    },
    async holdNextUpdate(d) {
      sim.holdNextUpdate(ieee(d));
      return {
        held: eventually(() => sim.updateHeld(ieee(d)), 30_000, 'the update held'),
        release: async () => sim.releaseUpdate(ieee(d)),
      };
    },
    async press(d) {
      sim.report(ieee(d), { action: 'toggle' });
    },
    mark: () => rec.mark(),
    groupCommands: (mark, group) =>
      rec.since(
        mark,
        setTo(
          sim
            .groups()
            .filter((g) => g.id === group)
            .map((g) => g.friendly_name),
        ),
      ).length,
    deviceCommands: (mark) => rec.since(mark, setTo(sim.list().map((d) => d.friendly))).length,
    failure: /^Zigbee2MQTT: OTA update of '.+' failed \(OTA update of 0x[0-9a-f]+ failed with reason: /,
    newVersion: (light?.firmware.version ?? 0) + 0x100,
    newBuild: '1.0.8',
    async stop() {
      await rig.stop();
      await rec.close();
      await sim.stop();
      await broker.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
