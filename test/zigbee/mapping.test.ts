/**
 * The exposes -> capabilities mapping table, read in both directions, checked against the
 * catalog's validators for every captured model of the simulator.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sanitizeReport, validateCapabilities, validateCommand } from '../../src/catalog/index.ts';
import { loadFixtures } from '../../src/drivers/zigbee-sim/index.ts';
import { initialState, seeded, simProperties } from '../../src/drivers/zigbee-sim/values.ts';
import { rgbToXy, xyToRgb } from '../../src/lib/color.ts';
import type { ModelFixture } from '../../src/zigbee/exposes.ts';
import { channelName, mapExposes, numberChannels, parseAction, planSet, toApiState } from '../../src/zigbee/mapping.ts';

const fixtures = loadFixtures();
const fx = (model: string): ModelFixture => {
  const f = fixtures.find((x) => x.model === model);
  assert.ok(f, `fixture ${model}`);
  return f;
};
const map = (model: string) => mapExposes(fx(model).exposes, { description: fx(model).description, addLqi: true });

describe('every captured model', () => {
  for (const f of fixtures) {
    it(`${f.vendor} ${f.model} (${f.family}) maps to valid capabilities, reports and commands`, () => {
      const m = mapExposes(f.exposes, { description: f.description, addLqi: true });
      const valid = validateCapabilities(m.capabilities);
      assert.ok(valid.ok, JSON.stringify(valid));
      assert.ok(m.capabilities.length >= 2);
      // The state the device publishes becomes a report the catalog accepts without a warning.
      const z = initialState(simProperties(f.exposes), seeded(1));
      const report = toApiState(m, z);
      const clean = sanitizeReport(m.capabilities, report);
      assert.deepEqual(clean.warnings, []);
      assert.deepEqual(clean.state, report);
    });
  }
});

describe('display categories', () => {
  const table: [string, string][] = [
    ['ZNCZ02LM', 'plug'],
    ['QBKG24LM', 'switch'],
    ['LED1836G9', 'light'],
    ['9290012573A', 'light'],
    ['E1757', 'curtain'],
    ['SPZB0001', 'thermostat'],
    ['MCCGQ11LM', 'contactSensor'],
    ['RTCGQ11LM', 'motionSensor'],
    ['SJCGQ11LM', 'waterLeakDetector'],
    ['JTYJ-GD-01LM/BW', 'smokeDetector'],
    ['WSDCGQ11LM', 'temperatureAndHumiditySensor'],
    ['WXKG01LM', 'button'],
    ['99432', 'fanLight'],
    ['E2112', 'temperatureAndHumiditySensor'],
  ];
  for (const [model, category] of table)
    it(`${model} is a ${category}`, () => assert.equal(map(model).display_category, category));
});

describe('Zigbee2MQTT values become API values', () => {
  const table: [model: string, z: Record<string, unknown>, api: Record<string, unknown>][] = [
    ['ZNCZ02LM', { state: 'ON' }, { power: { powerState: 'on' } }],
    ['ZNCZ02LM', { power: 12.345 }, { 'toggle-electric-power': { '1': { electricPower: 1235 } } }],
    ['ZNCZ02LM', { energy: 1.5 }, { 'power-consumption': { type: 'rlSummarize', rlSummarize: 150 } }],
    [
      'SP 120',
      { current: 0.25, voltage: 230.4 },
      { 'toggle-electric-current': { '1': { electricCurrent: 25 } }, voltage: { voltage: 230.4 } },
    ],
    [
      'QBKG24LM',
      { state_left: 'ON', state_right: 'OFF' },
      { toggle: { '1': { toggleState: 'on' }, '2': { toggleState: 'off' } } },
    ],
    ['LED1836G9', { brightness: 254 }, { brightness: { brightness: 100 } }],
    ['LED1836G9', { brightness: 127 }, { brightness: { brightness: 50 } }],
    ['LED1836G9', { brightness: 0 }, { brightness: { brightness: 0 } }],
    ['LED1836G9', { power_on_behavior: 'previous' }, { startup: { startup: 'stay' } }],
    ['LED2201G8', { color_temp: 454 }, { 'color-temperature': { colorTemperature: 0 } }],
    ['LED2201G8', { color_temp: 250 }, { 'color-temperature': { colorTemperature: 100 } }],
    [
      '9290012573A',
      { color: { x: 0.7006, y: 0.2993 }, color_mode: 'xy' },
      { 'color-rgb': { red: 255, green: 0, blue: 0 } },
    ],
    [
      '9290012573A',
      { color: { hue: 240, saturation: 100 }, color_mode: 'hs' },
      { 'color-rgb': { red: 0, green: 0, blue: 255 } },
    ],
    [
      'E1757',
      { state: 'OPEN', position: 40 },
      { 'motor-control': { motorControl: 'open' }, percentage: { percentage: 40 } },
    ],
    [
      'SPZB0001',
      { occupied_heating_setpoint: 21.5, local_temperature: 19.2 },
      { 'thermostat-target-setpoint': { 'manual-mode': { targetSetpoint: 21.5 } }, temperature: { temperature: 19.2 } },
    ],
    ['SPZB0001', { system_mode: 'heat' }, { thermostat: { 'thermostat-mode': { thermostatMode: 'MANUAL' } } }],
    ['SPZB0001', { system_mode: 'off' }, {}],
    ['SPZB0001', { child_lock: 'LOCK' }, { 'child-lock': { powerState: 'on' } }],
    ['99432', { fan_mode: 'medium' }, { mode: { fanLevel: { modeValue: 'medium' } } }],
    // Zigbee2MQTT's contact is true when closed; the API's contact is true when open.
    ['MCCGQ11LM', { contact: true }, { contact: { contact: false } }],
    ['MCCGQ11LM', { contact: false }, { contact: { contact: true } }],
    [
      'RTCGQ11LM',
      { occupancy: true, illuminance: 412.4 },
      { motion: { motion: true }, illumination: { illumination: 412 } },
    ],
    ['SJCGQ11LM', { water_leak: true, battery: 91 }, { 'water-leak': { waterLeak: true }, battery: { battery: 91 } }],
    [
      'JTYJ-GD-01LM/BW',
      { smoke: true, tamper: false },
      { smoke: { smoke: true }, 'tamper-alert': { tamper: 'clear' } },
    ],
    ['JTQJ-BF-01LM/BW', { gas: true }, { gas: { gas: true } }],
    [
      'WSDCGQ11LM',
      { temperature: 22.3, humidity: 51, pressure: 1012.6 },
      {
        temperature: { temperature: 22.3 },
        humidity: { humidity: 51 },
        'barometric-pressure': { barometricPressure: 1013 },
      },
    ],
    ['E2112', { pm25: 8, voc_index: 120 }, { pm25: { pm25: 8 }, 'voc-index': { vocIndex: 120 } }],
    ['EFEKTA_CO2_Smart_Monitor', { co2: 612 }, { co2: { co2: 612 } }],
    ['WXKG01LM', { action: 'double' }, { press: { press: 'doublePress' } }],
    ['WXKG01LM', { action: 'hold' }, { press: { press: 'longPress' } }],
    ['WXKG01LM', { action: 'release' }, {}],
    ['WXKG02LM_rev1', { action: 'single_left' }, { 'multi-press': { left: { press: 'singlePress' } } }],
    // A bare button name is a click of that button (its hold is `toggle_hold`).
    ['E1524/E1810', { action: 'toggle' }, { 'multi-press': { toggle: { press: 'singlePress' } } }],
    ['E1524/E1810', { action: 'toggle_hold' }, { 'multi-press': { toggle: { press: 'longPress' } } }],
    ['E1524/E1810', { action: 'arrow_left_click' }, { 'multi-press': { arrowleft: { press: 'singlePress' } } }],
    ['ZNCZ02LM', { linkquality: 87 }, { lqi: { lqi: 87 } }],
  ];
  for (const [model, z, api] of table)
    it(`${model}: ${JSON.stringify(z)} -> ${JSON.stringify(api)}`, () =>
      assert.deepEqual(toApiState(map(model), z), api));
});

describe('API commands become /set payloads', () => {
  const table: [model: string, api: Record<string, unknown>, z: Record<string, unknown>][] = [
    ['ZNCZ02LM', { power: { powerState: 'on' } }, { state: 'ON' }],
    ['ZNCZ02LM', { power: { powerState: 'toggle' } }, { state: 'TOGGLE' }],
    [
      'QBKG24LM',
      { toggle: { '1': { toggleState: 'off' }, '2': { toggleState: 'on' } } },
      { state_left: 'OFF', state_right: 'ON' },
    ],
    ['LED1836G9', { brightness: { brightness: 50 } }, { brightness: 127 }],
    ['LED1836G9', { brightness: { brightnessDelta: -10 } }, { brightness_step: -25 }],
    ['LED1836G9', { startup: { startup: 'stay' } }, { power_on_behavior: 'previous' }],
    ['LED2201G8', { 'color-temperature': { colorTemperature: 0 } }, { color_temp: 454 }],
    ['LED2201G8', { 'color-temperature': { colorTemperature: 100 } }, { color_temp: 250 }],
    ['9290012573A', { 'color-rgb': { red: 255, green: 0, blue: 0 } }, { color: { r: 255, g: 0, b: 0 } }],
    ['E1757', { 'motor-control': { motorControl: 'stop' } }, { state: 'STOP' }],
    ['E1757', { percentage: { percentage: 30 } }, { position: 30 }],
    [
      'SPZB0001',
      { 'thermostat-target-setpoint': { 'manual-mode': { targetSetpoint: 22.5 } } },
      { occupied_heating_setpoint: 22.5 },
    ],
    ['SPZB0001', { thermostat: { 'thermostat-mode': { thermostatMode: 'AUTO' } } }, { system_mode: 'auto' }],
    ['99432', { mode: { fanLevel: { modeValue: 'high' } } }, { fan_mode: 'high' }],
    ['E1757', { identify: { countdown: 5 } }, { identify: 'identify' }],
  ];
  for (const [model, api, z] of table)
    it(`${model}: ${JSON.stringify(api)} -> ${JSON.stringify(z)}`, () => {
      const m = map(model);
      const checked = validateCommand(m.capabilities, api);
      assert.ok(checked.ok, JSON.stringify(checked));
      const plan = planSet(m, api);
      assert.ok(plan.ok, JSON.stringify(plan));
      assert.deepEqual(plan.payload, z);
    });

  it('a light switched off in the same command is confirmed by the off state alone', () => {
    // Zigbee2MQTT does not apply a brightness sent with OFF, so waiting for it would time out.
    const plan = planSet(map('LED1836G9'), { power: { powerState: 'off' }, brightness: { brightness: 50 } });
    assert.ok(plan.ok, JSON.stringify(plan));
    assert.deepEqual(plan.payload, { state: 'OFF', brightness: 127 });
    assert.deepEqual(
      plan.expect.map((x) => x.property),
      ['state'],
    );
    const on = planSet(map('LED1836G9'), { power: { powerState: 'on' }, brightness: { brightness: 50 } });
    assert.ok(on.ok);
    assert.deepEqual(on.expect.map((x) => x.property).sort(), ['brightness', 'state']);
  });

  it('a sensor cannot be set', () => {
    const plan = planSet(map('MCCGQ11LM'), { contact: { contact: true } });
    assert.equal(plan.ok, false);
  });
  it('a mode value the device lacks is refused by the device-side narrowing', () => {
    const m = map('SPZB0001');
    assert.equal(
      validateCommand(m.capabilities, { thermostat: { 'thermostat-mode': { thermostatMode: 'ECO' } } }).ok,
      false,
    );
  });
});

describe('helpers of the table', () => {
  it('names channels after endpoints', () => {
    assert.equal(channelName('l1'), '1');
    assert.equal(channelName('l12'), '12');
    assert.equal(channelName('switch_3'), '3');
    assert.equal(channelName('left'), 'left');
    assert.equal(channelName('top_left'), 'topleft');
  });
  it('numbers channels 1..n: by their own number when all have one, else in the order the definition lists them', () => {
    assert.deepEqual(
      [...numberChannels(['l1', 'l2', 'l3'])],
      [
        ['l1', '1'],
        ['l2', '2'],
        ['l3', '3'],
      ],
    );
    assert.deepEqual(
      [...numberChannels(['l3', 'l2'])],
      [
        ['l2', '1'],
        ['l3', '2'],
      ],
    );
    assert.deepEqual(
      [...numberChannels(['left', 'right', 'left'])],
      [
        ['left', '1'],
        ['right', '2'],
      ],
    );
    assert.deepEqual(
      [...numberChannels(['l1', 'l2', 'usb'])],
      [
        ['l1', '1'],
        ['l2', '2'],
        ['usb', '3'],
      ],
    );
    assert.deepEqual([...numberChannels([])], []);
  });
  it('labels the channels of a two-gang switch with their Zigbee names, accepts those names as aliases, and numbers its buttons alike', () => {
    const m = map('QBKG24LM');
    assert.deepEqual(m.channelLabels, { '1': 'left', '2': 'right' });
    assert.deepEqual(m.channelAliases, { left: '1', right: '2' });
    const press = toApiState(m, { action: 'single_left' });
    assert.deepEqual(press, { 'multi-press': { '1': { press: 'singlePress' } } });
  });
  it('splits actions into presses and buttons', () => {
    assert.deepEqual(parseAction('single'), { press: 'singlePress' });
    assert.deepEqual(parseAction('left_double'), { name: 'left', press: 'doublePress' });
    assert.deepEqual(parseAction('button_2_hold'), { name: '2', press: 'longPress' });
    assert.deepEqual(parseAction('1_single'), { name: '1', press: 'singlePress' });
    assert.equal(parseAction('brightness_move_up'), undefined);
    assert.equal(parseAction('release'), undefined);
  });
  it('converts colours both ways', () => {
    for (const rgb of [
      { red: 255, green: 0, blue: 0 },
      { red: 0, green: 255, blue: 0 },
      { red: 255, green: 128, blue: 0 },
    ]) {
      const { x, y } = rgbToXy(rgb);
      const back = xyToRgb(x, y);
      for (const k of ['red', 'green', 'blue'] as const)
        assert.ok(Math.abs(back[k] - rgb[k]) <= 3, `${k}: ${back[k]} vs ${rgb[k]}`);
    }
  });
});
