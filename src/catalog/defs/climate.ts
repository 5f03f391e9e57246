/** Climate capabilities of spec 2.6: thermostat, setpoints, mode detection, preset modes. */
import { arr, int, num, obj, oneOf, opt } from '../schema.ts';
import type { BodyDef, CapabilityDef, SettingDef, SettingItem } from '../types.ts';
import { rangeSetting, temperatureUnit } from './common.ts';

const setpointRange = (scaleRequired: boolean): SettingDef => ({
  type: 'object',
  permission: '11',
  doc: '`value.supported`: array of `{name: lowerSetpoint|upperSetpoint, value:{value, scale c|f}}`, at least one',
  value: obj({
    supported: arr(
      obj({
        name: oneOf('lowerSetpoint', 'upperSetpoint'),
        value: obj({ value: num(), scale: scaleRequired ? oneOf('c', 'f') : opt(oneOf('c', 'f')) }),
      }),
      { minItems: 1 },
    ),
  }),
});

const detectBody = (scaleRequired: boolean): BodyDef => ({
  permission: '0110',
  state: obj({ mode: oneOf('COMFORT', 'COLD', 'HOT', 'DRY', 'WET') }),
  settings: {
    setpointRange: setpointRange(scaleRequired),
    supportedModes: {
      type: 'enum',
      permission: '01',
      doc: 'modes the device detects',
      defaults: ['COMFORT', 'COLD', 'HOT'],
    },
  },
});

const thermostatModeDetect: CapabilityDef = {
  capability: 'thermostat-mode-detect',
  doc: 'Comfort detection from temperature or humidity against setpoints.',
  naming: { kind: 'fixed', names: { temperature: detectBody(true), humidity: detectBody(false) } },
  examples: {
    declaration: [
      {
        capability: 'thermostat-mode-detect',
        permission: '0110',
        name: 'temperature',
        settings: {
          setpointRange: {
            permission: '11',
            type: 'object',
            value: {
              supported: [
                { name: 'lowerSetpoint', value: { value: 18, scale: 'c' } },
                { name: 'upperSetpoint', value: { value: 26, scale: 'c' } },
              ],
            },
          },
          supportedModes: { permission: '01', type: 'enum', values: ['COMFORT', 'COLD', 'HOT'] },
        },
      },
      { capability: 'thermostat-mode-detect', permission: '0110', name: 'humidity' },
    ],
    report: [{ 'thermostat-mode-detect': { temperature: { mode: 'COMFORT' }, humidity: { mode: 'DRY' } } }],
  },
};

const thermostat: CapabilityDef = {
  capability: 'thermostat',
  doc: 'Thermostat working mode and adaptive recovery status.',
  naming: {
    kind: 'fixed',
    names: {
      'thermostat-mode': {
        permission: '1100',
        state: obj({ thermostatMode: oneOf('MANUAL', 'AUTO', 'ECO') }),
        settings: {
          supportedModes: {
            type: 'enum',
            permission: '01',
            doc: 'modes the device supports; a configured list replaces the default',
            defaults: ['MANUAL', 'AUTO', 'ECO'],
          },
        },
        narrowing: [{ setting: 'supportedModes', field: 'thermostatMode', by: 'values' }],
      },
      'adaptive-recovery-status': {
        permission: '0100',
        state: obj({ adaptiveRecoveryStatus: oneOf('HEATING', 'INACTIVE') }),
      },
    },
  },
  examples: {
    declaration: [
      {
        capability: 'thermostat',
        permission: '1100',
        name: 'thermostat-mode',
        settings: { supportedModes: { permission: '01', type: 'enum', values: ['MANUAL', 'AUTO', 'ECO'] } },
      },
      { capability: 'thermostat', permission: '0100', name: 'adaptive-recovery-status' },
    ],
    control: [{ thermostat: { 'thermostat-mode': { thermostatMode: 'ECO' } } }],
    report: [
      {
        thermostat: {
          'thermostat-mode': { thermostatMode: 'AUTO' },
          'adaptive-recovery-status': { adaptiveRecoveryStatus: 'HEATING' },
        },
      },
    ],
  },
};

const schedule = arr(
  obj({
    startTimeInMinutes: int({ min: 0, max: 1439, unit: 'minutes since midnight' }),
    upperSetpoint: num(),
    lowerSetpoint: num(),
  }),
);
const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

const setpointBody = (permission: string, weekly: boolean): BodyDef => ({
  permission,
  state: obj({ targetSetpoint: num({ doc: 'in the unit of temperatureUnit' }) }),
  settings: {
    temperatureUnit,
    temperatureRange: rangeSetting('min, max, step of `targetSetpoint` for this device'),
    ...(weekly
      ? {
          weeklySchedule: {
            type: 'object',
            permission: '11',
            doc: '`value`: maxEntryPerDay and one array per weekday of {startTimeInMinutes, upperSetpoint, lowerSetpoint}',
            value: obj({ maxEntryPerDay: int({ min: 0 }), ...Object.fromEntries(days.map((d) => [d, opt(schedule)])) }),
          } satisfies SettingDef,
        }
      : {}),
  },
  narrowing: [{ setting: 'temperatureRange', field: 'targetSetpoint', by: 'range' }],
});

const setpointSettings: Record<string, SettingItem> = {
  temperatureUnit: { permission: '11', type: 'enum', value: 'c', values: ['c', 'f'] },
  temperatureRange: { permission: '01', type: 'numeric', min: 4, max: 35, step: 0.5 },
};

const thermostatTargetSetpoint: CapabilityDef = {
  capability: 'thermostat-target-setpoint',
  doc: 'Target temperature per thermostat mode; a `temperatureRange` setting narrows it for the device.',
  naming: {
    kind: 'fixed',
    names: {
      'manual-mode': setpointBody('1110', false),
      'eco-mode': setpointBody('1110', false),
      'auto-mode': setpointBody('0110', true),
    },
  },
  examples: {
    declaration: [
      {
        capability: 'thermostat-target-setpoint',
        permission: '1110',
        name: 'manual-mode',
        settings: { ...setpointSettings },
      },
      {
        capability: 'thermostat-target-setpoint',
        permission: '0110',
        name: 'auto-mode',
        settings: {
          ...setpointSettings,
          weeklySchedule: {
            permission: '11',
            type: 'object',
            value: {
              maxEntryPerDay: 2,
              Monday: [
                { startTimeInMinutes: 420, upperSetpoint: 23, lowerSetpoint: 20 },
                { startTimeInMinutes: 1320, upperSetpoint: 19, lowerSetpoint: 16 },
              ],
              Sunday: [],
            },
          },
        },
      },
    ],
    control: [{ 'thermostat-target-setpoint': { 'manual-mode': { targetSetpoint: 21.5 } } }],
    report: [
      {
        'thermostat-target-setpoint': { 'manual-mode': { targetSetpoint: 21.5 }, 'auto-mode': { targetSetpoint: 20 } },
      },
    ],
  },
};

/** Preset values of the `mode` names (spec 2.6) and the firmware version that brought them (spec 9). */
export const modePresets: Readonly<Record<string, { values: readonly string[]; since?: string }>> = {
  fanLevel: { values: ['low', 'medium', 'high'] },
  thermostatMode: { values: ['auto', 'manual'] },
  airConditionerMode: { values: ['cool', 'heat', 'auto', 'fan', 'dry'], since: '1.11.0' },
  fanMode: { values: ['normal', 'sleep', 'child'], since: '1.11.0' },
  horizontalAngle: { values: ['30', '60', '90', '120', '180', '360'], since: '1.11.0' },
  verticalAngle: { values: ['30', '60', '90', '120', '180', '360'], since: '1.11.0' },
};

const modeBody = (name: string): BodyDef => {
  const presets = modePresets[name] as { values: readonly string[]; since?: string };
  return {
    permission: '1100',
    state: obj({ modeValue: oneOf(...presets.values) }),
    settings: {
      supportedValues: {
        type: 'enum',
        permission: '01',
        doc: 'values the device supports; a configured list replaces the presets',
        defaults: presets.values,
      },
    },
    narrowing: [{ setting: 'supportedValues', field: 'modeValue', by: 'values' }],
    presets,
  };
};

const mode: CapabilityDef = {
  capability: 'mode',
  doc: 'Preset modes (fan level, air conditioner mode, swing angles...). Configured `supportedValues` replace the presets.',
  naming: { kind: 'fixed', names: Object.fromEntries(Object.keys(modePresets).map((n) => [n, modeBody(n)])) },
  examples: {
    declaration: [
      { capability: 'mode', permission: '1100', name: 'fanLevel' },
      {
        capability: 'mode',
        permission: '1100',
        name: 'airConditionerMode',
        settings: { supportedValues: { permission: '01', type: 'enum', values: ['cool', 'heat', 'auto'] } },
      },
    ],
    control: [{ mode: { fanLevel: { modeValue: 'high' }, airConditionerMode: { modeValue: 'cool' } } }],
    report: [{ mode: { fanLevel: { modeValue: 'low' } } }],
  },
};

export const climateCapabilities: readonly CapabilityDef[] = [
  thermostatModeDetect,
  thermostat,
  thermostatTargetSetpoint,
  mode,
];
