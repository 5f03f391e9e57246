/**
 * Definitions checked whole when saved, on a real gateway with simulated Zigbee devices: each
 * bad definition gets every problem as a `path: rule` message (unknown device, capability or
 * channel it lacks, value outside its range, malformed time, unknown security mode, scene or
 * sound, a sun rule without a location), and nothing is saved. Fuzzed with fast-check: never a
 * throw, never a half-saved definition, and a refused save leaves the store as it was.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { DefinitionInput } from '../../src/automations/index.ts';
import { mutate } from '../helpers/fuzz.ts';
import { type Home, startHome } from './home.ts';

let home: Home;
let light: string;
let motion: string;
let button: string;
let temp: string;
let gang: string;
const notify = { type: 'notify', message: 'x' };

before(async () => {
  home = await startHome({ zigbee: 12 });
  light = home.device('LED1836G9').serial;
  motion = home.device('RTCGQ11LM').serial;
  button = home.device('WXKG01LM').serial;
  temp = home.device('WSDCGQ11LM').serial;
  gang = home.device('QBKG24LM').serial;
});
after(() => home?.stop());

const rows = (): [string, () => unknown, string[]][] => [
  [
    'an unknown device',
    () => ({
      kind: 'automation',
      name: 'a',
      triggers: [{ type: 'state', device: 'nope', capability: 'power', to: 'on' }],
      actions: [notify],
    }),
    ['triggers.0.device: no device has serial_number "nope"'],
  ],
  [
    'a capability the device lacks',
    () => ({
      kind: 'automation',
      name: 'a',
      triggers: [{ type: 'state', device: motion, capability: 'power', to: 'on' }],
      actions: [notify],
    }),
    ['triggers.0.capability: the device has no capability power'],
  ],
  [
    'a value the field cannot take',
    () => ({
      kind: 'automation',
      name: 'a',
      triggers: [{ type: 'state', device: light, capability: 'power', to: 'dim' }],
      actions: [notify],
    }),
    ['triggers.0.to: "dim" is not one of on, off'],
  ],
  [
    'a flip, which is a command and never a state a light is in',
    () => ({
      kind: 'automation',
      name: 'a',
      triggers: [{ type: 'state', device: light, capability: 'power', to: 'toggle' }],
      actions: [notify],
    }),
    ['triggers.0.to: "toggle" is not one of on, off'],
  ],
  [
    'a threshold outside the range',
    () => ({
      kind: 'automation',
      name: 'a',
      triggers: [{ type: 'state', device: light, capability: 'brightness', above: 150 }],
      actions: [notify],
    }),
    ['triggers.0.above: 150 is above max 100'],
  ],
  [
    'a threshold on a field that is no number',
    () => ({
      kind: 'automation',
      name: 'a',
      conditions: [{ type: 'state', device: light, capability: 'power', below: 3 }],
      actions: [notify],
    }),
    ['conditions.0.below: powerState is not a number'],
  ],
  [
    'a field the capability lacks',
    () => ({
      kind: 'automation',
      name: 'a',
      conditions: [{ type: 'state', device: temp, capability: 'temperature', field: 'celsius', above: 20 }],
      actions: [notify],
    }),
    ['conditions.0.field: temperature has no field celsius (temperature)'],
  ],
  [
    'a channel the device lacks',
    () => ({
      kind: 'automation',
      name: 'a',
      triggers: [{ type: 'state', device: gang, capability: 'toggle', name: '7', to: 'on' }],
      actions: [notify],
    }),
    ['triggers.0.name: the device has no channel 7 of toggle'],
  ],
  [
    'a channelled capability without its channel',
    () => ({
      kind: 'automation',
      name: 'a',
      triggers: [{ type: 'state', device: gang, capability: 'toggle', to: 'on' }],
      actions: [notify],
    }),
    ['triggers.0.name: required: toggle has channels (1, 2)'],
  ],
  [
    'a press the button does not make',
    () => ({
      kind: 'automation',
      name: 'a',
      triggers: [{ type: 'press', device: button, press: 'triplePress' }],
      actions: [notify],
    }),
    ['triggers.0.press: "triplePress" is not one of singlePress, doublePress, longPress'],
  ],
  [
    'a malformed time of day',
    () => ({ kind: 'automation', name: 'a', triggers: [{ type: 'time', at: '25:00' }], actions: [notify] }),
    ['triggers.0.at: "25:00" is not a time of day HH:MM or HH:MM:SS (24 h)'],
  ],
  [
    'an unknown weekday',
    () => ({
      kind: 'automation',
      name: 'a',
      conditions: [{ type: 'weekday', weekdays: ['monday'] }],
      actions: [notify],
    }),
    ['conditions.0.weekdays.0: "monday" is not one of sun, mon, tue, wed, thu, fri, sat'],
  ],
  [
    'an empty time window',
    () => ({
      kind: 'automation',
      name: 'a',
      conditions: [{ type: 'time', after: '10:00', before: '10:00' }],
      actions: [notify],
    }),
    ['conditions.0.before: the same as after: the window would be empty (or the whole day)'],
  ],
  [
    'a command the light refuses',
    () => ({
      kind: 'scene',
      name: 's',
      actions: [{ type: 'device', device: light, state: { brightness: { brightness: 101 } } }],
    }),
    ['actions.0.state.brightness.brightness: 101 is above max 100'],
  ],
  [
    'a command to a sensor',
    () => ({
      kind: 'scene',
      name: 's',
      actions: [{ type: 'device', device: motion, state: { motion: { motion: true } } }],
    }),
    ['actions.0.state.motion: motion cannot be controlled (permission 0100)'],
  ],
  [
    'an unknown security mode',
    () => ({ kind: 'scene', name: 's', actions: [{ type: 'security', action: 'arm', sid: 9 }] }),
    ['actions.0.sid: no security mode has sid 9'],
  ],
  [
    'an unknown sound',
    () => ({ kind: 'scene', name: 's', actions: [{ type: 'sound', sound: 'trumpet' }] }),
    ['actions.0.sound: "trumpet" is not a sound (alert1..5, doorbell1..5, alarm1..5)'],
  ],
  [
    'an unknown scene',
    () => ({ kind: 'scene', name: 's', actions: [{ type: 'scene', scene: 'abc' }] }),
    ['actions.0.scene: no scene has id "abc"'],
  ],
  [
    'triggers on a scene',
    () => ({ kind: 'scene', name: 's', triggers: [{ type: 'started' }], actions: [notify] }),
    ['triggers: a scene has no triggers (it is run by hand or by an action)'],
  ],
  [
    'a max on a single automation',
    () => ({ kind: 'automation', name: 'a', mode: 'single', max: 3, actions: [notify] }),
    ['max: only queued and parallel automations take a max (this one is single)'],
  ],
  ['no actions', () => ({ kind: 'scene', name: 's', actions: [] }), ['actions: needs at least 1 item']],
  [
    'an unknown field',
    () => ({ kind: 'scene', name: 's', actions: [notify], colour: 'red' }),
    ['colour: unknown field'],
  ],
  [
    'an unknown trigger type',
    () => ({ kind: 'automation', name: 'a', triggers: [{ type: 'moon' }], actions: [notify] }),
    ['triggers.0.type: "moon" is not one of state, press, online, time, sun, security, alarm, started'],
  ],
  ['not an object', () => [1, 2], ['definition: expected an object, got an array']],
  [
    'several problems at once',
    () => ({
      kind: 'automation',
      name: 'a',
      triggers: [{ type: 'time', at: '7:00' }],
      actions: [
        { type: 'sound', sound: 'x' },
        { type: 'delay', seconds: -1 },
      ],
    }),
    ['triggers.0.at: "7:00" is not a time of day HH:MM or HH:MM:SS (24 h)', 'actions.1.seconds: -1 is below min 0'],
  ],
];

describe('a definition checked whole when saved', () => {
  for (const [what, def, errors] of rows()) {
    test(`${what} is refused with its path and rule, and nothing is saved`, () => {
      const before = home.engine.list().length;
      const r = home.engine.save(def());
      assert.deepEqual(r, { ok: false, errors: errorsFor(errors) });
      assert.equal(home.engine.list().length, before);
    });
  }

  test('a sun trigger needs the location setting', async (t) => {
    const other = await startHome({ location: '' });
    t.after(() => other.stop());
    const r = other.engine.save({
      kind: 'automation',
      name: 'a',
      triggers: [{ type: 'sun', event: 'sunset' }],
      actions: [notify],
    });
    assert.deepEqual(r, {
      ok: false,
      errors: ["triggers.0: the sun needs the gateway's location (the `location` setting: latitude,longitude)"],
    });
  });

  test('a valid definition of every kind of trigger, condition and action is saved', () => {
    const scene = home.engine.save({
      kind: 'scene',
      name: 'Evening',
      actions: [
        { type: 'device', device: light, state: { power: { powerState: 'on' }, brightness: { brightness: 40 } } },
      ],
    });
    assert.ok(scene.ok, JSON.stringify(scene));
    const r = home.engine.save(everything(scene.definition.id));
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.definition.version, 1);
    assert.equal(r.definition.mode, 'queued');
    const again = home.engine.save({ ...everything(scene.definition.id), id: r.definition.id });
    assert.ok(again.ok);
    assert.equal(again.definition.version, 2);
  });
});

/** The messages, as given (a function so the rows read like the wire). */
function errorsFor(list: string[]): string[] {
  return list;
}

function everything(scene: string): DefinitionInput {
  return {
    kind: 'automation',
    name: 'Everything',
    mode: 'queued',
    max: 3,
    triggers: [
      { type: 'state', device: temp, capability: 'temperature', above: 25, for_seconds: 300 },
      { type: 'state', device: light, capability: 'power', from: 'off', to: 'on' },
      { type: 'press', device: button, press: 'longPress' },
      { type: 'online', device: motion, online: false, for_seconds: 600 },
      { type: 'time', at: '06:30', weekdays: ['mon', 'fri'] },
      { type: 'sun', event: 'sunrise', offset_minutes: -20 },
      { type: 'security', sid: 1, state: 'armed' },
      { type: 'alarm', state: 'raised' },
      { type: 'started' },
    ],
    conditions: [
      { type: 'time', after: '22:00', before: '06:00' },
      { type: 'weekday', weekdays: ['sat', 'sun'] },
      { type: 'sun', after: { event: 'sunset', offset_minutes: 30 }, before: { event: 'sunrise' } },
      {
        type: 'any',
        conditions: [
          { type: 'state', device: temp, capability: 'humidity', below: 40 },
          { type: 'online', device: light, online: true },
        ],
      },
      { type: 'not', conditions: [{ type: 'security', state: 'armed' }] },
    ],
    actions: [
      { type: 'device', device: gang, state: { toggle: { '1': { toggleState: 'off' } } } },
      { type: 'scene', scene },
      { type: 'security', action: 'disarm' },
      { type: 'sound', sound: 'alert2', volume: 30, countdown: 5 },
      { type: 'speak', text: 'Good night' },
      { type: 'delay', seconds: 90 },
      { type: 'wait', device: light, capability: 'power', equals: 'off', timeout_seconds: 600, on_timeout: 'stop' },
      { type: 'automation', automation: scene, enabled: false },
      { type: 'notify', message: 'done' },
    ],
  };
}

describe('fuzzed definitions', () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  const junk = fc.oneof(
    json,
    fc.string(),
    fc.integer(),
    fc.constant(null),
    fc.constant(undefined),
    fc.constant('__proto__'),
  );

  test('a valid definition with one part replaced by anything: never a throw, saved whole or not at all', () => {
    const scene = home.engine.save({ kind: 'scene', name: 'Fuzz', actions: [{ type: 'notify', message: 'x' }] });
    assert.ok(scene.ok);
    const base = everything(scene.definition.id);
    let saved = 0;
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 12 }), { maxLength: 6 }), junk, (path, value) => {
        const before = home.g.gateway.db.prepare('SELECT count(*) AS n FROM automations').get() as { n: number };
        const r = home.engine.save(mutate(base, path, value));
        const now = home.g.gateway.db.prepare('SELECT count(*) AS n FROM automations').get() as { n: number };
        if (r.ok) {
          assert.equal(now.n, before.n + 1);
          const stored = home.g.gateway.db
            .prepare('SELECT definition FROM automations WHERE id = ?')
            .get(r.definition.id) as { definition: string };
          assert.ok(JSON.parse(stored.definition).actions.length > 0);
          home.engine.remove(r.definition.id);
          saved++;
        } else {
          assert.equal(now.n, before.n, 'nothing saved');
          assert.ok(r.errors.length > 0);
          for (const e of r.errors) assert.match(e, /^\S.*: \S/, e);
        }
      }),
      { numRuns: 400 },
    );
    assert.ok(saved > 0, 'some mutations are still valid definitions');
  });

  test('any JSON at all: never a throw, never saved unless it is a definition', () => {
    fc.assert(
      fc.property(junk, (value) => {
        const before = home.engine.list().length;
        const r = home.engine.save(value);
        assert.equal(r.ok, false);
        assert.equal(home.engine.list().length, before);
      }),
      { numRuns: 300 },
    );
  });
});
