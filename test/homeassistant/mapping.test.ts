/**
 * The capabilities -> Home Assistant mapping, checked against the catalog and against Home
 * Assistant's documented schema, table by table: every capability (and every fixed name of one)
 * is mapped or left out with its reason in docs/home-assistant.md; the rows name what the catalog
 * has; the example declarations of every capability, on every kind of device, become configs and
 * states the documentation accepts; and every command an entity offers becomes a body D4 accepts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  bodyDef,
  type CapabilityObject,
  capabilities,
  capabilityDef,
  validateCommand,
} from '../../src/catalog/index.ts';
import type { DeviceRecord } from '../../src/core/devices/contract.ts';
import { mergeState } from '../../src/core/devices/index.ts';
import { entityDiscovery } from '../../src/integrations/homeassistant/discovery.ts';
import { withMappingDoc } from '../../src/integrations/homeassistant/docs.ts';
import { entitiesOf } from '../../src/integrations/homeassistant/entities.ts';
import type { Entity } from '../../src/integrations/homeassistant/entity.ts';
import { fromKelvin, toKelvin } from '../../src/integrations/homeassistant/light.ts';
import { leftOut, mappingTable } from '../../src/integrations/homeassistant/mapping-table.ts';
import { Topics } from '../../src/integrations/homeassistant/topics.ts';
import { scaled } from '../../src/integrations/homeassistant/values.ts';
import { catalogUnits, coverage } from '../helpers/coverage.ts';
import { checkConfig, checkState } from './ha-schema.ts';

const topics = new Topics({
  discovery_prefix: 'homeassistant',
  base_topic: 'opencube',
  status_topic: 'homeassistant/status',
});
const origin = { name: 'opencube', sw_version: '0.1.0' };

const { mapped, omitted } = coverage(mappingTable, leftOut);

describe('every capability is mapped or left out', () => {
  for (const { capability, name } of catalogUnits()) {
    const what = name ? `${capability} ${name}` : capability;
    test(`${what} is either mapped to Home Assistant or listed as left out, not both`, () => {
      assert.ok(mapped(capability, name) || omitted(capability, name), `${what} is neither mapped nor left out`);
      assert.ok(!(mapped(capability, name) && omitted(capability, name)), `${what} is both mapped and left out`);
    });
  }

  test('docs/home-assistant.md holds the mapping generated from the table (run npm run docs)', () => {
    const doc = readFileSync('docs/home-assistant.md', 'utf8');
    assert.equal(doc, withMappingDoc(doc));
    for (const l of leftOut) assert.ok(doc.includes(l.reason), `the reason ${l.capability} is left out is in the docs`);
    for (const r of mappingTable) assert.ok(doc.includes(`| \`${r.capability}\` |`), `${r.capability} is in the docs`);
  });

  test('the rows name capabilities, names and state fields the catalog has', () => {
    for (const row of [...mappingTable, ...leftOut]) {
      const def = capabilityDef(row.capability);
      assert.ok(def, `${row.capability} is in the catalog`);
      const naming = def.naming;
      if (row.name === undefined) continue;
      if (naming.kind === 'none') assert.fail(`${row.capability} has no name level, the row names ${row.name}`);
      if (naming.kind === 'fixed')
        assert.ok(row.name === '*' || row.name in naming.names, `${row.capability} ${row.name}`);
      if (naming.kind === 'pattern')
        assert.ok(row.name === '*' || naming.pattern.test(row.name), `${row.capability} ${row.name}`);
    }
    for (const row of mappingTable) {
      if (!('field' in row.role)) continue;
      const def = capabilityDef(row.capability);
      const names = row.name === undefined || row.name === '*' ? [undefined] : [row.name];
      for (const n of names) {
        const body =
          def && bodyDef(def, n ?? (def.naming.kind === 'fixed' ? Object.keys(def.naming.names)[0] : undefined));
        const schema = body?.state ?? body?.report;
        const fields =
          schema?.kind === 'object'
            ? schema.fields
            : schema?.kind === 'tagged'
              ? Object.assign({}, ...Object.values(schema.variants).map((v) => v.fields))
              : {};
        assert.ok(row.role.field in fields, `${row.capability}: ${row.role.field} is a state field`);
      }
    }
  });
});

/** A device of the given category holding `caps`, with the state of every report example. */
function device(
  category: string,
  caps: CapabilityObject[],
  extraState: Record<string, unknown>[] = [],
  driver = 'test',
): DeviceRecord {
  let state: Record<string, unknown> = {};
  for (const report of extraState) state = mergeState(state, report, caps).state;
  return {
    serial_number: '0123456789abcdef',
    driver,
    driver_ref: 'x',
    name: 'Test device',
    manufacturer: 'ACME',
    model: 'M1',
    firmware_version: '1.2.3',
    display_category: category,
    capabilities: caps,
    state,
    online: true,
    extra: {},
  };
}

const POWER: CapabilityObject = { capability: 'power', permission: '1100' };
const LIGHT_CHANNEL: CapabilityObject = { capability: 'toggle', permission: '1100', name: 'light' };
const onState = [{ power: { powerState: 'on' } }, { toggle: { light: { toggleState: 'on' } } }];

/** The kinds of device a capability is tried on: alone, and beside what makes a light, fan, climate, cover, plug, camera. */
const KINDS: { category: string; with: CapabilityObject[]; driver?: string }[] = [
  { category: 'sensor', with: [] },
  { category: 'light', with: [POWER] },
  { category: 'fanLight', with: [POWER, LIGHT_CHANNEL] },
  { category: 'fan', with: [POWER] },
  { category: 'thermostat', with: [POWER] },
  { category: 'airConditioner', with: [] },
  { category: 'curtain', with: [] },
  { category: 'plug', with: [POWER] },
  { category: 'camera', with: [], driver: 'camera' },
];

/** A valid command payload Home Assistant would send on each command topic of an entity. */
function haPayloads(e: Entity, config: Record<string, any>, sub: string): string[] {
  switch (e.component) {
    case 'switch':
    case 'fan':
      if (sub === 'preset') return config.preset_modes;
      return ['ON', 'OFF'];
    case 'select':
      return config.options;
    case 'number':
      return [String(config.min), String(config.max)];
    case 'button':
      return ['PRESS'];
    case 'cover':
      return sub === 'position' ? ['0', '30', '100'] : ['OPEN', 'CLOSE', ...(config.state_topic ? ['STOP'] : [])];
    case 'light': {
      const on: Record<string, unknown> = { state: 'ON' };
      if (config.brightness) on.brightness = 40;
      const out = [JSON.stringify(on), '{"state":"OFF"}'];
      if (config.supported_color_modes.includes('color_temp'))
        out.push(JSON.stringify({ state: 'ON', color_temp: 3000 }));
      if (config.supported_color_modes.includes('rgb'))
        out.push(JSON.stringify({ state: 'ON', color: { r: 10, g: 20, b: 30 } }));
      return out;
    }
    case 'climate':
      if (sub === 'mode') return config.modes;
      if (sub === 'target') return [String(config.min_temp ?? 20)];
      if (sub === 'preset') return ['eco', 'none'];
      if (sub === 'fan_mode') return config.fan_modes;
      return [];
    default:
      return [];
  }
}

describe('the example declarations of every capability become documented configs, states and commands', () => {
  for (const def of capabilities) {
    const mappedAt = new Set<string>();
    for (const kind of KINDS) {
      const caps = [
        ...kind.with.filter(
          (w) => !def.examples.declaration.some((d) => d.capability === w.capability && d.name === w.name),
        ),
        ...def.examples.declaration,
      ];
      const reports = [...onState, ...(def.examples.report ?? [])];
      const d = device(kind.category, caps, reports, kind.driver);
      test(`${def.capability} on a ${kind.category}: configs and states pass Home Assistant's schema, commands pass D4`, () => {
        const entities = entitiesOf(d, topics.availability(d.serial_number));
        for (const e of entities) {
          if (e.sources.has(def.capability)) mappedAt.add(kind.category);
          const { topic, config } = entityDiscovery(e, d, topics, origin);
          assert.deepEqual(checkConfig(e.component, config), [], `${topic}: ${JSON.stringify(config)}`);
          const t = topics.entity(d.serial_number, e.topicKey ?? e.key);
          for (const m of e.states(d))
            assert.deepEqual(checkState(e.component, config, t.state(m.sub), m.payload), [], `${e.key} ${m.payload}`);
          for (const sub of e.commands) {
            for (const payload of haPayloads(e, config, sub)) {
              const r = e.command?.(sub, payload, d);
              assert.ok(r?.ok, `${e.key}/${sub} ${payload}: ${r && !r.ok ? r.message : 'no command'}`);
              // A snapshot is the bridge's own doing, not a D4 command.
              if ('snapshot' in r) continue;
              const v = validateCommand(d.capabilities, r.state, 'state');
              assert.ok(
                v.ok,
                `${e.key}/${sub} ${payload} -> ${JSON.stringify(r.state)}: ${v.ok ? '' : v.errors.join('; ')}`,
              );
            }
          }
        }
      });
    }
    const omittedAll =
      def.naming.kind === 'fixed'
        ? Object.keys(def.naming.names).every((n) => omitted(def.capability, n))
        : omitted(def.capability);
    if (!omittedAll)
      test(`${def.capability} becomes at least one entity on some kind of device`, () => {
        assert.ok(mappedAt.size > 0, `${def.capability} is mapped but no device shows it`);
      });
  }
});

describe("the test's Home Assistant schema", () => {
  const device = { identifiers: ['opencube_x'], name: 'X' };
  const ok = { unique_id: 'u', device };
  const refused: [what: string, component: string, config: Record<string, unknown>][] = [
    ['an unknown key', 'switch', { ...ok, command_topic: 'a/b', colour: 'red' }],
    ['an abbreviated key', 'sensor', { ...ok, stat_t: 'a/b', state_topic: 'a/b' }],
    ['a light without its command topic', 'light', { ...ok, schema: 'json', supported_color_modes: ['onoff'] }],
    [
      'onoff beside another colour mode',
      'light',
      { ...ok, schema: 'json', command_topic: 'a', supported_color_modes: ['onoff', 'rgb'] },
    ],
    [
      'a colour mode that does not exist',
      'light',
      { ...ok, schema: 'json', command_topic: 'a', supported_color_modes: ['rainbow'] },
    ],
    ['a sensor device class that does not exist', 'sensor', { ...ok, state_topic: 'a', device_class: 'mood' }],
    [
      'a unit foreign to the device class',
      'sensor',
      { ...ok, state_topic: 'a', device_class: 'temperature', unit_of_measurement: 'C' },
    ],
    ['options without device class enum', 'sensor', { ...ok, state_topic: 'a', options: ['a'] }],
    ['enum without options', 'sensor', { ...ok, state_topic: 'a', device_class: 'enum' }],
    [
      'energy as a measurement',
      'sensor',
      { ...ok, state_topic: 'a', device_class: 'energy', unit_of_measurement: 'kWh', state_class: 'measurement' },
    ],
    ['a sensor in the config category', 'sensor', { ...ok, state_topic: 'a', entity_category: 'config' }],
    ['an HVAC mode that does not exist', 'climate', { ...ok, modes: ['turbo'] }],
    ['a select without options', 'select', { ...ok, command_topic: 'a' }],
    ['no unique id', 'switch', { device, command_topic: 'a' }],
    ['no device', 'switch', { unique_id: 'u', command_topic: 'a' }],
    ['a wildcard topic', 'switch', { ...ok, command_topic: 'a/#' }],
    [
      'availability items without a topic',
      'switch',
      { ...ok, command_topic: 'a', availability: [{ payload_available: 'up' }] },
    ],
    [
      'a trigger of another automation type',
      'device_automation',
      { automation_type: 'action', topic: 'a', type: 't', subtype: 's', device },
    ],
  ];
  for (const [what, component, config] of refused)
    test(`refuses ${what}`, () => assert.notDeepEqual(checkConfig(component, config), []));
  test('accepts a minimal documented switch', () =>
    assert.deepEqual(checkConfig('switch', { ...ok, command_topic: 'a/b' }), []));
  test('refuses states a component would not accept', () => {
    assert.notDeepEqual(checkState('switch', { state_topic: 's' }, 's', 'on'), []);
    assert.notDeepEqual(checkState('sensor', { state_topic: 's', unit_of_measurement: '%' }, 's', 'lots'), []);
    assert.notDeepEqual(checkState('cover', { position_topic: 'p' }, 'p', '101'), []);
    assert.notDeepEqual(
      checkState(
        'light',
        { state_topic: 's', supported_color_modes: ['brightness'] },
        's',
        '{"state":"ON","color_mode":"rgb"}',
      ),
      [],
    );
    assert.notDeepEqual(checkState('climate', { mode_state_topic: 'm', modes: ['heat'] }, 'm', 'cool'), []);
  });
});

describe('cameras', () => {
  const def = capabilityDef('camera-stream');
  assert.ok(def);
  const cam = device('camera', def.examples.declaration, [], 'camera');

  test('a camera of the gateway is a camera entity fed over MQTT and a Snapshot button, besides its connectivity', () => {
    const entities = entitiesOf(cam, topics.availability(cam.serial_number));
    assert.deepEqual(
      entities.map((e) => [e.component, e.key]),
      [
        ['camera', 'camera'],
        ['button', 'snapshot'],
        ['binary_sensor', 'online'],
      ],
    );
    const configs = entities.map((e) => entityDiscovery(e, cam, topics, origin).config);
    for (const [i, e] of entities.entries()) assert.deepEqual(checkConfig(e.component, configs[i] ?? {}), []);
    const [camera, button] = configs as [Record<string, any>, Record<string, any>];
    assert.equal(camera.topic, `opencube/${cam.serial_number}/camera`);
    assert.equal(camera.image_encoding, undefined, 'raw JPEG bytes, not base64');
    assert.deepEqual(
      camera.availability.map((a: { topic: string }) => a.topic),
      ['opencube/bridge/availability', topics.availability(cam.serial_number)],
    );
    assert.equal(button.name, 'Snapshot');
    assert.equal(button.command_topic, `opencube/${cam.serial_number}/snapshot/set`);
    for (const c of configs) {
      const text = JSON.stringify(c);
      assert.ok(!text.includes('secret') && !text.includes('rtsp://') && !text.includes('stream_url'), text);
    }
  });

  test('the Snapshot button takes PRESS, and refuses anything else with a message', () => {
    const button = entitiesOf(cam, 'x').find((e) => e.component === 'button');
    assert.deepEqual(button?.command?.('', 'PRESS', cam), { ok: true, snapshot: true });
    for (const bad of ['', 'press', 'ON', '{"press":true}', 'PRESS ', '\u0000'])
      assert.deepEqual(button?.command?.('', bad, cam), {
        ok: false,
        message: `payload: ${JSON.stringify(bad)} is not PRESS`,
      });
  });

  test('a stream declared by a device of another driver gets no camera entity: the gateway has no snapshot of it', () => {
    const other = device('camera', def.examples.declaration);
    assert.deepEqual(
      entitiesOf(other, 'x').map((e) => e.component),
      ['binary_sensor'],
    );
  });

  test("the test's schema refuses a camera without its topic, with base64 it does not declare, and a button without a command topic", () => {
    const ok = { unique_id: 'u', device: { identifiers: ['opencube_x'] } };
    assert.deepEqual(checkConfig('camera', { ...ok, topic: 'a/b' }), []);
    assert.notDeepEqual(checkConfig('camera', ok), []);
    assert.notDeepEqual(checkConfig('camera', { ...ok, topic: 'a/b', image_encoding: 'base64' }), []);
    assert.notDeepEqual(checkConfig('camera', { ...ok, topic: 'a/+' }), []);
    assert.notDeepEqual(checkConfig('camera', { ...ok, topic: 'a/b', state_topic: 'a/b' }), []);
    assert.notDeepEqual(checkConfig('button', { ...ok, payload_press: 'PRESS' }), []);
  });
});

describe('conversions and bad payloads', () => {
  test('the catalog colour temperature and kelvin convert both ways over 2000..6500 K', () => {
    assert.equal(toKelvin(0), 2000);
    assert.equal(toKelvin(100), 6500);
    assert.equal(toKelvin(50), 4250);
    for (let ct = 0; ct <= 100; ct++) assert.equal(fromKelvin(toKelvin(ct)), ct);
    assert.equal(fromKelvin(6950), 110, 'beyond the range is not clamped: D4 refuses it');
  });

  test('scaled values carry no float noise (0.01 A, 0.01 W, 0.01 kWh)', () => {
    assert.equal(scaled(24, 0.01), 0.24);
    assert.equal(scaled(4940, 0.01), 49.4);
    assert.equal(scaled(347, 0.01), 3.47);
    assert.equal(scaled(100000, 0.01), 1000);
    assert.equal(scaled(7, 1), 7);
  });

  test('any payload on any command topic is refused with a message or becomes a body, never a throw', () => {
    const d = device('light', [
      POWER,
      { capability: 'brightness', permission: '1100' },
      { capability: 'color-rgb', permission: '1100' },
      { capability: 'color-temperature', permission: '1100' },
      { capability: 'percentage', permission: '1100' },
      { capability: 'motor-control', permission: '1100' },
      { capability: 'toggle', permission: '1100', name: '1' },
      { capability: 'mode', permission: '1100', name: 'fanMode' },
      { capability: 'identify', permission: '0100' },
    ]);
    const climate = device('airConditioner', [
      POWER,
      { capability: 'mode', permission: '1100', name: 'airConditionerMode' },
      { capability: 'mode', permission: '1100', name: 'fanLevel' },
      { capability: 'thermostat-target-setpoint', permission: '1110', name: 'manual-mode' },
    ]);
    const targets = [d, climate].flatMap((dev) =>
      entitiesOf(dev, 'x').flatMap((e) => e.commands.map((sub) => ({ dev, e, sub }))),
    );
    assert.ok(targets.length > 8);
    fc.assert(
      fc.property(
        fc.constantFrom(...targets),
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.constantFrom(
            '',
            'ON',
            'on',
            '{}',
            '[]',
            'null',
            '1e999',
            '{"state":"ON","brightness":"x"}',
            '{"color":{"h":1,"s":2}}',
          ),
        ),
        ({ dev, e, sub }, payload) => {
          const r = e.command?.(sub, payload, dev);
          assert.ok(r, 'an answer');
          if (r.ok) assert.ok('snapshot' in r || (r.state && typeof r.state === 'object'));
          else assert.ok(r.message.length > 0);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('a payload naming a property of every object (constructor, __proto__) moves no cover and no mode', () => {
    const covers = [
      device('curtain', [{ capability: 'percentage', permission: '1100' }]),
      device('curtain', [{ capability: 'motor-control', permission: '1100' }]),
    ];
    const climate = device('airConditioner', [
      POWER,
      { capability: 'mode', permission: '1100', name: 'airConditionerMode' },
    ]);
    const targets = [...covers, climate].flatMap((dev) =>
      entitiesOf(dev, 'x').flatMap((e) => e.commands.map((sub) => ({ dev, e, sub }))),
    );
    for (const payload of ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty']) {
      for (const { dev, e, sub } of targets) {
        const r = e.command?.(sub, payload, dev);
        assert.equal(r?.ok, false, `${e.key} ${sub} ${payload}: ${JSON.stringify(r)}`);
      }
    }
  });
});
