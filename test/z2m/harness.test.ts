/**
 * The real Zigbee2MQTT 2.14.1 (installed from the npm registry at test time) runs against the fake
 * coordinator: these tests check that the harness is faithful (devices interviewed and identified
 * by the real converters, commands reaching the fake devices, hooks turning into what Zigbee2MQTT
 * publishes) and pin the MQTT facts the gateway's driver relies on (see OBSERVED.md).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type Broker, startBroker } from '../../src/drivers/zigbee-sim/broker.ts';
import {
  COLOUR_LIGHT,
  CONTACT_SENSOR,
  COVER,
  FAKE_DEVICES,
  METERING_PLUG,
  REMOTE,
  THERMOSTAT,
  TWO_GANG_SWITCH,
} from './fake/devices.ts';
import type { FakeDeviceSpec } from './fake/spec.ts';
import { type RealZigbee2mqtt, startRealZigbee2mqtt } from './real-z2m.ts';
import { MqttRecorder, on, type Recorded, retainedOn } from './recorder.ts';

const B = 'z2m_harness';
const HOOKS = 'fake-zigbee';

describe('the real Zigbee2MQTT with the fake coordinator', () => {
  let broker: Broker;
  let rec: MqttRecorder;
  let z2m: RealZigbee2mqtt;

  before(async () => {
    broker = await startBroker();
    rec = await MqttRecorder.start(broker.url);
    z2m = await startRealZigbee2mqtt({ mqttUrl: broker.url, baseTopic: B });
  });

  after(async () => {
    await z2m?.stop();
    await rec?.close();
    await broker?.close();
    if (z2m && !process.env.KEEP_Z2M_DATA) rmSync(z2m.dataDir, { recursive: true, force: true });
  });

  const state = (d: FakeDeviceSpec, test: (s: any) => boolean = () => true) => on(`${B}/${d.name}`, test);
  const received = (d: FakeDeviceSpec, test: (r: any) => boolean) => on(`${HOOKS}/${d.ieee}/received`, test);
  const event = (type: string, test: (data: any) => boolean = () => true) =>
    on(`${B}/bridge/event`, (e) => e.type === type && test(e.data));
  const devicesList = (m: Recorded | undefined): any[] => (Array.isArray(m?.json) ? (m.json as any[]) : []);

  it('lists every paired device as interviewed, with the model its real converter identifies', async () => {
    const devices = devicesList(await retainedOn(broker.url, `${B}/bridge/devices`));
    for (const spec of FAKE_DEVICES) {
      const entry = devices.find((d) => d.ieee_address === spec.ieee);
      if (!spec.paired) {
        assert.equal(entry, undefined, `${spec.name} has not joined yet`);
        continue;
      }
      assert.ok(entry, `${spec.name} is listed`);
      assert.equal(entry.friendly_name, spec.name);
      assert.equal(entry.type, spec.type);
      assert.equal(entry.interview_completed, true);
      assert.equal(entry.interview_state, 'SUCCESSFUL');
      assert.equal(entry.supported, true);
      assert.equal(entry.definition?.model, spec.expectedModel, `${spec.name} is identified as ${spec.expectedModel}`);
    }
    const coordinator = devices.find((d) => d.type === 'Coordinator');
    assert.equal(coordinator?.ieee_address, '0x00124b00fa4e0001');
    assert.equal('definition' in coordinator, false);
  });

  it('listens on no socket: the frontend and the onboarding server stay off', () => {
    const listening = execFileSync('ss', ['-ltnpH'], { encoding: 'utf8' });
    const own = listening.split('\n').filter((line) => line.includes(`pid=${z2m.pid},`));
    assert.deepEqual(own, []);
  });

  it('keeps bridge/info, bridge/devices, bridge/definitions and availability retained', async () => {
    const info = await retainedOn(broker.url, `${B}/bridge/info`);
    assert.equal((info.json as any).config.mqtt.base_topic, B);
    assert.equal((info.json as any).permit_join, false);
    const definitions = await retainedOn(broker.url, `${B}/bridge/definitions`);
    assert.ok(definitions.text.length > 100_000, 'bridge/definitions carries every cluster definition');
    const availability = await retainedOn(broker.url, `${B}/${COLOUR_LIGHT.name}/availability`);
    assert.deepEqual(availability.json, { state: 'online' });
    const bridgeState = await retainedOn(broker.url, `${B}/bridge/state`);
    assert.deepEqual(bridgeState.json, { state: 'online' });
  });

  it('carries a /set to the fake device, which then reads back the new level', async () => {
    const from = rec.mark();
    await rec.publish(`${B}/${COLOUR_LIGHT.name}/set`, { state: 'ON', brightness: 100 });
    const command = await rec.waitFor(
      received(COLOUR_LIGHT, (r) => r.cluster === 'genLevelCtrl' && r.command === 'moveToLevelWithOnOff'),
      from,
    );
    assert.equal((command.json as any).payload.level, 100);
    assert.equal((command.json as any).answered, true);
    await rec.waitFor(
      state(COLOUR_LIGHT, (s) => s.state === 'ON' && s.brightness === 100),
      from,
    );
    // A read goes to the device: the level it reports is the one the command set.
    const read = rec.mark();
    await rec.publish(`${B}/${COLOUR_LIGHT.name}/get`, { brightness: '' });
    await rec.waitFor(
      received(COLOUR_LIGHT, (r) => r.cluster === 'genLevelCtrl' && r.command === 'read'),
      read,
    );
    await rec.waitFor(
      state(COLOUR_LIGHT, (s) => s.brightness === 100),
      read,
    );
  });

  it('switches only the second channel of the two-gang switch for state_l2', async () => {
    const from = rec.mark();
    await rec.publish(`${B}/${TWO_GANG_SWITCH.name}/set`, { state_l2: 'ON' });
    const cmd = await rec.waitFor(
      received(TWO_GANG_SWITCH, (r) => r.cluster === 'genOnOff' && r.command === 'on'),
      from,
    );
    assert.equal((cmd.json as any).endpoint, 2);
    const s = await rec.waitFor(
      state(TWO_GANG_SWITCH, (x) => x.state_l2 === 'ON'),
      from,
    );
    assert.notEqual((s.json as any).state_l1, 'ON');
    assert.deepEqual(
      rec.since(
        from,
        received(TWO_GANG_SWITCH, (r) => r.endpoint === 1 && r.command === 'on'),
      ),
      [],
    );
  });

  it('keeps a thermostat setpoint that was written, as a later read shows', async () => {
    const from = rec.mark();
    await rec.publish(`${B}/${THERMOSTAT.name}/set`, { occupied_heating_setpoint: 22.5 });
    const write = await rec.waitFor(
      received(THERMOSTAT, (r) => r.cluster === 'hvacThermostat' && r.command === 'write'),
      from,
    );
    assert.deepEqual((write.json as any).payload, [{ attrId: 18, attrData: 2250, dataType: 41 }]);
    const read = rec.mark();
    await rec.publish(`${B}/${THERMOSTAT.name}/get`, { occupied_heating_setpoint: '' });
    await rec.waitFor(
      received(THERMOSTAT, (r) => r.cluster === 'hvacThermostat' && r.command === 'read'),
      read,
    );
    await rec.waitFor(
      state(THERMOSTAT, (s) => s.occupied_heating_setpoint === 22.5),
      read,
    );
  });

  it('moves the cover step by step to the position it was sent, reporting on the way', async () => {
    const from = rec.mark();
    await rec.publish(`${B}/${COVER.name}/set`, { position: 30 });
    // Zigbee2MQTT's position is 100 - the ZCL lift percentage (0 is open).
    const cmd = await rec.waitFor(
      received(COVER, (r) => r.command === 'goToLiftPercentage'),
      from,
    );
    assert.deepEqual((cmd.json as any).payload, { percentageliftvalue: 70 });
    // 40 comes only from the travelling blind; the 30 after it is where it stops.
    const travelling = await rec.waitFor(
      state(COVER, (s) => s.position === 40),
      cmd.seq,
    );
    const stopped = await rec.waitFor(
      state(COVER, (s) => s.position === 30),
      travelling.seq,
    );
    const positions = rec
      .since(cmd.seq, state(COVER))
      .filter((m) => m.seq <= stopped.seq)
      .map((m) => (m.json as any).position as number);
    // Zigbee2MQTT also publishes 30 itself once the blind acknowledges the command (before, amid or
    // after the reports, depending on its queue), and a read may repeat the start position: the
    // blind's own reports are the steps in between, in order.
    const steps = positions.filter((p) => p < 100 && p > 30);
    assert.deepEqual(
      steps.filter((p, i) => i === 0 || p !== steps[i - 1]),
      [90, 80, 70, 60, 50, 40],
    );
  });

  it('turns a report from a device into a state message', async () => {
    const from = rec.mark();
    await rec.publish(`${HOOKS}/${COLOUR_LIGHT.ieee}/report`, {
      cluster: 'genLevelCtrl',
      attributes: { currentLevel: 20 },
    });
    await rec.waitFor(
      state(COLOUR_LIGHT, (s) => s.brightness === 20),
      from,
    );
  });

  it('turns a button press on the remote into an action that is not kept in the state', async () => {
    const from = rec.mark();
    await rec.publish(`${HOOKS}/${REMOTE.ieee}/command`, { cluster: 'genOnOff', command: 'toggle' });
    const pressed = await rec.waitFor(
      state(REMOTE, (s) => s.action === 'toggle'),
      from,
    );
    const next = await rec.waitFor(state(REMOTE), pressed.seq + 1);
    assert.equal((next.json as any).action, undefined);
  });

  it('refuses a join while joining is closed, and says so on the hooks events topic', async () => {
    const from = rec.mark();
    await rec.publish(`${HOOKS}/join`, { ieee: CONTACT_SENSOR.ieee });
    const refused = await rec.waitFor(
      on(`${HOOKS}/events`, (e) => e.type === 'refused'),
      from,
    );
    assert.equal((refused.json as any).reason, 'joining is not open');
  });

  it('opens joining for a permit_join with a time, and lets a device join and be interviewed', async () => {
    const from = rec.mark();
    await rec.publish(`${B}/bridge/request/permit_join`, { time: 60, transaction: 'open-1' });
    const response = await rec.waitFor(on(`${B}/bridge/response/permit_join`), from);
    assert.deepEqual(response.json, { data: { time: 60 }, status: 'ok', transaction: 'open-1' });
    // bridge/info comes before the response. Checked on the retained copy: the embedded broker
    // (aedes) can drop a retained message for live subscribers (see OBSERVED.md).
    const opened = (await retainedOn(broker.url, `${B}/bridge/info`)).json as any;
    assert.equal(opened.permit_join, true);
    assert.equal(typeof opened.permit_join_end, 'number');

    const join = rec.mark();
    await rec.publish(`${HOOKS}/join`, { ieee: CONTACT_SENSOR.ieee });
    const joined = await rec.waitFor(
      event('device_joined', (d) => d.ieee_address === CONTACT_SENSOR.ieee),
      join,
    );
    assert.deepEqual((joined.json as any).data, {
      friendly_name: CONTACT_SENSOR.ieee,
      ieee_address: CONTACT_SENSOR.ieee,
    });
    const started = await rec.waitFor(
      event('device_interview', (d) => d.status === 'started'),
      join,
    );
    // While it is interviewed (the IAS enrolment takes a second), bridge/devices lists it without a definition.
    const during = devicesList(await retainedOn(broker.url, `${B}/bridge/devices`)).find(
      (d) => d.ieee_address === CONTACT_SENSOR.ieee,
    );
    assert.ok(during, 'bridge/devices lists the device while it is interviewed');
    assert.equal(during.interview_completed, false);
    assert.equal(during.interview_state, 'IN_PROGRESS');
    assert.equal(during.type, 'Unknown');
    assert.equal(during.supported, false);
    assert.equal('definition' in during, false);
    const done = await rec.waitFor(
      event('device_interview', (d) => d.status === 'successful'),
      started.seq,
    );
    assert.equal((done.json as any).data.supported, true);
    assert.equal((done.json as any).data.definition.model, CONTACT_SENSOR.expectedModel);
    const entry = devicesList(await retainedOn(broker.url, `${B}/bridge/devices`)).find(
      (d) => d.ieee_address === CONTACT_SENSOR.ieee,
    );
    assert.equal(entry.interview_state, 'SUCCESSFUL');
    assert.equal(entry.definition.model, 'SNZB-04');
    assert.equal(entry.type, 'EndDevice');

    // The contact sensor was enrolled as an IAS zone by the interview: its alarm arrives as contact.
    const open = rec.mark();
    await rec.publish(`${HOOKS}/${CONTACT_SENSOR.ieee}/command`, {
      cluster: 'ssIasZone',
      command: 'statusChangeNotification',
      payload: { zonestatus: 1, extendedstatus: 0, zoneID: 23, delay: 0 },
    });
    await rec.waitFor(
      on(`${B}/${CONTACT_SENSOR.ieee}`, (s) => s.contact === false),
      open,
    );

    const plug = rec.mark();
    await rec.publish(`${HOOKS}/join`, { ieee: METERING_PLUG.ieee });
    await rec.waitFor(
      event('device_interview', (d) => d.ieee_address === METERING_PLUG.ieee && d.status === 'successful'),
      plug,
    );
    await rec.waitFor(
      on(`${B}/${METERING_PLUG.ieee}`, (s) => s.power === 25 && s.state === 'ON'),
      plug,
    );
  });

  it('rejects a permit_join without a time, and closes joining for time 0', async () => {
    const from = rec.mark();
    await rec.publish(`${B}/bridge/request/permit_join`, { value: false, transaction: 'close-1' });
    const refused = await rec.waitFor(on(`${B}/bridge/response/permit_join`), from);
    assert.deepEqual(refused.json, { data: {}, error: 'Invalid payload', status: 'error', transaction: 'close-1' });
    const close = rec.mark();
    await rec.publish(`${B}/bridge/request/permit_join`, { time: 0, transaction: 'close-2' });
    const closed = await rec.waitFor(on(`${B}/bridge/response/permit_join`), close);
    assert.deepEqual(closed.json, { data: { time: 0 }, status: 'ok', transaction: 'close-2' });
    const info = (await retainedOn(broker.url, `${B}/bridge/info`)).json as any;
    assert.equal(info.permit_join, false);
    assert.equal('permit_join_end' in info, false);
  });

  it('logs a /set the device does not answer as an error naming the base key, and publishes no state', async () => {
    const from = rec.mark();
    // Only genOnOff fails: an availability ping (a genBasic read) in between must not use it up.
    await rec.publish(`${HOOKS}/${TWO_GANG_SWITCH.ieee}/fail-next`, { cluster: 'genOnOff' });
    await rec.publish(`${B}/${TWO_GANG_SWITCH.name}/set`, { state_l2: 'OFF' });
    const unanswered = await rec.waitFor(
      received(TWO_GANG_SWITCH, (r) => r.answered === false),
      from,
    );
    assert.equal((unanswered.json as any).endpoint, 2);
    const log = await rec.waitFor(
      on(`${B}/bridge/logging`, (l) => l.level === 'error' && String(l.message).includes(TWO_GANG_SWITCH.name)),
      from,
    );
    const entry = log.json as { level: string; message: string; namespace?: string };
    assert.deepEqual(Object.keys(entry).sort(), ['level', 'message']);
    assert.match(
      entry.message,
      /^z2m: Publish 'set' 'state' to 'hall_two_gang' failed: 'Error: ZCL command 0x00124b00fa4e0003\/2 genOnOff\.off\(/,
    );
    assert.deepEqual(
      rec
        .since(
          from,
          state(TWO_GANG_SWITCH, (s) => s.state_l2 === 'OFF'),
        )
        .filter((m) => m.seq < log.seq),
      [],
    );
  });

  it('takes a device that stops answering offline, and back online when it announces itself', async () => {
    const from = rec.mark();
    await rec.publish(`${HOOKS}/${TWO_GANG_SWITCH.ieee}/offline`, {});
    await rec.waitFor(
      on(`${B}/${TWO_GANG_SWITCH.name}/availability`, (a) => a.state === 'offline'),
      from,
      60_000,
    );
    const back = rec.mark();
    await rec.publish(`${HOOKS}/${TWO_GANG_SWITCH.ieee}/online`, {});
    await rec.waitFor(
      on(`${B}/${TWO_GANG_SWITCH.name}/availability`, (a) => a.state === 'online'),
      back,
    );
    await rec.waitFor(
      event('device_announce', (d) => d.friendly_name === TWO_GANG_SWITCH.name),
      back,
    );
  });

  it('has dropped a device that left by itself from the retained bridge/devices by its device_leave event', async () => {
    const from = rec.mark();
    await rec.publish(`${HOOKS}/${THERMOSTAT.ieee}/leave`, {});
    const left = await rec.waitFor(
      event('device_leave', (d) => d.ieee_address === THERMOSTAT.ieee),
      from,
    );
    assert.deepEqual((left.json as any).data, { friendly_name: THERMOSTAT.name, ieee_address: THERMOSTAT.ieee });
    // Zigbee2MQTT publishes bridge/devices (then bridge/definitions) before the event: by the
    // time the event arrives, the retained list no longer has the device.
    const list = devicesList(await retainedOn(broker.url, `${B}/bridge/devices`));
    assert.equal(
      list.some((d) => d.ieee_address === THERMOSTAT.ieee),
      false,
    );
  });

  it('removes a device with a leave request, drops it from bridge/devices by its answer, and keeps its availability retained', async () => {
    const from = rec.mark();
    await rec.publish(`${B}/bridge/request/device/remove`, { id: 'no_such_device', transaction: 'rm-0' });
    const missing = await rec.waitFor(on(`${B}/bridge/response/device/remove`), from);
    assert.deepEqual(missing.json, {
      data: {},
      error: "Device 'no_such_device' does not exist",
      status: 'error',
      transaction: 'rm-0',
    });
    const remove = rec.mark();
    await rec.publish(`${B}/bridge/request/device/remove`, { id: METERING_PLUG.ieee, transaction: 'rm-1' });
    await rec.waitFor(
      received(METERING_PLUG, (r) => r.command === 'LEAVE_REQUEST'),
      remove,
    );
    const done = await rec.waitFor(on(`${B}/bridge/response/device/remove`), remove);
    assert.deepEqual(done.json, {
      data: { block: false, clear_cache: false, force: false, id: METERING_PLUG.ieee, keep_config: false },
      status: 'ok',
      transaction: 'rm-1',
    });
    const list = devicesList(await retainedOn(broker.url, `${B}/bridge/devices`));
    assert.equal(
      list.some((d) => d.ieee_address === METERING_PLUG.ieee),
      false,
    );
    const availability = await retainedOn(broker.url, `${B}/${METERING_PLUG.ieee}/availability`);
    assert.deepEqual(availability.json, { state: 'online' });
  });

  it('reports a malformed hook on the events topic and keeps running', async () => {
    const from = rec.mark();
    await rec.publish(`${HOOKS}/${COLOUR_LIGHT.ieee}/report`, '{"cluster": 5');
    await rec.publish(`${HOOKS}/${COLOUR_LIGHT.ieee}/report`, { cluster: 'genOnOff' });
    await rec.publish(`${HOOKS}/0x0000000000000bad/offline`, {});
    await rec.waitFor(
      on(`${HOOKS}/events`, (e) => e.type === 'hook_error' && /0x0000000000000bad/.test(e.error)),
      from,
    );
    const errors = rec
      .since(
        from,
        on(`${HOOKS}/events`, (e) => e.type === 'hook_error'),
      )
      .map((m) => (m.json as any).error);
    assert.equal(errors.length, 3);
    assert.match(errors[0], /JSON/);
    assert.match(errors[1], /report needs/);
    assert.match(errors[2], /no fake Zigbee device 0x0000000000000bad/);
    const still = rec.mark();
    await rec.publish(`${B}/${COLOUR_LIGHT.name}/set`, { state: 'OFF' });
    await rec.waitFor(
      state(COLOUR_LIGHT, (s) => s.state === 'OFF'),
      still,
    );
  });

  it('publishes bridge/state offline, retained, when it stops', async () => {
    const from = rec.mark();
    await z2m.stop();
    await rec.waitFor(
      on(`${B}/bridge/state`, (s) => s.state === 'offline'),
      from,
    );
    const retained = await retainedOn(broker.url, `${B}/bridge/state`);
    assert.deepEqual(retained.json, { state: 'offline' });
    assert.equal(await z2m.exited, 0);
  });
});
