/**
 * The alarm's state machine on a manual clock, with the real store, bus, security modes, device
 * registry and audio arbiter: every transition, the delays, cancel and disarm in each stage,
 * detections while disarmed and armed, life-safety sensors in every stage, and restarts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TriggerCapability } from '../../src/core/alarm/index.ts';
import { KvStore } from '../../src/store/db.ts';
import { type Rig, rig } from './rig.ts';

const S = 1000;

/** A rig whose mode `sid` has these settings. */
function withConfig(body: Record<string, unknown>, sid = 2): Rig {
  const r = rig();
  const c = r.alarm.configure(sid, body);
  assert.ok(c.ok, JSON.stringify(c));
  return r;
}

/** Arms mode 2 with a 10 s exit delay and a 20 s entry delay, a 60 s alarm2, and a contact sensor; armed at the end. */
function armedRig(extra: Record<string, unknown> = {}): { r: Rig; door: string } {
  const r = withConfig({ exit_delay: 10, entry_delay: 20, alarm_sound: 'alarm2', alarm_duration: 60, ...extra });
  const door = r.sensor('contact');
  assert.ok(r.alarm.arm(2).ok);
  r.clock.advance(10 * S);
  assert.equal(r.stage(), 'armed');
  return { r, door };
}

describe('arming', () => {
  test('with no exit delay (the default) a mode is armed at once: arming event, armed beep', (t) => {
    const r = rig();
    t.after(() => r.close());
    assert.equal(r.stage(), 'disarmed');
    assert.ok(r.alarm.arm(1).ok);
    assert.equal(r.stage(), 'armed');
    assert.deepEqual(r.armStates, ['arming:1']);
    assert.deepEqual(r.beeps, ['armed']);
    assert.deepEqual(r.alarm.status().mode, { sid: 1, name: 'home_mode' });
    assert.deepEqual(r.alarmStates, [], 'arming does not touch a normal alarm state');
  });

  test('with an exit delay, arming is announced at the request and the mode is armed when the delay runs out', (t) => {
    const r = withConfig({ exit_delay: 45 });
    t.after(() => r.close());
    const start = r.clock.now();
    r.alarm.arm(2);
    assert.deepEqual(r.armStates, ['arming:2'], 'clients see arming at once');
    assert.deepEqual(r.security.armed()?.sid, 2, 'S1 shows the mode enabled from the request');
    assert.equal(r.stage(), 'exit_delay');
    assert.equal(r.alarm.status().ends_at, new Date(start + 45 * S).toISOString());
    assert.deepEqual(r.beeps, [], 'no armed beep before the mode is armed');
    r.clock.advance(45 * S - 1);
    assert.equal(r.stage(), 'exit_delay');
    r.clock.advance(1);
    assert.equal(r.stage(), 'armed');
    assert.deepEqual(r.beeps, ['armed']);
    assert.equal(r.alarm.status().ends_at, null);
    assert.equal(r.clock.pending(), 0, 'no timer left behind');
  });

  test('S4 arms the default mode (away_mode) through its own exit delay', (t) => {
    const r = withConfig({ exit_delay: 5 });
    t.after(() => r.close());
    assert.ok(r.alarm.armDefault().ok);
    assert.deepEqual([r.stage(), r.alarm.status().mode?.sid], ['exit_delay', 2]);
    r.clock.advance(5 * S);
    assert.equal(r.stage(), 'armed');
  });

  test('arming the armed mode again changes nothing and announces nothing', (t) => {
    const r = withConfig({ exit_delay: 5 });
    t.after(() => r.close());
    r.alarm.arm(2);
    r.clock.advance(2 * S);
    r.alarm.arm(2);
    assert.deepEqual(r.armStates, ['arming:2']);
    r.clock.advance(3 * S);
    assert.equal(r.stage(), 'armed', 'the first exit delay was not restarted');
  });

  test('switching modes disarms the old one and arms the new one through its own exit delay', (t) => {
    const r = withConfig({ exit_delay: 30 }, 3);
    t.after(() => r.close());
    r.alarm.arm(1);
    r.alarm.arm(3);
    assert.deepEqual(r.armStates, ['arming:1', 'disarming:1', 'arming:3']);
    assert.deepEqual([r.stage(), r.alarm.status().mode?.sid], ['exit_delay', 3]);
    assert.deepEqual(r.beeps, ['armed', 'disarmed']);
    r.clock.advance(30 * S);
    assert.deepEqual(r.beeps, ['armed', 'disarmed', 'armed']);
  });

  test('an unknown mode is refused and changes nothing', (t) => {
    const r = rig();
    t.after(() => r.close());
    assert.deepEqual(r.alarm.arm(9), { ok: false, reason: 'unknown_sid' });
    assert.deepEqual(r.alarm.disarm(9), { ok: false, reason: 'unknown_sid' });
    assert.deepEqual([r.stage(), r.armStates, r.beeps], ['disarmed', [], []]);
  });
});

describe('detections', () => {
  test('a door opening while disarmed, or during the exit delay, does nothing', (t) => {
    const r = withConfig({ exit_delay: 10 });
    t.after(() => r.close());
    const door = r.sensor('contact');
    r.report(door, 'contact');
    r.report(door, 'contact', false);
    r.alarm.arm(2);
    r.report(door, 'contact');
    assert.equal(r.stage(), 'exit_delay');
    r.clock.advance(10 * S);
    assert.equal(r.stage(), 'armed', 'the door left open while leaving does not trigger once armed');
    assert.deepEqual(r.alarmStates, []);
    assert.equal(r.ringing(), undefined);
  });

  test("a door opening while armed starts the entry delay, then the mode's sound rings for its length, then the alarm state is normal again", (t) => {
    const { r, door } = armedRig();
    t.after(() => r.close());
    r.report(door, 'contact');
    const status = r.alarm.status();
    assert.equal(status.stage, 'entry_delay');
    assert.deepEqual(status.trigger, { serial_number: door, capability: 'contact' });
    assert.equal(status.alarm_state, 'normal', 'no alarm yet');
    r.clock.advance(20 * S - 1);
    assert.deepEqual([r.stage(), r.ringing(), r.alarmStates], ['entry_delay', undefined, []]);
    r.clock.advance(1);
    assert.deepEqual([r.stage(), r.ringing(), r.alarmStates], ['alarming', 'alarm2', ['alarming']]);
    assert.equal(r.alarm.status().sound, 'alarm2');
    const rec = r.sink.plays.find((p) => p.layer === 'alarm');
    assert.equal(rec?.loop, true, 'the siren repeats');
    r.clock.advance(60 * S - 1);
    assert.equal(r.ringing(), 'alarm2');
    r.clock.advance(1);
    assert.deepEqual([r.stage(), r.ringing(), r.alarmStates], ['armed', undefined, ['alarming', 'normal']]);
    assert.equal(r.sink.heardMs(rec!), 60 * S);
    assert.equal(r.clock.pending(), 0);
  });

  test('with no entry delay the alarm rings at once', (t) => {
    const { r, door } = armedRig({ entry_delay: 0 });
    t.after(() => r.close());
    r.report(door, 'contact');
    assert.deepEqual([r.stage(), r.ringing(), r.alarmStates], ['alarming', 'alarm2', ['alarming']]);
  });

  for (const capability of ['motion', 'tamper-alert'] as const) {
    test(`${capability} detected while armed triggers like a door`, (t) => {
      const { r } = armedRig({ entry_delay: 0 });
      t.after(() => r.close());
      const s = r.sensor(capability);
      r.report(s, capability);
      assert.deepEqual([r.stage(), r.alarm.status().trigger?.capability], ['alarming', capability]);
    });
  }

  test('a door the gateway shows offline still sets the alarm off, and the trigger and the log say it showed offline', (t) => {
    const { r, door } = armedRig();
    t.after(() => r.close());
    r.registry.onlineChanged(door, false);
    r.report(door, 'contact');
    assert.deepEqual(r.alarm.status().trigger, { serial_number: door, capability: 'contact', device_offline: true });
    assert.equal(r.warnings.length, 1);
    assert.match(
      r.warnings[0] as string,
      /alarm set off by Sensor contact-1 \(contact\), which the gateway shows offline/,
    );
    r.clock.advance(20 * S);
    assert.equal(r.stage(), 'alarming', 'it rings after the entry delay, as for any detection');
    const back = r.restart();
    t.after(() => back.close());
    assert.equal(back.alarm.status().trigger?.device_offline, true, 'kept across a restart');
  });

  test('a door online when it reports carries no offline mark, and logs nothing', (t) => {
    const { r, door } = armedRig();
    t.after(() => r.close());
    r.registry.onlineChanged(door, false);
    r.registry.onlineChanged(door, true);
    r.report(door, 'contact');
    assert.deepEqual(r.alarm.status().trigger, { serial_number: door, capability: 'contact' });
    assert.deepEqual(r.warnings, []);
  });

  test('smoke from a detector shown offline rings at once, marked offline', (t) => {
    const r = rig();
    t.after(() => r.close());
    const detector = r.sensor('smoke');
    r.registry.onlineChanged(detector, false);
    r.report(detector, 'smoke');
    assert.deepEqual([r.stage(), r.alarm.status().trigger?.device_offline], ['alarming', true]);
  });

  test('a sensor must become detected: a repeated open report, or a door already open, does not trigger again', (t) => {
    const { r, door } = armedRig({ entry_delay: 0, alarm_duration: 5 });
    t.after(() => r.close());
    r.report(door, 'contact');
    r.clock.advance(5 * S);
    assert.deepEqual([r.stage(), r.alarmStates], ['armed', ['alarming', 'normal']]);
    // A query result repeats the whole state: the door is still open, nothing new happened.
    r.registry.emitQueryResult(door, { contact: { contact: true } });
    assert.equal(r.stage(), 'armed');
    r.report(door, 'contact', false);
    r.report(door, 'contact');
    assert.equal(r.stage(), 'alarming', 'closed and opened again: a new detection');
  });

  test('a second detection during the entry delay or the alarm starts nothing new', (t) => {
    const { r, door } = armedRig();
    t.after(() => r.close());
    const hall = r.sensor('motion');
    r.report(door, 'contact');
    r.clock.advance(15 * S);
    r.report(hall, 'motion');
    r.clock.advance(5 * S);
    assert.equal(r.stage(), 'alarming', 'the first entry delay ran its course');
    assert.equal(r.alarm.status().trigger?.serial_number, door);
    r.report(hall, 'motion', false);
    r.report(hall, 'motion');
    assert.deepEqual(r.alarmStates, ['alarming']);
    assert.equal(r.sink.plays.filter((p) => p.layer === 'alarm').length, 1, 'the siren was not restarted');
  });

  test('a mode with a device list is triggered only by the devices it lists', (t) => {
    const r = rig();
    t.after(() => r.close());
    const front = r.sensor('contact');
    const back = r.sensor('contact');
    assert.ok(r.alarm.configure(3, { devices: [front], entry_delay: 0 }).ok);
    r.alarm.arm(3);
    r.report(back, 'contact');
    assert.equal(r.stage(), 'armed');
    r.report(front, 'contact');
    assert.equal(r.stage(), 'alarming');
  });

  test('a device of any driver counts: a sensor added after arming triggers under "all"', (t) => {
    const { r } = armedRig({ entry_delay: 0 });
    t.after(() => r.close());
    const late = r.registry.deviceFound('zigbee2mqtt', {
      driver_ref: 'zigbee2mqtt/0x00158d0001',
      name: 'Window',
      manufacturer: 'LUMI',
      model: 'MCCGQ11LM',
      firmware_version: '',
      display_category: 'contactSensor',
      capabilities: [{ capability: 'contact', permission: '0100' }],
    }).serial_number;
    r.report(late, 'contact');
    assert.equal(r.stage(), 'alarming');
  });

  test('every subscriber of the bus sees the alarm after the device state that set it off', (t) => {
    const { r, door } = armedRig({ entry_delay: 0 });
    t.after(() => r.close());
    // Subscribed after the alarm: a listener that publishes must not jump ahead of the event it reacts to.
    const seen: [number, string][] = [];
    r.bus.subscribe((e) => seen.push([e.id, e.name]));
    r.report(door, 'contact');
    assert.deepEqual(
      seen.map(([, name]) => name),
      ['device#updateDeviceState', 'bridge#updateAlarmState'],
    );
    assert.ok((seen[0]?.[0] ?? 0) < (seen[1]?.[0] ?? 0));
  });

  test('a device that leaves and comes back is seen afresh', (t) => {
    const { r, door } = armedRig({ entry_delay: 0, alarm_duration: 1 });
    t.after(() => r.close());
    r.report(door, 'contact');
    r.clock.advance(S);
    r.registry.deviceLeft(door);
    const again = r.sensor('contact', 'contact-1');
    assert.equal(again, door, 'the same serial number after a re-add');
    r.report(again, 'contact');
    assert.equal(r.stage(), 'alarming');
  });
});

describe('smoke, gas and water leaks ring at once in every stage, armed or not', () => {
  const lifeSafety: TriggerCapability[] = ['smoke', 'gas', 'water-leak'];
  const stages: [string, (r: Rig, door: string) => void][] = [
    ['disarmed', () => {}],
    ['exit_delay', (r) => r.alarm.arm(2)],
    [
      'armed',
      (r) => {
        r.alarm.arm(2);
        r.clock.advance(10 * S);
      },
    ],
    [
      'entry_delay',
      (r, door) => {
        r.alarm.arm(2);
        r.clock.advance(10 * S);
        r.report(door, 'contact');
      },
    ],
  ];
  for (const capability of lifeSafety) {
    for (const [stage, enter] of stages) {
      test(`${capability} while ${stage}`, (t) => {
        const r = withConfig({ exit_delay: 10, entry_delay: 20, alarm_sound: 'alarm4', alarm_duration: 30 });
        t.after(() => r.close());
        const door = r.sensor('contact');
        const sensor = r.sensor(capability);
        enter(r, door);
        assert.equal(r.stage(), stage);
        r.report(sensor, capability);
        assert.deepEqual([r.stage(), r.alarmStates], ['alarming', ['alarming']]);
        assert.deepEqual(r.alarm.status().trigger, { serial_number: sensor, capability });
        // The armed (or default) mode's sound: away_mode is both here.
        assert.equal(r.ringing(), 'alarm4');
        r.clock.advance(30 * S);
        assert.deepEqual([r.ringing(), r.alarmStates], [undefined, ['alarming', 'normal']]);
      });
    }
  }

  test('with nothing armed, S5 or cancel_alarm stops a smoke alarm; disarming a mode that is not armed does not', (t) => {
    const r = withConfig({ alarm_duration: -1 });
    t.after(() => r.close());
    const smoke = r.sensor('smoke');
    r.report(smoke, 'smoke');
    r.alarm.disarm(1);
    assert.equal(r.ringing(), 'alarm1');
    r.alarm.disarmAll();
    assert.deepEqual([r.ringing(), r.stage(), r.alarmStates], [undefined, 'disarmed', ['alarming', 'normal']]);
    assert.deepEqual(r.beeps, [], 'no mode was disarmed');
    r.report(smoke, 'smoke', false);
    r.report(smoke, 'smoke');
    r.alarm.cancel();
    assert.deepEqual([r.ringing(), r.alarmStates.slice(-2)], [undefined, ['alarming', 'normal']]);
  });
});

describe('disarming stops everything, in each stage', () => {
  const stages: [string, (r: Rig, door: string) => void][] = [
    ['exit_delay', () => {}],
    ['armed', (r) => r.clock.advance(10 * S)],
    [
      'entry_delay',
      (r, door) => {
        r.clock.advance(10 * S);
        r.report(door, 'contact');
      },
    ],
    [
      'alarming',
      (r, door) => {
        r.clock.advance(10 * S);
        r.report(door, 'contact');
        r.clock.advance(20 * S);
      },
    ],
  ];
  for (const [stage, enter] of stages) {
    for (const how of ['S3', 'S5'] as const) {
      test(`${how} during ${stage}`, (t) => {
        const r = withConfig({ exit_delay: 10, entry_delay: 20, alarm_duration: -1 });
        t.after(() => r.close());
        const door = r.sensor('contact');
        r.alarm.arm(2);
        enter(r, door);
        assert.equal(r.stage(), stage);
        const wasAlarming = stage === 'alarming';
        if (how === 'S3') assert.ok(r.alarm.disarm(2).ok);
        else r.alarm.disarmAll();
        assert.deepEqual([r.stage(), r.ringing()], ['disarmed', undefined]);
        assert.deepEqual(r.armStates, ['arming:2', 'disarming:2']);
        assert.deepEqual(r.alarmStates, wasAlarming ? ['alarming', 'normal'] : []);
        assert.equal(r.beeps.at(-1), 'disarmed');
        assert.equal(r.clock.pending(), 0, 'no delay or alarm left to fire');
        r.clock.advance(3_600 * S);
        assert.deepEqual([r.stage(), r.ringing()], ['disarmed', undefined]);
      });
    }
  }

  test('switching to another mode while alarming stops the alarm', (t) => {
    const { r, door } = armedRig({ entry_delay: 0 });
    t.after(() => r.close());
    r.report(door, 'contact');
    r.alarm.arm(1);
    assert.deepEqual([r.stage(), r.ringing(), r.alarmStates], ['armed', undefined, ['alarming', 'normal']]);
  });
});

describe('cancel_alarm (G7)', () => {
  test('silences a sounding alarm: back to normal, the mode stays armed, and a new detection rings again', (t) => {
    const { r, door } = armedRig({ entry_delay: 0, alarm_duration: -1 });
    t.after(() => r.close());
    r.report(door, 'contact');
    r.clock.advance(3_600 * S);
    assert.equal(r.ringing(), 'alarm2', 'rings until cancelled');
    r.alarm.cancel();
    assert.deepEqual([r.stage(), r.ringing(), r.alarmStates], ['armed', undefined, ['alarming', 'normal']]);
    assert.equal(r.alarm.status().alarm_state, 'normal');
    r.report(door, 'contact', false);
    r.report(door, 'contact');
    assert.deepEqual([r.stage(), r.alarmStates.at(-1)], ['alarming', 'alarming']);
  });

  test('during the entry delay, no alarm follows and nothing is announced (the state was normal)', (t) => {
    const { r, door } = armedRig();
    t.after(() => r.close());
    r.report(door, 'contact');
    r.alarm.cancel();
    assert.deepEqual([r.stage(), r.alarmStates, r.alarm.status().alarm_state], ['armed', [], 'normal']);
    r.clock.advance(60 * S);
    assert.deepEqual([r.stage(), r.ringing()], ['armed', undefined]);
  });

  test('with no alarm it changes nothing and announces nothing, armed or not', (t) => {
    const r = rig();
    t.after(() => r.close());
    r.alarm.cancel();
    r.alarm.arm(3);
    r.alarm.cancel();
    assert.deepEqual([r.stage(), r.alarmStates, r.alarm.status().alarm_state], ['armed', [], 'normal']);
  });

  test('a cancelled alarm state stored by an older version reads as normal, and announces nothing', (t) => {
    let r = rig();
    t.after(() => r.close());
    new KvStore(r.db).set('alarm', { alarm_state: 'cancelled', exit_sid: null, alarm: null });
    r = r.restart();
    assert.deepEqual([r.alarm.status().alarm_state, r.alarmStates], ['normal', []]);
    r.alarm.cancel();
    assert.deepEqual(r.alarmStates, []);
  });
});

describe('restarts', () => {
  test('an alarm that was sounding sounds again after a restart, for its full length', (t) => {
    let { r, door } = armedRig({ entry_delay: 0, alarm_duration: 60 });
    t.after(() => r.close());
    r.report(door, 'contact');
    r.clock.advance(50 * S);
    r = r.restart();
    assert.deepEqual([r.stage(), r.ringing(), r.alarm.status().alarm_state], ['alarming', 'alarm2', 'alarming']);
    assert.deepEqual(r.alarm.status().trigger, { serial_number: door, capability: 'contact' });
    assert.deepEqual(r.alarmStates, [], 'nothing changed, nothing announced');
    r.clock.advance(60 * S - 1);
    assert.equal(r.ringing(), 'alarm2');
    r.clock.advance(1);
    assert.deepEqual([r.stage(), r.ringing(), r.alarmStates], ['armed', undefined, ['normal']]);
  });

  test('an alarm ringing until cancelled rings again until cancelled', (t) => {
    let { r, door } = armedRig({ entry_delay: 0, alarm_duration: -1 });
    t.after(() => r.close());
    r.report(door, 'contact');
    r = r.restart();
    r.clock.advance(24 * 3_600 * S);
    assert.equal(r.ringing(), 'alarm2');
    r.alarm.cancel();
    assert.deepEqual([r.ringing(), r.alarmStates], [undefined, ['normal']]);
  });

  test('an exit delay interrupted by a restart starts again in full', (t) => {
    let r = withConfig({ exit_delay: 60 });
    t.after(() => r.close());
    r.alarm.arm(2);
    r.clock.advance(50 * S);
    r = r.restart();
    assert.equal(r.stage(), 'exit_delay');
    r.clock.advance(60 * S - 1);
    assert.equal(r.stage(), 'exit_delay');
    r.clock.advance(1);
    assert.deepEqual([r.stage(), r.beeps], ['armed', ['armed']]);
  });

  test('an entry delay interrupted by a restart starts again in full, then the alarm rings', (t) => {
    let { r, door } = armedRig();
    t.after(() => r.close());
    r.report(door, 'contact');
    r.clock.advance(19 * S);
    r = r.restart();
    assert.equal(r.stage(), 'entry_delay');
    r.clock.advance(20 * S - 1);
    assert.equal(r.ringing(), undefined);
    r.clock.advance(1);
    assert.deepEqual([r.stage(), r.ringing(), r.alarmStates], ['alarming', 'alarm2', ['alarming']]);
  });

  test('an armed mode stays armed without a new exit delay or beep; the door still open does not trigger', (t) => {
    let { r, door } = armedRig({ entry_delay: 0 });
    t.after(() => r.close());
    r.alarm.cancel();
    r.report(door, 'contact');
    r.alarm.cancel();
    r = r.restart();
    assert.deepEqual([r.stage(), r.beeps, r.alarm.status().alarm_state], ['armed', [], 'normal']);
    assert.equal(r.ringing(), undefined);
  });

  test('a smoke alarm with nothing armed sounds again after a restart', (t) => {
    let r = rig();
    t.after(() => r.close());
    const smoke = r.sensor('smoke');
    r.report(smoke, 'smoke');
    r = r.restart();
    assert.deepEqual([r.stage(), r.ringing(), r.alarm.status().mode], ['alarming', 'alarm1', null]);
  });

  test('a stored alarm state that does not fit reads as nothing pending, never a crash', (t) => {
    let r = rig();
    t.after(() => r.close());
    const junk: string[] = [
      '"not an object"',
      '[1, 2]',
      '{not json',
      JSON.stringify({ alarm_state: 'exploded', exit_sid: 'two', alarm: { stage: 'alarming' } }),
      JSON.stringify({ alarm: { stage: 'alarming', trigger: { serial_number: 1, capability: 'contact' } } }),
      JSON.stringify({ alarm: { stage: 'alarming', trigger: { serial_number: 'x', capability: 'lamp' } } }),
      // An entry delay belongs to an armed mode; nothing is armed.
      JSON.stringify({ alarm: { stage: 'entry_delay', trigger: { serial_number: 'x', capability: 'contact' } } }),
    ];
    for (const value of junk) {
      r.db.prepare("INSERT OR REPLACE INTO kv (key, value) VALUES ('alarm', ?)").run(value);
      r = r.restart();
      assert.deepEqual(
        [r.stage(), r.alarm.status().alarm_state, r.ringing()],
        ['disarmed', 'normal', undefined],
        value,
      );
    }
  });
});

describe('configuration', () => {
  test('a mode nobody configured has the documented defaults: Away watches every sensor, Home and Sleep the perimeter', (t) => {
    const r = rig();
    t.after(() => r.close());
    const base = { exit_delay: 0, entry_delay: 30, alarm_sound: 'alarm1', alarm_duration: 180 };
    const perimeter = { kinds: ['contact', 'tamper-alert'] };
    assert.deepEqual(
      [1, 2, 3].map((sid) => r.alarm.config(sid)),
      [
        { ok: true, config: { sid: 1, name: 'home_mode', ...base, devices: perimeter } },
        { ok: true, config: { sid: 2, name: 'away_mode', ...base, devices: 'all' } },
        { ok: true, config: { sid: 3, name: 'sleep_mode', ...base, devices: perimeter } },
      ],
    );
  });

  // The demo: Home mode armed while the nursery's motion sensor fires now and then.
  const bySensor: [string, TriggerCapability, boolean, boolean, boolean][] = [
    // sensor, capability, sets off Home, Away, Sleep (unconfigured)
    ['a door opening', 'contact', true, true, true],
    ['motion indoors', 'motion', false, true, false],
    ['a tamper', 'tamper-alert', true, true, true],
  ];
  for (const [what, capability, home, away, sleep] of bySensor)
    test(`${what} sets off ${[home && 'Home', away && 'Away', sleep && 'Sleep'].filter(Boolean).join(', ')} mode by default${
      !home || !sleep ? ', not the others' : ''
    }`, (t) => {
      for (const [sid, rings] of [
        [1, home],
        [2, away],
        [3, sleep],
      ] as const) {
        const r = rig();
        t.after(() => r.close());
        const sensor = r.sensor(capability);
        assert.ok(r.alarm.arm(sid).ok);
        r.report(sensor, capability);
        assert.equal(r.stage(), rings ? 'entry_delay' : 'armed', `mode ${sid}`);
        if (rings) continue;
        // Five minutes of the sensor firing every 15 s (the simulated nursery): nothing, ever.
        for (let i = 0; i < 20; i++) {
          r.clock.advance(15 * S);
          r.report(sensor, capability, false);
          r.report(sensor, capability);
        }
        assert.equal(r.stage(), 'armed', `mode ${sid}`);
        assert.deepEqual(r.alarmStates, [], `mode ${sid}`);
      }
    });

  test('a mode watching kinds is set off by a sensor of that kind added after it was armed, and keeps its kinds across a restart', (t) => {
    let r = withConfig({ devices: { kinds: ['motion'] }, entry_delay: 0 }, 1);
    t.after(() => r.close());
    r = r.restart();
    assert.ok(r.alarm.arm(1).ok);
    const door = r.sensor('contact');
    const hall = r.sensor('motion');
    r.report(door, 'contact');
    assert.equal(r.stage(), 'armed', 'a door is not a kind it watches');
    r.report(hall, 'motion');
    assert.equal(r.stage(), 'alarming');
    const c = r.alarm.config(1);
    assert.deepEqual(c.ok && c.config.devices, { kinds: ['motion'] });
  });

  test('a mode watching no kind is set off only by smoke, gas and leaks', (t) => {
    const r = withConfig({ devices: { kinds: [] }, entry_delay: 0 }, 1);
    t.after(() => r.close());
    assert.ok(r.alarm.arm(1).ok);
    for (const cap of ['contact', 'motion', 'tamper-alert'] as const) r.report(r.sensor(cap), cap);
    assert.equal(r.stage(), 'armed');
    r.report(r.sensor('smoke'), 'smoke');
    assert.equal(r.stage(), 'alarming');
  });

  test('a change keeps the other settings, and survives a restart', (t) => {
    let r = rig();
    t.after(() => r.close());
    const door = r.sensor('contact');
    assert.ok(r.alarm.configure(1, { exit_delay: 5, devices: [door] }).ok);
    assert.ok(r.alarm.configure(1, { alarm_sound: 'alarm5' }).ok);
    r = r.restart();
    const c = r.alarm.config(1);
    assert.ok(c.ok);
    assert.deepEqual(c.config, {
      sid: 1,
      name: 'home_mode',
      exit_delay: 5,
      entry_delay: 30,
      alarm_sound: 'alarm5',
      alarm_duration: 180,
      devices: [door],
    });
    assert.ok(r.alarm.configure(1, { devices: 'all' }).ok);
    const back = r.alarm.config(1);
    assert.equal(back.ok && back.config.devices, 'all');
  });

  test('a delay or alarm that runs keeps the settings it began with', (t) => {
    const { r, door } = armedRig({ entry_delay: 0, alarm_duration: 60 });
    t.after(() => r.close());
    r.report(door, 'contact');
    r.alarm.configure(2, { alarm_sound: 'alarm3', alarm_duration: 5 });
    r.clock.advance(5 * S);
    assert.equal(r.ringing(), 'alarm2');
    r.clock.advance(55 * S);
    assert.equal(r.ringing(), undefined);
  });
});
