/** Every example body of spec 2.6, accepted by the validator that applies to it. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type CapabilityObject,
  capabilities,
  sanitizeReport,
  validateCapabilities,
  validateCommand,
  validateQuery,
} from '../../src/catalog/index.ts';

/** A device holding every capability of the catalog with its default permission (channels 1..4, every fixed name). */
function everything(): CapabilityObject[] {
  return capabilities.flatMap((d): CapabilityObject[] => {
    const n = d.naming;
    if (n.kind === 'none') return [{ capability: d.capability, permission: d.body?.permission ?? '0100' }];
    if (n.kind === 'pattern')
      return ['1', '2', '3', '4'].map((name) => ({
        capability: d.capability,
        permission: d.body?.permission ?? '',
        name,
      }));
    return Object.entries(n.names).map(([name, b]) => ({ capability: d.capability, permission: b.permission, name }));
  });
}
const device = everything();

const span = { start: '2024-05-01T00:00:00.000Z', end: '2024-05-02T00:00:00.000Z' };

// [capability, kind, body] as the spec writes each body, with values filled in.
const bodies: [string, 'control' | 'report', Record<string, unknown>][] = [
  ['power', 'control', { power: { powerState: 'on' } }],
  ['power', 'control', { power: { powerState: 'toggle' } }],
  ['toggle', 'control', { toggle: { '1': { toggleState: 'on' } } }],
  [
    'toggle',
    'control',
    { toggle: { '1': { toggleState: 'on' }, '2': { toggleState: 'off' }, '3': { toggleState: 'toggle' } } },
  ],
  ['brightness', 'control', { brightness: { brightness: 0 } }],
  ['brightness', 'control', { brightness: { brightnessDelta: 20 } }],
  ['color-temperature', 'control', { 'color-temperature': { colorTemperature: 100 } }],
  ['color-temperature', 'control', { 'color-temperature': { colorTemperatureDelta: -20 } }],
  ['color-rgb', 'control', { 'color-rgb': { red: 255, green: 0, blue: 10 } }],
  ['percentage', 'control', { percentage: { percentage: 100 } }],
  ['percentage', 'control', { percentage: { percentageDelta: -100 } }],
  ['motor-control', 'control', { 'motor-control': { motorControl: 'lock' } }],
  ['motor-reverse', 'control', { 'motor-reverse': { motorReverse: false } }],
  ['motor-clb', 'report', { 'motor-clb': { motorClb: 'calibration' } }],
  ['startup', 'control', { startup: { startup: 'toggle' } }],
  ['identify', 'control', { identify: { countdown: 10 } }],
  ['identify', 'report', { identify: { identify: true } }],
  [
    'power-consumption',
    'control',
    { 'power-consumption': { powerConsumption: { rlSummarize: true, timeRange: span } } },
  ],
  ['power-consumption', 'report', { 'power-consumption': { type: 'rlSummarize', rlSummarize: 12 } }],
  ['thermostat-mode-detect', 'report', { 'thermostat-mode-detect': { humidity: { mode: 'WET' } } }],
  ['thermostat', 'control', { thermostat: { 'thermostat-mode': { thermostatMode: 'MANUAL' } } }],
  ['thermostat', 'report', { thermostat: { 'adaptive-recovery-status': { adaptiveRecoveryStatus: 'INACTIVE' } } }],
  ['thermostat-target-setpoint', 'control', { 'thermostat-target-setpoint': { 'eco-mode': { targetSetpoint: 18 } } }],
  ['thermostat-target-setpoint', 'report', { 'thermostat-target-setpoint': { 'auto-mode': { targetSetpoint: 20 } } }],
  ['detect', 'report', { detect: { detected: false } }],
  ['temperature', 'report', { temperature: { temperature: -12.5 } }],
  ['humidity', 'report', { humidity: { humidity: 100 } }],
  ['battery', 'report', { battery: { battery: -1 } }],
  ['press', 'control', { press: { press: 'longPress' } }],
  ['multi-press', 'report', { 'multi-press': { '2': { press: 'singlePress' } } }],
  ['rssi', 'report', { rssi: { rssi: -70 } }],
  ['tamper-alert', 'report', { 'tamper-alert': { tamper: 'detected' } }],
  ['illumination-level', 'report', { 'illumination-level': { level: 'darker' } }],
  ['voltage', 'report', { voltage: { voltage: 231.4 } }],
  ['mode', 'control', { mode: { horizontalAngle: { modeValue: '90' } } }],
  ['mode', 'control', { mode: { fanMode: { modeValue: 'sleep' }, verticalAngle: { modeValue: '360' } } }],
  ['mode', 'control', { mode: { thermostatMode: { modeValue: 'manual' } } }],
  ['co2', 'report', { co2: { co2: 800 } }],
  ['illumination', 'report', { illumination: { illumination: 1200 } }],
  ['smoke', 'report', { smoke: { smoke: true } }],
  ['contact', 'report', { contact: { contact: true } }],
  ['motion', 'report', { motion: { motion: false } }],
  ['water-leak', 'report', { 'water-leak': { waterLeak: true } }],
  ['gas', 'report', { gas: { gas: false } }],
  ...(['window-detection', 'child-lock', 'anti-direct-blow', 'horizontal-swing', 'vertical-swing', 'eco'] as const).map(
    (c): [string, 'control', Record<string, unknown>] => [c, 'control', { [c]: { powerState: 'off' } }],
  ),
  ['toggle-startup', 'control', { 'toggle-startup': { '1': { startup: 'stay' } } }],
  ['detect-hold', 'report', { 'detect-hold': { detectHold: 'off' } }],
  ['toggle-identify', 'control', { 'toggle-identify': { '4': { countdown: 30 } } }],
  ['toggle-identify', 'report', { 'toggle-identify': { '4': { identify: true } } }],
  ['toggle-voltage', 'control', { 'toggle-voltage': { voltage: 220 } }],
  ['toggle-electric-current', 'report', { 'toggle-electric-current': { '3': { electricCurrent: 0 } } }],
  [
    'toggle-electric-power',
    'report',
    { 'toggle-electric-power': { '1': { electricPower: 100, reactivePower: 5, activePower: 95, apparentPower: 101 } } },
  ],
  [
    'toggle-power-consumption',
    'control',
    { 'toggle-power-consumption': { '2': { powerConsumption: { rlSummarize: false } } } },
  ],
  ['lqi', 'report', { lqi: { lqi: 255 } }],
  [
    'configuration',
    'control',
    { configuration: { deviceConfiguration: { defaultResolution: 60, maxResolution: 600, minResolution: 5 } } },
  ],
  ['system', 'control', { system: { restart: true } }],
  ['moisture', 'report', { moisture: { moisture: 0 } }],
  ['barometric-pressure', 'report', { 'barometric-pressure': { barometricPressure: 1008 } }],
  ['wind-speed', 'report', { 'wind-speed': { windSpeed: 12.4 } }],
  ['wind-direction', 'report', { 'wind-direction': { windDirection: 360 } }],
  ['rainfall', 'report', { rainfall: { rainfall: 0.5 } }],
  ['ultraviolet-index', 'report', { 'ultraviolet-index': { ultravioletIndex: 7 } }],
  ['electrical-conductivity', 'report', { 'electrical-conductivity': { electricalConductivity: 2.1 } }],
  ['transmit-power', 'control', { 'transmit-power': { transmitPower: 20 } }],
  ['pm25', 'report', { pm25: { pm25: 35 } }],
  ['voc-index', 'report', { 'voc-index': { vocIndex: 250 } }],
  [
    'irrigation',
    'report',
    { irrigation: { 'work-status': { realTimeVolume: 3, start: span.start, end: span.end, dailyVolume: 9 } } },
  ],
  ['irrigation', 'report', { irrigation: { 'work-mode': 'CYCLE-VOLUME' } }],
  ['irrigation', 'report', { irrigation: { 'work-mode': { workMode: 'VOLUME' } } }],
  [
    'irrigation',
    'control',
    {
      irrigation: {
        'auto-controller': { type: 'volume', action: { perConsumedVolume: 5, intervalDuration: 30, count: 4 } },
      },
    },
  ],
  [
    'irrigation',
    'report',
    {
      irrigation: {
        type: '30Days',
        irrigationIntervals: [{ volume: 30, duration: 15, start: span.start, end: span.end }],
      },
    },
  ],
];

// [capability, query_state] as D6 sends them.
const queries: [string, Record<string, unknown>][] = [
  ['power-consumption', { 'power-consumption': { type: 'summarize', timeRange: span } }],
  ['power-consumption', { 'power-consumption': { type: 'summarize', timeRange: { start: span.start } } }],
  ['power-consumption', { 'power-consumption': { powerConsumption: { type: 'rlSummarize' } } }],
  ['power-consumption', { type: 'rlSummarize' }],
  ['toggle-power-consumption', { 'toggle-power-consumption': { '1': { type: 'summarize', timeRange: span } } }],
  ['irrigation', { irrigation: { type: '180Days', timeRange: { start: span.start, end: span.end } } }],
  ['power', {}],
  ['power', { power: { powerState: 'on' } }],
  ['toggle', { toggle: { '1': {} } }],
];

describe('the example bodies of spec 2.6', () => {
  test('the device holding every capability is a valid capability list', () => {
    assert.deepEqual(validateCapabilities(device), { ok: true, value: device });
  });
  for (const [cap, kind, body] of bodies) {
    test(`${cap}: ${kind} ${JSON.stringify(body)} is accepted`, () => {
      if (kind === 'control') assert.deepEqual(validateCommand(device, body), { ok: true, value: body });
      else assert.deepEqual(sanitizeReport(device, body), { state: body, warnings: [] });
    });
  }
  for (const [cap, q] of queries) {
    test(`${cap}: query ${JSON.stringify(q)} is accepted`, () => {
      assert.deepEqual(validateQuery(device, cap, q), { ok: true, value: q });
    });
  }
  test('every capability of the catalog appears in the table of spec bodies', () => {
    const seen = new Set(bodies.map(([c]) => c));
    const configOnly = new Set(['toggle-inching', 'inching', 'camera-stream']);
    for (const d of capabilities) if (!configOnly.has(d.capability)) assert.ok(seen.has(d.capability), d.capability);
  });
  test('several capabilities and channels in one command are validated together', () => {
    const body = {
      power: { powerState: 'on' },
      toggle: { '1': { toggleState: 'off' }, '2': { toggleState: 'on' } },
      brightness: { brightness: 50 },
      mode: { fanLevel: { modeValue: 'low' } },
    };
    assert.equal(validateCommand(device, body).ok, true);
  });
});
