/** Sensor and button capabilities of spec 2.6. */
import { bool, int, num, obj, oneOf } from '../schema.ts';
import type { BodyDef, CapabilityDef, SettingDef } from '../types.ts';
import { CHANNEL, numericSetting, onOff, rangeSetting, sensor, temperatureUnit } from './common.ts';

const detect = sensor('detect', 'detected', bool(), true, 'Presence detection.', {
  permission: '0110',
  settings: { detectInterval: numericSetting('detection interval'), detectSensitivity: numericSetting('sensitivity') },
  settingsExample: { detectInterval: { permission: '11', type: 'numeric', value: 30, min: 5, max: 300, unit: 's' } },
});

const temperature = sensor('temperature', 'temperature', num({ unit: '°C' }), 22.5, 'Temperature in Celsius.', {
  permission: '0110',
  settings: {
    temperatureCalibration: numericSetting('offset added to readings (min, max, step, value)'),
    temperatureUnit,
    temperatureRange: rangeSetting('measuring range'),
  },
  settingsExample: {
    temperatureCalibration: { permission: '11', type: 'numeric', value: 0, min: -7, max: 7, step: 0.2 },
    temperatureUnit: { permission: '11', type: 'enum', value: 'c', values: ['c', 'f'] },
    temperatureRange: { permission: '01', type: 'numeric', min: -40, max: 80 },
  },
});

const humidity = sensor('humidity', 'humidity', num({ min: 0, max: 100, unit: '%' }), 55, 'Relative humidity.', {
  settings: { humidityRange: rangeSetting('measuring range') },
});

const battery = sensor(
  'battery',
  'battery',
  num({ min: -1, max: 100, unit: '%' }),
  87,
  'Battery level; -1 means unknown.',
);

const actions: SettingDef = {
  type: 'enum',
  permission: '01',
  doc: 'press actions of the device; a configured list replaces the defaults',
  defaults: ['singlePress', 'doublePress', 'longPress'],
};
const pressBody = (permission: string): BodyDef => ({
  permission,
  state: obj({ press: oneOf('singlePress', 'doublePress', 'longPress') }),
  settings: { actions },
  narrowing: [{ setting: 'actions', field: 'press', by: 'values' }],
});

const press: CapabilityDef = {
  capability: 'press',
  doc: 'A button press; the `actions` setting lists the presses the device has.',
  naming: { kind: 'none' },
  body: pressBody('1100'),
  examples: {
    declaration: [
      {
        capability: 'press',
        permission: '1100',
        settings: { actions: { permission: '01', type: 'enum', values: ['singlePress', 'doublePress'] } },
      },
    ],
    control: [{ press: { press: 'singlePress' } }],
    report: [{ press: { press: 'doublePress' } }],
  },
};

const multiPress: CapabilityDef = {
  capability: 'multi-press',
  doc: 'Presses of one button of several.',
  naming: CHANNEL,
  body: pressBody('0100'),
  examples: {
    declaration: [{ capability: 'multi-press', permission: '0100', name: '1' }],
    report: [{ 'multi-press': { '1': { press: 'longPress' } } }],
  },
};

const rssi = sensor(
  'rssi',
  'rssi',
  int({ max: -1, unit: 'dBm' }),
  -62,
  'Received signal strength (negative integer dBm).',
);
const tamper = sensor('tamper-alert', 'tamper', oneOf('clear', 'detected'), 'clear', 'Tamper switch.');
const level = sensor('illumination-level', 'level', oneOf('brighter', 'darker'), 'brighter', 'Coarse light level.');
const co2 = sensor('co2', 'co2', int({ unit: 'ppm' }), 420, 'CO2 concentration.', {
  settings: { co2Range: rangeSetting('measuring range') },
});
const illumination = sensor('illumination', 'illumination', int({ unit: 'lux' }), 300, 'Illuminance.', {
  settings: { illuminationRange: rangeSetting('measuring range') },
});

const booleans = [
  sensor('smoke', 'smoke', bool(), false, 'Smoke; true means detected.'),
  sensor('contact', 'contact', bool(), true, 'Contact; true means open (detected), as add-ons report a door opening.'),
  sensor('motion', 'motion', bool(), true, 'Motion; true means detected.', {
    permission: '0110',
    settings: {
      motionInterval: numericSetting('re-trigger interval'),
      motionSensitivity: numericSetting('sensitivity'),
    },
  }),
  sensor('water-leak', 'waterLeak', bool(), false, 'Water leak; true means detected.'),
  sensor('gas', 'gas', bool(), false, 'Gas; true means detected.'),
];

const detectHold = sensor('detect-hold', 'detectHold', onOff(), 'on', 'Holds the detected state for a time.', {
  settings: {
    detectHoldEnable: { type: 'boolean', permission: '01', doc: 'hold on or off' },
    detectHoldSwitch: { type: 'enum', permission: '01', doc: 'held state', values: ['on', 'off'] },
    detectHoldTime: { type: 'numeric', permission: '01', doc: 'hold time (minute)' },
  },
  settingsExample: {
    detectHoldEnable: { permission: '01', type: 'boolean', value: true },
    detectHoldSwitch: { permission: '01', type: 'enum', value: 'on', values: ['on', 'off'] },
    detectHoldTime: { permission: '01', type: 'numeric', value: 5, unit: 'minute' },
  },
});

const lqi = sensor('lqi', 'lqi', num({ min: 0, max: 255 }), 180, 'Link quality.');
const moisture = sensor('moisture', 'moisture', num({ min: 0, max: 100, unit: '%' }), 35, 'Soil moisture.');
const pressure = sensor('barometric-pressure', 'barometricPressure', int({ unit: 'hPa' }), 1013, 'Air pressure.', {
  settings: { barometricPressureRange: rangeSetting('measuring range (min less than max)') },
  settingsExample: { barometricPressureRange: { permission: '01', type: 'numeric', min: 300, max: 1100 } },
});
const windSpeed = sensor('wind-speed', 'windSpeed', num({ unit: 'm/s' }), 3.4, 'Wind speed.', {
  settings: { windSpeedRange: rangeSetting('measuring range (min less than max)') },
});
const windDirection = sensor(
  'wind-direction',
  'windDirection',
  int({ min: 0, max: 360, unit: 'degrees clockwise' }),
  270,
  'Wind direction.',
);
const rainfall = sensor('rainfall', 'rainfall', num({ unit: 'mm/h' }), 1.2, 'Rainfall.', {
  settings: { rainfallRange: rangeSetting('measuring range') },
});
const uv = sensor('ultraviolet-index', 'ultravioletIndex', num(), 5, 'UV index.', {
  settings: { ultravioletIndexRange: rangeSetting('measuring range') },
});
const ec = sensor('electrical-conductivity', 'electricalConductivity', num({ unit: 'dS/m' }), 1.5, 'Conductivity.', {
  settings: { electricalConductivityRange: rangeSetting('measuring range') },
});
const transmitPower = sensor('transmit-power', 'transmitPower', int({ unit: 'dBm' }), 8, 'Radio transmit power.', {
  permission: '1100',
});
const pm25 = sensor('pm25', 'pm25', num({ unit: 'µg/m³' }), 12, 'PM2.5 concentration.');
const voc = sensor('voc-index', 'vocIndex', num({ unit: 'µg/m³' }), 110, 'Volatile organic compounds.');

export const sensorCapabilities: readonly CapabilityDef[] = [
  detect,
  temperature,
  humidity,
  battery,
  press,
  multiPress,
  rssi,
  tamper,
  level,
  co2,
  illumination,
  ...booleans,
  detectHold,
  lqi,
  moisture,
  pressure,
  windSpeed,
  windDirection,
  rainfall,
  uv,
  ec,
  transmitPower,
  pm25,
  voc,
];
