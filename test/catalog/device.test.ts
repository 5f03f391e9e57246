/** Capability lists, device-side narrowing, queries and settings updates. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  applySettingsUpdate,
  type CapabilityObject,
  capabilityDef,
  modePresets,
  sanitizeReport,
  validateCapabilities,
  validateCommand,
  validateQuery,
} from '../../src/catalog/index.ts';

const errors = (r: { ok: boolean; errors?: string[] }) => (r.ok ? [] : r.errors);

describe('capability lists', () => {
  test('words and codes are both kept as sent', () => {
    const caps = [
      { capability: 'power', permission: 'readWrite' },
      { capability: 'temperature', permission: 'read' },
      { capability: 'toggle', permission: '1100', name: 'a1' },
    ];
    assert.deepEqual(validateCapabilities(caps), { ok: true, value: caps });
  });
  test('each problem of each entry is reported with its path', () => {
    const r = validateCapabilities([
      { capability: 'fan-speed', permission: '1100' },
      { capability: 'power' },
      { capability: 'power', permission: '1100', name: '1' },
      { capability: 'toggle-identify', permission: '1100', name: '5' },
      { capability: 'thermostat', permission: '1100', name: 'mode' },
      'power',
      { capability: 'toggle', permission: '1100', name: '1' },
      { capability: 'toggle', permission: 'read', name: '1' },
    ]);
    assert.deepEqual(errors(r), [
      'capabilities.0.capability: "fan-speed" is not a known capability',
      'capabilities.1.permission: required',
      'capabilities.2.name: power has no name level',
      'capabilities.3.name: "5" is not a channel 1..4',
      'capabilities.4.name: "mode" is not one of thermostat-mode, adaptive-recovery-status',
      'capabilities.5: expected an object, got "power"',
      'capabilities.7: duplicate of capabilities.6 (toggle 1)',
    ]);
    assert.deepEqual(errors(validateCapabilities({}, 'payload.endpoints.0.capabilities')), [
      'payload.endpoints.0.capabilities: expected an array, got an object',
    ]);
  });
  test('settings are checked: permission, type, value when modifiable, enum values, ranges, object values', () => {
    const r = validateCapabilities([
      {
        capability: 'temperature',
        permission: '0110',
        settings: {
          temperatureUnit: { permission: '11', type: 'enum', values: ['c', 'k'], value: 'k' },
          temperatureCalibration: { permission: '11', type: 'numeric', min: -7, max: 7 },
          temperatureRange: { permission: '01', type: 'numeric', min: 80, max: -40 },
          vendorThing: { permission: '1', type: 'string' },
        },
      },
      {
        capability: 'percentage',
        permission: '1100',
        settings: { percentageRange: { permission: '01', type: 'enum' } },
      },
      {
        capability: 'power-consumption',
        permission: '1101',
        settings: { timeZoneOffset: { permission: '01', type: 'numeric', value: 15 } },
      },
      {
        capability: 'camera-stream',
        permission: '0010',
        // Every field of the value is optional (the probe fills what the stream tells), but each is checked.
        settings: {
          streamSetting: { permission: '11', type: 'object', value: { username: 5, resolution: { width: 'x' } } },
        },
      },
      {
        capability: 'barometric-pressure',
        permission: '0100',
        settings: { barometricPressureRange: { permission: '01', type: 'numeric', min: 5, max: 5 } },
      },
    ]);
    assert.deepEqual(errors(r), [
      'capabilities.0.settings.temperatureUnit.values.1: "k" is not one of c, f',
      'capabilities.0.settings.temperatureCalibration.value: required',
      'capabilities.0.settings.temperatureRange: min 80 is not less than max -40',
      'capabilities.0.settings.vendorThing.permission: "1" is not one of 01, 10, 11',
      'capabilities.1.settings.percentageRange.type: must be numeric, got "enum"',
      'capabilities.2.settings.timeZoneOffset.value: 15 is above max 14',
      'capabilities.3.settings.streamSetting.value.username: expected a string, got 5',
      'capabilities.3.settings.streamSetting.value.resolution.width: expected a number, got "x"',
      'capabilities.3.settings.streamSetting.value.resolution.height: required',
      'capabilities.4.settings.barometricPressureRange: min 5 is not less than max 5',
    ]);
  });
  test('thermostat-mode-detect needs a scale for temperature setpoints but not for humidity', () => {
    const range = (scale?: string) => ({
      setpointRange: {
        permission: '11',
        type: 'object',
        value: { supported: [{ name: 'lowerSetpoint', value: { value: 40, ...(scale ? { scale } : {}) } }] },
      },
    });
    assert.deepEqual(
      errors(
        validateCapabilities([
          { capability: 'thermostat-mode-detect', permission: '0110', name: 'temperature', settings: range() },
        ]),
      ),
      ['capabilities.0.settings.setpointRange.value.supported.0.value.scale: required'],
    );
    assert.equal(
      validateCapabilities([
        { capability: 'thermostat-mode-detect', permission: '0110', name: 'humidity', settings: range() },
      ]).ok,
      true,
    );
  });
  test('the catalog holds mode presets with the firmware that brought them', () => {
    assert.deepEqual(modePresets.fanMode, { values: ['normal', 'sleep', 'child'], since: '1.11.0' });
    const mode = capabilityDef('mode');
    assert.equal(mode?.naming.kind, 'fixed');
    assert.equal(capabilityDef('nope'), undefined);
  });
});

describe('commands against one device', () => {
  const device: CapabilityObject[] = [
    {
      capability: 'percentage',
      permission: '1100',
      settings: { percentageRange: { permission: '01', type: 'numeric', min: 10, max: 90, step: 5 } },
    },
    {
      capability: 'thermostat-target-setpoint',
      permission: '1110',
      name: 'manual-mode',
      settings: { temperatureRange: { permission: '01', type: 'numeric', min: 5, max: 30 } },
    },
    {
      capability: 'mode',
      permission: '1100',
      name: 'fanLevel',
      settings: { supportedValues: { permission: '01', type: 'enum', values: ['low', 'turbo'] } },
    },
    {
      capability: 'press',
      permission: '1100',
      settings: { actions: { permission: '01', type: 'enum', values: ['singlePress'] } },
    },
    { capability: 'identify', permission: '0100' },
    { capability: 'battery', permission: '0100' },
    { capability: 'inching', permission: '0010' },
    { capability: 'thermostat', permission: '0100', name: 'adaptive-recovery-status' },
    { capability: 'power', permission: 'readWrite' },
  ];
  test('the device settings narrow what is accepted', () => {
    assert.deepEqual(
      errors(
        validateCommand(device, {
          percentage: { percentage: 95 },
          'thermostat-target-setpoint': { 'manual-mode': { targetSetpoint: 31 } },
          mode: { fanLevel: { modeValue: 'high' } },
          press: { press: 'doublePress' },
        }),
      ),
      [
        'state.percentage.percentage: 95 is above max 90',
        'state.thermostat-target-setpoint.manual-mode.targetSetpoint: 31 is above max 30',
        'state.mode.fanLevel.modeValue: "high" is not one of low, turbo',
        'state.press.press: must be singlePress, got "doublePress"',
      ],
    );
    assert.deepEqual(errors(validateCommand(device, { percentage: { percentage: 12 } })), [
      'state.percentage.percentage: 12 is not on step 5 from 10',
    ]);
    const ok = {
      percentage: { percentage: 15 },
      mode: { fanLevel: { modeValue: 'turbo' } },
      press: { press: 'singlePress' },
    };
    assert.deepEqual(validateCommand(device, ok), { ok: true, value: ok });
  });
  test('deltas are not narrowed by the range', () => {
    assert.equal(validateCommand(device, { percentage: { percentageDelta: -100 } }).ok, true);
    assert.deepEqual(errors(validateCommand(device, { percentage: { percentage: 50, percentageDelta: 5 } })), [
      'state.percentage: give only one of percentage, percentageDelta',
    ]);
  });
  test('permissions decide what can be controlled', () => {
    assert.equal(validateCommand(device, { identify: { countdown: 3 }, power: { powerState: 'off' } }).ok, true);
    assert.deepEqual(
      errors(
        validateCommand(device, {
          battery: { battery: 5 },
          inching: {},
          thermostat: { 'adaptive-recovery-status': { adaptiveRecoveryStatus: 'HEATING' } },
        }),
      ),
      [
        'state.battery: battery cannot be controlled (permission 0100)',
        'state.inching: inching has no control body',
        'state.thermostat.adaptive-recovery-status: thermostat adaptive-recovery-status cannot be controlled (permission 0100)',
      ],
    );
  });
  test('a command that is not an object, or names unknown fixed names, is rejected', () => {
    assert.deepEqual(errors(validateCommand(device, null)), ['state: expected an object, got null']);
    assert.deepEqual(errors(validateCommand(device, { mode: { fanSpeed: { modeValue: 'low' } }, percentage: 5 })), [
      'state.mode.fanSpeed: the device has no name fanSpeed of mode',
      'state.percentage: expected an object, got 5',
    ]);
    assert.deepEqual(errors(validateCommand(device, { mode: {} }, 'payload.state')), [
      'payload.state.mode: needs at least one name',
    ]);
  });
  test('system restart must be true; identify needs its countdown', () => {
    const caps: CapabilityObject[] = [
      { capability: 'system', permission: '1000' },
      { capability: 'identify', permission: '0100' },
    ];
    assert.deepEqual(errors(validateCommand(caps, { system: { restart: false }, identify: {} })), [
      'state.system.restart: must be true, got false',
      'state.identify.countdown: required',
    ]);
  });
});

describe('reports', () => {
  const device: CapabilityObject[] = [
    { capability: 'contact', permission: '0100' },
    { capability: 'toggle', permission: '1100', name: '1' },
    { capability: 'irrigation', permission: '0100', name: 'work-mode' },
    { capability: 'rssi', permission: '0100' },
    { capability: 'color-rgb', permission: '1100' },
  ];
  test('keep the valid part and drop or repair the rest, field by field', () => {
    const r = sanitizeReport(device, {
      contact: { contact: 'true' },
      toggle: { '1': { toggleState: 'off' }, '2': { toggleState: 'on' } },
      irrigation: { 'work-mode': 'timer' },
      rssi: { rssi: -61.6 },
      'color-rgb': { red: 300 },
      fan: { speed: 1 },
    });
    assert.deepEqual(r.state, {
      contact: { contact: true },
      toggle: { '1': { toggleState: 'off' } },
      irrigation: { 'work-mode': 'TIMER' },
      rssi: { rssi: -62 },
      'color-rgb': { red: 255 },
    });
    assert.deepEqual(r.warnings, [
      'state.contact.contact: "true" is a string, read as true',
      'state.toggle.2: the device has no channel 2 of toggle (dropped)',
      'state.irrigation.work-mode: "timer" read as "TIMER"',
      'state.rssi.rssi: -61.6 is not an integer, rounded to -62',
      'state.color-rgb.red: 300 is above max 255, clamped to 255',
      'state.fan: the device has no capability fan (dropped)',
    ]);
  });
  test('a report that is not an object is dropped whole', () => {
    assert.deepEqual(sanitizeReport(device, 'x'), {
      state: {},
      warnings: ['state: expected an object, got "x" (dropped)'],
    });
  });
});

describe('queries (D6)', () => {
  const device: CapabilityObject[] = [
    { capability: 'power-consumption', permission: '1101' },
    { capability: 'toggle-power-consumption', permission: '1101', name: '1' },
    { capability: 'irrigation', permission: '0101', name: 'work-status' },
    { capability: 'power', permission: '1100' },
  ];
  test('timeRange is required for summarize, type always', () => {
    assert.deepEqual(
      errors(validateQuery(device, 'power-consumption', { 'power-consumption': { type: 'summarize' } })),
      ['query_state.power-consumption.timeRange: required'],
    );
    assert.deepEqual(errors(validateQuery(device, 'power-consumption', { type: 'monthly' })), [
      'query_state.type: "monthly" is not one of summarize, rlSummarize',
    ]);
    assert.deepEqual(
      errors(validateQuery(device, 'power-consumption', { type: 'summarize', timeRange: { start: 'yesterday' } })),
      ['query_state.timeRange.start: "yesterday" is not an ISO 8601 date'],
    );
  });
  test('per-channel and capability-level queries are checked where they sit', () => {
    assert.deepEqual(errors(validateQuery(device, 'toggle-power-consumption', { '2': { type: 'rlSummarize' } })), [
      'query_state.2: the device has no channel 2 of toggle-power-consumption',
    ]);
    assert.deepEqual(
      errors(
        validateQuery(device, 'irrigation', {
          irrigation: { type: '7Days', timeRange: { start: '2024-05-01T00:00:00Z' } },
        }),
      ),
      ['query_state.irrigation.type: "7Days" is not one of oneDay, 30Days, 180Days'],
    );
  });
  test('a capability the device lacks, or a body that is not an object, is rejected', () => {
    assert.deepEqual(errors(validateQuery(device, 'fan', {})), ['query_state: the device has no capability fan']);
    assert.deepEqual(errors(validateQuery(device, 'power', [])), ['query_state: expected an object, got an array']);
    assert.deepEqual(errors(validateQuery(device, 'power', { power: { speed: 1 } })), [
      'query_state.power.speed: unknown field',
    ]);
  });
});

describe('settings updates', () => {
  const current: CapabilityObject[] = [
    {
      capability: 'temperature',
      permission: '0110',
      settings: {
        temperatureUnit: { permission: '11', type: 'enum', value: 'c', values: ['c', 'f'] },
        temperatureRange: { permission: '01', type: 'numeric', min: -40, max: 80 },
        secret: { permission: '10', type: 'numeric', value: 1 },
      },
    },
    { capability: 'toggle', permission: '1100', name: '1' },
  ];
  test('a client changes values of modifiable settings and gets a new list', () => {
    const r = applySettingsUpdate(
      current,
      [
        {
          capability: 'temperature',
          permission: '0110',
          settings: { temperatureUnit: { value: 'f' }, secret: { value: 2 } },
        },
      ],
      {
        source: 'client',
      },
    );
    assert.equal(r.ok, true);
    if (!r.ok) return;
    assert.equal(r.value[0]?.settings?.temperatureUnit?.value, 'f');
    assert.equal(r.value[0]?.settings?.secret?.value, 2);
    assert.equal(current[0]?.settings?.temperatureUnit?.value, 'c', 'the current list is not changed');
    assert.equal(r.value[1], current[1]);
  });
  test('a client cannot change permissions, view-only settings, or set invalid values', () => {
    const r = applySettingsUpdate(
      current,
      [
        {
          capability: 'temperature',
          permission: '1110',
          settings: { temperatureUnit: { value: 'k', type: 'string' }, temperatureRange: { value: 3 } },
        },
        { capability: 'toggle', name: '2', settings: {} },
        { capability: 'fan' },
      ],
      { source: 'client' },
      'capabilities',
    );
    assert.deepEqual(errors(r), [
      'capabilities.0.permission: permissions cannot be changed (is 0110)',
      'capabilities.0.settings.temperatureUnit.type: the type cannot be changed (is enum)',
      'capabilities.0.settings.temperatureUnit.value: "k" is not one of c, f',
      'capabilities.0.settings.temperatureRange.value: the setting cannot be modified (permission 01)',
      'capabilities.1.name: the device has no name "2" of toggle',
      'capabilities.2: the device has no capability fan',
    ]);
  });
  test('a device report updates values of viewable settings only', () => {
    const r = applySettingsUpdate(
      current,
      [
        {
          capability: 'temperature',
          settings: { temperatureRange: { value: 20 }, secret: { value: 9 }, unknown: { value: 1 } },
        },
      ],
      { source: 'report' },
    );
    assert.equal(r.ok, true);
    if (!r.ok) return;
    assert.equal(r.value[0]?.settings?.temperatureRange?.value, 20);
    assert.equal(r.value[0]?.settings?.secret?.value, 1);
  });
});
