/**
 * The alarm end to end through the real gateway: a door opened by a third-party contact sensor
 * (T1 DeviceStatesChangeReport) and by a simulated Zigbee contact sensor (the Zigbee2MQTT driver
 * on the simulated network), seen on a real event-stream client, heard in a recording sink, on a
 * manual clock: exit delay, entry delay, the alarm, cancel_alarm, disarm and a restart while
 * the alarm sounds.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type SimNetwork, startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { type AudioGateway, startAudioGateway } from '../helpers/audio.ts';
import { call, listDevices, rest } from '../helpers/foundation.ts';
import { type EventStream, openEvents, type StreamEvent } from '../helpers/sse.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';

const S = 1000;
const ALSO = ['security#updateArmState', 'bridge#updateAlarmState'];

async function ok(g: AudioGateway, token: string, method: string, path: string, body?: unknown, version = 'v2') {
  const r = await call(g.url, method, rest(version, path), { token, body });
  assert.equal(r.json?.error, 0, r.text);
  return r.json.data;
}

const status = async (g: AudioGateway, token: string) => ok(g, token, 'GET', 'security/alarm');

/** Stream events after `from` (an index into the stream's events) of the security and bridge modules. */
function alarmEvents(stream: EventStream, from = 0): string[] {
  return stream.events
    .slice(from)
    .filter((e) => !e.name.startsWith('device#'))
    .map((e) =>
      'arm_state' in e.data.payload
        ? `${e.data.payload.arm_state}:${e.data.payload.detail.sid}`
        : e.data.payload.alarm_state,
    );
}

/** Waits for the next alarm_state event with this value after index `from`. */
function alarmState(stream: EventStream, value: string, from = 0): Promise<StreamEvent> {
  return stream.waitFor(
    (e) => stream.events.indexOf(e) >= from && e.type === 'updateAlarmState' && e.data.payload.alarm_state === value,
  );
}

const beeps = (g: AudioGateway) => g.sink.plays.filter((p) => p.layer === 'beep').map((p) => p.name);
const ringing = (g: AudioGateway) => {
  const p = g.sink.playing();
  return p?.layer === 'alarm' ? p.name : undefined;
};

/** Syncs a third-party contact sensor (closed); returns its serial number. */
async function thirdPartyDoor(g: AudioGateway, token: string, third: string): Promise<string> {
  const sync = await sendEvent(g, token, 'DiscoveryRequest', {
    endpoints: [
      {
        ...endpoint(third, 'http://127.0.0.1:9/door'),
        name: 'Front door',
        display_category: 'contactSensor',
        capabilities: [{ capability: 'contact', permission: '0100' }],
        state: { contact: { contact: false } },
      },
    ],
  });
  assert.equal(sync.json.header.name, 'Response', sync.text);
  return sync.json.payload.endpoints[0].serial_number;
}

/** The add-on reports the door opening (`contact: true`) or closing. */
async function door(g: AudioGateway, token: string, serial: string, third: string, open: boolean) {
  const r = await sendEvent(
    g,
    token,
    'DeviceStatesChangeReport',
    { state: { contact: { contact: open } } },
    { endpoint: { serial_number: serial, third_serial_number: third } },
  );
  assert.equal(r.json.header.name, 'Response', r.text);
}

describe('a third-party contact sensor sets off the alarm', () => {
  test('exit delay, entry delay, the alarm on the stream and in the speaker, cancel_alarm, then disarm', async (t) => {
    const g = await startAudioGateway();
    t.after(() => g.stop());
    const token = g.token();
    const stream = await openEvents(g.url, token, 'v2', ALSO);
    t.after(() => stream.close());
    const serial = await thirdPartyDoor(g, token, 'front-door');

    const config = await ok(g, token, 'PUT', 'security/2/config', {
      exit_delay: 30,
      entry_delay: 15,
      alarm_sound: 'alarm3',
      alarm_duration: 120,
    });
    assert.deepEqual(config, {
      sid: 2,
      name: 'away_mode',
      exit_delay: 30,
      entry_delay: 15,
      alarm_sound: 'alarm3',
      alarm_duration: 120,
      devices: 'all',
    });

    // Arming: announced at once, armed (with its beep) when the exit delay runs out.
    const armedAt = g.clock.now();
    await ok(g, token, 'PUT', 'security/enable');
    await stream.waitFor((e) => e.type === 'updateArmState');
    assert.deepEqual(await status(g, token), {
      stage: 'exit_delay',
      alarm_state: 'normal',
      mode: { sid: 2, name: 'away_mode' },
      ends_at: new Date(armedAt + 30 * S).toISOString(),
      trigger: null,
      sound: null,
    });
    // Leaving through the door during the exit delay sets nothing off.
    await door(g, token, serial, 'front-door', true);
    await door(g, token, serial, 'front-door', false);
    assert.ok(!beeps(g).includes('system Armed'));
    g.clock.advance(30 * S);
    assert.equal((await status(g, token)).stage, 'armed');
    assert.equal(beeps(g).at(-1), 'system Armed');

    // Someone opens the door: the entry delay, then the alarm.
    await door(g, token, serial, 'front-door', true);
    const entry = await status(g, token);
    assert.deepEqual([entry.stage, entry.trigger], ['entry_delay', { serial_number: serial, capability: 'contact' }]);
    assert.equal(ringing(g), undefined);
    g.clock.advance(15 * S);
    const alarming = await alarmState(stream, 'alarming');
    assert.deepEqual(alarming.data, { payload: { alarm_state: 'alarming' } });
    assert.equal(alarming.name, 'bridge#v2#updateAlarmState');
    assert.equal(ringing(g), 'alarm3');
    assert.equal((await status(g, token)).sound, 'alarm3');

    // cancel_alarm, as clients send it (v1, empty body): silence, back to normal, and the mode stays armed.
    const mark = stream.events.length;
    assert.equal((await call(g.url, 'PUT', rest('v1', 'bridge/cancel_alarm'), { token, body: '' })).json.error, 0);
    await alarmState(stream, 'normal', mark);
    assert.equal(ringing(g), undefined);
    assert.equal((await status(g, token)).stage, 'armed');

    // The door closes and opens again: a new alarm; S3 disarms and stops it.
    await door(g, token, serial, 'front-door', false);
    await door(g, token, serial, 'front-door', true);
    g.clock.advance(15 * S);
    await alarmState(stream, 'alarming', mark);
    assert.equal(ringing(g), 'alarm3');
    const before = stream.events.length;
    await ok(g, token, 'PUT', 'security/2/disable');
    await alarmState(stream, 'normal', before);
    assert.deepEqual(alarmEvents(stream, before), ['disarming:2', 'normal']);
    assert.equal(ringing(g), undefined);
    assert.equal(beeps(g).at(-1), 'system Disarmed');
    assert.deepEqual(alarmEvents(stream), ['arming:2', 'alarming', 'normal', 'alarming', 'disarming:2', 'normal']);
    assert.equal((await status(g, token)).stage, 'disarmed');
  });

  test('an alarm sounding when the gateway restarts sounds again, and ends after its length', async (t) => {
    let g = await startAudioGateway();
    t.after(() => g.stop());
    const token = g.token();
    const serial = await thirdPartyDoor(g, token, 'back-door');
    await ok(g, token, 'PUT', 'security/1/config', { entry_delay: 0, alarm_sound: 'alarm5', alarm_duration: 90 });
    await ok(g, token, 'PUT', 'security/1/enable');
    await door(g, token, serial, 'back-door', true);
    assert.equal(ringing(g), 'alarm5');

    g = await g.restart();
    const stream = await openEvents(g.url, token, 'v2', ALSO);
    t.after(() => stream.close());
    assert.equal(ringing(g), 'alarm5', 'the siren sounds again after the restart');
    const s = await status(g, token);
    assert.deepEqual([s.stage, s.alarm_state, s.mode?.sid], ['alarming', 'alarming', 1]);
    g.clock.advance(90 * S);
    await alarmState(stream, 'normal');
    assert.equal(ringing(g), undefined);
    assert.equal((await status(g, token)).stage, 'armed');
  });
});

async function until<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  // A guard against a hang while MQTT messages travel, not a timing assertion.
  const end = Date.now() + 15_000;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a simulated Zigbee sensor sets off the alarm', () => {
  test('exit delay, entry delay, a contact alarm through a restart, cancel_alarm, disarm, and smoke with nothing armed', async (t) => {
    // The first ten fixtures hold a contact sensor (MCCGQ11LM) and a smoke detector (JTYJ-GD-01LM/BW).
    const net: SimNetwork = await startSimNetwork({
      baseTopics: ['zigbee2mqtt'],
      devices: 10,
      sim: { reportIntervalMs: 0, joinDelayMs: 50, interviewMs: 50 },
    });
    t.after(() => net.stop());
    let g = await startAudioGateway({
      overrides: { zigbee: { mode: 'z2m', mqtt_url: net.url, base_topics: 'zigbee2mqtt' } },
    });
    t.after(() => g.stop());
    const token = g.token();
    let stream = await openEvents(g.url, token, 'v2', ALSO);
    t.after(() => stream.close());
    const device = (model: string) =>
      until(model, async () => {
        const sim = net
          .sim()
          .list()
          .find((d) => d.fixture.model === model);
        const d = (await listDevices(g.url, token)).find((x) => x.model === model);
        return sim && d ? { serial: d.serial_number as string, ieee: sim.ieee } : undefined;
      });
    const contact = await device('MCCGQ11LM');
    const smoke = await device('JTYJ-GD-01LM/BW');
    // Zigbee2MQTT's contact is false when the door is open.
    const openDoor = async (open: boolean) => {
      const from = stream.events.length;
      net.sim().report(contact.ieee, { contact: !open });
      await stream.waitFor(
        (e) =>
          stream.events.indexOf(e) >= from &&
          e.type === 'updateDeviceState' &&
          e.data.endpoint.serial_number === contact.serial &&
          e.data.payload.contact?.contact === open,
      );
    };

    await ok(g, token, 'PUT', 'security/1/config', {
      devices: [contact.serial],
      exit_delay: 20,
      entry_delay: 10,
      alarm_sound: 'alarm2',
      alarm_duration: -1,
    });
    await ok(g, token, 'PUT', 'security/1/enable', undefined, 'v1');
    assert.equal((await status(g, token)).stage, 'exit_delay');

    // Leaving through the door during the exit delay sets nothing off.
    await openDoor(true);
    await openDoor(false);
    assert.equal((await status(g, token)).stage, 'exit_delay');
    assert.ok(!beeps(g).includes('system Armed'));
    g.clock.advance(20 * S);
    assert.equal((await status(g, token)).stage, 'armed');
    assert.equal(beeps(g).at(-1), 'system Armed');

    // The door opens: the entry delay, then the alarm.
    await openDoor(true);
    const entry = await status(g, token);
    assert.deepEqual(
      [entry.stage, entry.trigger],
      ['entry_delay', { serial_number: contact.serial, capability: 'contact' }],
    );
    assert.equal(ringing(g), undefined);
    g.clock.advance(10 * S);
    await alarmState(stream, 'alarming');
    assert.equal(ringing(g), 'alarm2');

    // The gateway restarts while the alarm sounds: it sounds again, until cancel_alarm.
    g = await g.restart();
    stream.close();
    stream = await openEvents(g.url, token, 'v2', ALSO);
    assert.equal(ringing(g), 'alarm2', 'the siren sounds again after the restart');
    const after = await status(g, token);
    assert.deepEqual(
      [after.stage, after.alarm_state, after.mode?.sid, after.trigger],
      ['alarming', 'alarming', 1, { serial_number: contact.serial, capability: 'contact' }],
    );
    await ok(g, token, 'PUT', 'bridge/cancel_alarm');
    await alarmState(stream, 'normal');
    assert.equal(ringing(g), undefined);
    assert.equal((await status(g, token)).stage, 'armed', 'the mode stays armed');

    // Closed and opened again: a new alarm, which a disarm (S5) stops.
    await openDoor(false);
    await openDoor(true);
    let mark = stream.events.length;
    g.clock.advance(10 * S);
    await alarmState(stream, 'alarming', mark);
    assert.equal(ringing(g), 'alarm2');
    mark = stream.events.length;
    await ok(g, token, 'PUT', 'security/disable');
    await alarmState(stream, 'normal', mark);
    assert.equal(ringing(g), undefined);
    assert.deepEqual(alarmEvents(stream), ['normal', 'alarming', 'disarming:1', 'normal']);

    // Smoke rings with nothing armed, with the default mode's sound (away_mode: alarm1).
    mark = stream.events.length;
    net.sim().report(smoke.ieee, { smoke: true });
    await alarmState(stream, 'alarming', mark);
    assert.equal(ringing(g), 'alarm1');
    const s = await status(g, token);
    assert.deepEqual(
      [s.stage, s.mode, s.trigger],
      ['alarming', null, { serial_number: smoke.serial, capability: 'smoke' }],
    );
    mark = stream.events.length;
    await ok(g, token, 'PUT', 'bridge/cancel_alarm');
    await alarmState(stream, 'normal', mark);
    assert.equal(ringing(g), undefined);
  });
});
