/**
 * The timers of firmware updates, network scans and bridge requests, run on the gateway's clock
 * moved by hand (test/helpers/clock.ts), through many of their periods: an update's progress told
 * at most once a period, a scan pacing its routers, a Zigbee2MQTT request unanswered given up
 * exactly at its deadline. Nothing here waits out a real timeout.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import mqtt from 'mqtt';
import { createHerdsman } from '../../src/drivers/herdsman/index.ts';
import { type Broker, loadFixtures, startBroker } from '../../src/drivers/zigbee-sim/index.ts';
import { Zigbee2MqttDriver } from '../../src/drivers/zigbee2mqtt/index.ts';
import { advanceUntil, ManualClock, settle, watch } from '../helpers/clock.ts';
import { eventually, tempDir, testSettings } from '../helpers/foundation.ts';
import { herdsmanSetup } from '../herdsman/harness.ts';
import { COLOUR_LIGHT, DIMMABLE_LIGHT, FAKE_DEVICES } from '../z2m/fake/devices.ts';
import type { ReceivedRequest } from '../z2m/fake/network.ts';
import { writeOtaFolder } from '../z2m/fake/ota-image.ts';
import { quiet, startRig, type UpkeepRig } from './rig.ts';

const SECOND = 1000;

describe('the herdsman driver on the gateway’s clock', () => {
  const clock = new ManualClock(Date.UTC(2025, 0, 1), { zeroAtOnce: true });
  let rig: UpkeepRig;
  let otaDir: string;
  let s: ReturnType<typeof herdsmanSetup>;

  before(async () => {
    otaDir = tempDir('opencube-ota-');
    // A large image: about 120 blocks of 50 bytes.
    writeOtaFolder(otaDir, [
      {
        manufacturerCode: COLOUR_LIGHT.manufacturerCode,
        imageType: 0x0103,
        fileVersion: 0x01001000,
        build: '2',
        bodyBytes: 6000,
      },
    ]);
    s = herdsmanSetup([...FAKE_DEVICES, DIMMABLE_LIGHT], { net: { otaBlockDelayMs: 1 } });
    // Each block the coordinator serves takes 100 ms of the gateway's clock.
    s.net.events.on('received', (r) => {
      if (r.command === 'imageBlockResponse') clock.advance(100);
    });
    const zigbee = { ...(s.overrides.zigbee as object), ota_index: otaDir };
    const driver = createHerdsman(testSettings(s.dataDir, { ...s.overrides, zigbee }), quiet, {
      ...s.driver,
      clock,
      readPaceMs: 0,
      coordinatorCheckMs: 0,
      otaResponseDelayMs: 0,
      otaProgressEveryMs: 2 * SECOND,
      scanPaceMs: SECOND,
      scanRetryMs: 5 * SECOND,
    });
    rig = await startRig(driver, { dir: s.dataDir, clock });
    await rig.listed(COLOUR_LIGHT.ieee);
    await rig.listed(DIMMABLE_LIGHT.ieee);
  });

  after(async () => {
    await rig?.stop();
    s?.net.close();
    for (const d of [s?.dataDir, otaDir]) if (d) rmSync(d, { recursive: true, force: true });
  });

  it("tells an update's progress at most once every 2 s of the clock, always rising, then 100", async () => {
    const light = rig.byIeee(COLOUR_LIGHT.ieee).serial_number;
    const told: { at: number; percent: number; remaining?: number }[] = [];
    const off = rig.bus.subscribe((e) => {
      if (e.name !== 'zigbee#firmware') return;
      const p = (e.data as { payload: { serial_number: string; state: string; progress?: number; remaining?: number } })
        .payload;
      if (p.serial_number === light && p.state === 'updating' && p.progress !== undefined)
        told.push({ at: clock.now(), percent: p.progress, remaining: p.remaining });
    });
    try {
      const from = rig.events.length;
      const r = rig.upkeep.updateFirmware({ serial_number: light });
      assert.ok(r.ok, r.ok ? '' : r.message);
      await rig.waitFor(
        'zigbee#firmware',
        (d) => d.payload.serial_number === light && d.payload.state === 'updated',
        from,
      );
    } finally {
      off();
    }
    // About 12 s of the clock went by: several periods, each told once (the start and the end aside).
    const middle = told.filter((t) => t.percent > 0 && t.percent < 100);
    assert.ok(middle.length >= 4, `progress told: ${JSON.stringify(told)}`);
    for (let i = 1; i < middle.length; i++)
      assert.ok(
        (middle[i] as (typeof told)[number]).at - (middle[i - 1] as (typeof told)[number]).at >= 2 * SECOND,
        JSON.stringify(told),
      );
    assert.deepEqual([told[0]?.percent, told.at(-1)?.percent], [0, 100]);
    const percents = told.map((t) => t.percent);
    assert.deepEqual(
      [...percents].sort((a, b) => a - b),
      percents,
    );
    // The time left is estimated from the pace so far: it falls as the update goes on.
    const left = middle.map((t) => t.remaining as number);
    assert.ok(
      left.every((x, i) => i === 0 || x <= (left[i - 1] as number) + 1),
      `remaining: ${left.join()}`,
    );
  });

  it('interviews the light again 5 s of the clock after its update, then configures it again (new firmware, new description), as Zigbee2MQTT does', async () => {
    const seen: ReceivedRequest[] = [];
    const on = (r: ReceivedRequest) => {
      if (r.ieee === COLOUR_LIGHT.ieee) seen.push(r);
    };
    s.net.events.on('received', on);
    const zdo = (command: string) => seen.some((r) => r.kind === 'zdo' && r.command === command);
    try {
      // The update above ended at this clock time: nothing before its 5 s.
      clock.advance(4 * SECOND);
      await settle(300);
      assert.ok(!zdo('ACTIVE_ENDPOINTS_REQUEST'), `not interviewed before 5 s: ${seen.map((r) => r.command)}`);
      clock.advance(SECOND);
      await eventually(
        () => zdo('ACTIVE_ENDPOINTS_REQUEST') && zdo('SIMPLE_DESCRIPTOR_REQUEST'),
        20_000,
        'the interview',
      );
      // Its model's configuration runs again: for this light, reads of its colour capabilities (0x400a).
      await eventually(
        () =>
          seen.some(
            (r) =>
              r.cluster === 'lightingColorCtrl' &&
              r.command === 'read' &&
              JSON.stringify(r.payload).includes('"attrId":16394'),
          ),
        20_000,
        'its configuration done again',
      );
    } finally {
      s.net.events.off('received', on);
    }
  });

  it('paces a network scan: one second of the clock between two routers', async () => {
    // The routers asked for their neighbour table (a table is read 3 entries a request).
    const routers = new Set<string>();
    s.net.events.on('received', (r) => {
      if (r.command === 'LQI_TABLE_REQUEST') routers.add(r.ieee);
    });
    const asked = () => routers.size;
    const scan = watch(rig.upkeep.scanNetwork({}));
    let pauses = 0;
    for (;;) {
      // A router answered (the coordinator answers for itself first): the next is asked once a
      // second of the clock has gone by, not before.
      await eventually(() => scan.done || clock.dueTimes().includes(clock.now() + SECOND), 10_000, 'a pause');
      if (scan.done) break;
      const before = asked();
      clock.advance(SECOND - 1);
      await settle();
      assert.equal(asked(), before, 'not asked before the second is over');
      clock.advance(1);
      pauses++;
      await eventually(() => asked() > before, 10_000, 'the next router asked');
    }
    const value = await scan.value;
    assert.ok(value.ok, value.ok ? '' : value.message);
    // The coordinator, then the light, the switch, the thermostat and the bulb: four pauses.
    assert.equal(pauses, 4);
    assert.equal(asked(), 4);
    assert.equal(value.value.nodes.filter((n) => n.type !== 'EndDevice').length, 5);
  });
});

describe('Zigbee2MQTT requests on the gateway’s clock', () => {
  const clock = new ManualClock();
  let broker: Broker;
  let rig: UpkeepRig;
  let dir: string;
  let peer: mqtt.MqttClient;
  const base = 'clocked_z2m';

  before(async () => {
    broker = await startBroker();
    dir = tempDir('opencube-upkeep-');
    // A Zigbee2MQTT that lists one light that takes updates, and then answers nothing.
    peer = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    const light = loadFixtures().find((f) => f.model === '9290012573A');
    assert.ok(light);
    await peer.publishAsync(`${base}/bridge/state`, '{"state":"online"}', { retain: true, qos: 1 });
    await peer.publishAsync(
      `${base}/bridge/devices`,
      JSON.stringify([
        {
          ieee_address: '0x0017880100fa4e01',
          friendly_name: 'light',
          type: 'Router',
          interview_state: 'SUCCESSFUL',
          definition: {
            model: light.model,
            vendor: light.vendor,
            description: light.description,
            exposes: light.exposes,
            supports_ota: true,
          },
          endpoints: { '11': { clusters: { input: ['genOnOff'], output: ['genOta'] }, bindings: [] } },
        },
      ]),
      { retain: true, qos: 1 },
    );
    const driver = new Zigbee2MqttDriver({
      url: broker.url,
      baseTopics: [base],
      permitJoinSeconds: 60,
      log: quiet,
      clock,
      dataDir: dir,
      readPaceMs: 0,
    });
    rig = await startRig(driver, { dir, clock });
    await rig.listed('0x0017880100fa4e01');
  });

  after(async () => {
    await rig?.stop();
    await peer?.endAsync(true);
    await broker?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('gives up on unanswered firmware checks exactly at 75 s of the clock, one after another', async () => {
    const light = rig.byIeee('0x0017880100fa4e01').serial_number;
    for (let i = 0; i < 5; i++) {
      const { value, elapsedMs } = await advanceUntil(clock, rig.upkeep.checkFirmware({ serial_number: light }), {
        stepMs: 15 * SECOND,
        maxMs: 120 * SECOND,
      });
      assert.ok(!value.ok);
      assert.equal(value.message, 'Zigbee2MQTT: no answer within 75000 ms');
      assert.equal(elapsedMs, 75 * SECOND);
    }
    const view = rig.upkeep.firmwareOf(light);
    assert.ok(view.ok && view.value.state === 'unknown', 'nothing was learnt');
  });

  it('answers a group request when Zigbee2MQTT answers, and gives up at its deadline when it does not', async () => {
    // Zigbee2MQTT answers a group/add, then its list of groups never shows the group.
    const answering = (async () => {
      await new Promise<void>((resolve) => {
        peer.on('message', (topic, payload) => {
          if (topic !== `${base}/bridge/request/group/add`) return;
          const { transaction } = JSON.parse(payload.toString());
          void peer.publishAsync(
            `${base}/bridge/response/group/add`,
            JSON.stringify({ data: { friendly_name: 'g', id: 3 }, status: 'ok', transaction }),
          );
          resolve();
        });
        void peer.subscribeAsync(`${base}/bridge/request/group/add`);
      });
    })();
    await settle(50);
    const made = advanceUntil(clock, rig.upkeep.createGroup({ name: 'g' }), { stepMs: SECOND, maxMs: 30 * SECOND });
    await answering;
    const { value, elapsedMs } = await made;
    assert.ok(!value.ok);
    assert.equal(value.message, 'Zigbee2MQTT answered, but its list of groups does not show the change');
    // The list may follow the answer by 5 s; not longer.
    assert.equal(elapsedMs, 5 * SECOND);
    await eventually(() => rig.upkeep.groups().length === 0, 1000, 'no group listed');
  });
});
