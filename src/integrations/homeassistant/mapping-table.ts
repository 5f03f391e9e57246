/**
 * The capabilities -> Home Assistant entities mapping AS DATA. One row per capability (and name)
 * the bridge publishes: which entity it becomes or which part of a composite entity (light, fan,
 * cover, climate) it fills, with the device class, unit and state class Home Assistant documents
 * for it. Rows of a capability are tried in order; the first whose condition holds wins, except
 * rows marked `also`, which apply and let the next rows be tried too (a thermostat's temperature
 * is both the climate entity's current temperature and a sensor of its own). What the bridge does
 * not publish is listed in `leftOut`, each with the reason; docs/home-assistant.md is rendered
 * from both lists and a test checks that every capability of the catalog is in one of them.
 */
import type { Condition } from '../../core/devices/conditions.ts';

/** The Home Assistant MQTT components the bridge publishes. */
export type Component =
  | 'light'
  | 'switch'
  | 'binary_sensor'
  | 'sensor'
  | 'cover'
  | 'climate'
  | 'fan'
  | 'select'
  | 'number'
  | 'button'
  | 'event'
  | 'device_automation'
  | 'camera';

/** Conditions on the device a row may require (src/core/devices/conditions.ts). */
export type { Condition };

export type EntityCategory = 'config' | 'diagnostic';

/** What a row makes of its capability. */
export type Role =
  | { entity: 'light'; part: 'state' | 'brightness' | 'color_temp' | 'color' }
  | { entity: 'fan'; part: 'state' | 'preset' }
  | { entity: 'cover'; part: 'position' | 'motor' }
  | {
      entity: 'climate';
      part: 'power' | 'hvac' | 'ac' | 'target' | 'current_temperature' | 'current_humidity' | 'action' | 'fan_mode';
    }
  /** An on/off entity over one state field: `on` and `off` are the field's values. */
  | {
      entity: 'switch';
      field: string;
      on: string | boolean;
      off: string | boolean;
      category?: EntityCategory;
      /** `outlet` when the device's display category is `plug`. */
      plugOutlet?: boolean;
    }
  /** A numeric sensor: the field times `scale` (rounded to the scale's decimals); `unknown` publishes `None`. */
  | {
      entity: 'sensor';
      field: string;
      device_class?: string;
      unit?: string;
      state_class?: 'measurement' | 'total' | 'total_increasing';
      scale?: number;
      unknown?: number;
      category?: EntityCategory;
    }
  /** A sensor of words (`device_class: enum`); the options are the field's values (narrowed by the device). */
  | { entity: 'enum_sensor'; field: string; category?: EntityCategory }
  | { entity: 'binary_sensor'; field: string; on: string | boolean; device_class?: string; category?: EntityCategory }
  /** A choice among the field's values (narrowed by the device's settings). */
  | { entity: 'select'; field: string; category?: EntityCategory }
  /** A number within the field's range (narrowed by the device's range setting). */
  | { entity: 'number'; field: string; unit?: string }
  /** A button: pressing sends `press` as the capability's body. */
  | { entity: 'button'; device_class: 'identify' | 'restart'; press: Readonly<Record<string, unknown>> }
  /** Presses: an event entity and one device trigger per action. */
  | { entity: 'press' }
  /** A camera of the camera driver: a camera entity fed with snapshots, and a Snapshot button. */
  | { entity: 'camera' };

export interface MappingRow {
  capability: string;
  /** The name level: a fixed name, `*` for every name (channels), absent for capabilities without names. */
  name?: string;
  when?: Condition;
  /** The row applies and the next rows of the capability are tried too. */
  also?: boolean;
  role: Role;
  /** Entity name in Home Assistant (channel capabilities append the channel); absent: the device's name. */
  label?: string;
  /** Why, for the docs, where the choice is not obvious. */
  note?: string;
}

/** A capability (or one name of it) the bridge does not publish, and why. */
export interface LeftOut {
  capability: string;
  name?: string;
  reason: string;
}

const onOffFeature = (capability: string, label: string): MappingRow => ({
  capability,
  role: { entity: 'switch', field: 'powerState', on: 'on', off: 'off', category: 'config' },
  label,
});

const measurement = (
  capability: string,
  field: string,
  label: string,
  more: { device_class?: string; unit?: string; scale?: number; category?: EntityCategory; name?: string } = {},
): MappingRow => {
  const { name, ...rest } = more;
  return {
    capability,
    ...(name ? { name } : {}),
    role: { entity: 'sensor', field, state_class: 'measurement', ...rest },
    label,
  };
};

const binary = (capability: string, field: string, device_class: string, label: string): MappingRow => ({
  capability,
  role: { entity: 'binary_sensor', field, on: true, device_class },
  label,
});

export const mappingTable: readonly MappingRow[] = [
  // ---- on/off: whose it is depends on the device ----
  { capability: 'power', when: 'climate', role: { entity: 'climate', part: 'power' }, note: 'off is the `off` mode' },
  { capability: 'power', when: 'fan', role: { entity: 'fan', part: 'state' } },
  { capability: 'power', when: 'lightPower', role: { entity: 'light', part: 'state' } },
  {
    capability: 'power',
    role: { entity: 'switch', field: 'powerState', on: 'on', off: 'off', plugOutlet: true },
    note: 'device class `outlet` on a `plug`',
  },
  { capability: 'toggle', name: 'light', when: 'lightChannel', role: { entity: 'light', part: 'state' } },
  {
    capability: 'toggle',
    name: '*',
    role: { entity: 'switch', field: 'toggleState', on: 'on', off: 'off', plugOutlet: true },
    label: 'Channel',
    note: 'named by the `toggle` tag of the channel when the device has one',
  },

  // ---- light: one JSON-schema light per device ----
  { capability: 'brightness', when: 'light', role: { entity: 'light', part: 'brightness' } },
  { capability: 'brightness', role: { entity: 'number', field: 'brightness', unit: '%' }, label: 'Brightness' },
  { capability: 'color-temperature', when: 'light', role: { entity: 'light', part: 'color_temp' } },
  {
    capability: 'color-temperature',
    role: { entity: 'number', field: 'colorTemperature' },
    label: 'Colour temperature',
  },
  {
    capability: 'color-rgb',
    when: 'light',
    role: { entity: 'light', part: 'color' },
    note: 'only on a device with a light (no light: not published)',
  },
  {
    capability: 'startup',
    role: { entity: 'select', field: 'startup', category: 'config' },
    label: 'Power-on behaviour',
  },
  {
    capability: 'toggle-startup',
    name: '*',
    role: { entity: 'select', field: 'startup', category: 'config' },
    label: 'Power-on behaviour',
  },

  // ---- cover ----
  { capability: 'percentage', when: 'cover', role: { entity: 'cover', part: 'position' } },
  { capability: 'percentage', role: { entity: 'number', field: 'percentage', unit: '%' }, label: 'Level' },
  { capability: 'motor-control', role: { entity: 'cover', part: 'motor' }, note: '`lock` is not sent' },
  {
    capability: 'motor-reverse',
    role: { entity: 'switch', field: 'motorReverse', on: true, off: false, category: 'config' },
    label: 'Motor reversed',
    note: 'on: forward (true), as the spec writes it',
  },
  {
    capability: 'motor-clb',
    role: { entity: 'enum_sensor', field: 'motorClb', category: 'diagnostic' },
    label: 'Calibration',
  },

  // ---- climate: one climate entity per thermostat or air conditioner ----
  { capability: 'thermostat', name: 'thermostat-mode', role: { entity: 'climate', part: 'hvac' } },
  { capability: 'thermostat', name: 'adaptive-recovery-status', role: { entity: 'climate', part: 'action' } },
  { capability: 'thermostat-target-setpoint', name: '*', role: { entity: 'climate', part: 'target' } },
  { capability: 'mode', name: 'airConditionerMode', role: { entity: 'climate', part: 'ac' } },
  { capability: 'mode', name: 'fanLevel', when: 'climate', role: { entity: 'climate', part: 'fan_mode' } },
  { capability: 'mode', name: 'fanLevel', when: 'fan', role: { entity: 'fan', part: 'preset' } },
  {
    capability: 'mode',
    name: '*',
    role: { entity: 'select', field: 'modeValue' },
    label: 'Mode',
    note: 'fanMode, thermostatMode, horizontalAngle, verticalAngle, and fanLevel off a climate or fan',
  },
  { capability: 'temperature', when: 'climate', also: true, role: { entity: 'climate', part: 'current_temperature' } },
  measurement('temperature', 'temperature', 'Temperature', { device_class: 'temperature', unit: '°C' }),
  { capability: 'humidity', when: 'climate', also: true, role: { entity: 'climate', part: 'current_humidity' } },
  measurement('humidity', 'humidity', 'Humidity', { device_class: 'humidity', unit: '%' }),
  {
    capability: 'thermostat-mode-detect',
    name: '*',
    role: { entity: 'enum_sensor', field: 'mode' },
    label: 'Comfort',
  },
  onOffFeature('window-detection', 'Window detection'),
  onOffFeature('child-lock', 'Child lock'),
  onOffFeature('anti-direct-blow', 'Anti direct blow'),
  onOffFeature('horizontal-swing', 'Horizontal swing'),
  onOffFeature('vertical-swing', 'Vertical swing'),
  onOffFeature('eco', 'Eco'),

  // ---- sensors ----
  {
    capability: 'battery',
    role: {
      entity: 'sensor',
      field: 'battery',
      device_class: 'battery',
      unit: '%',
      state_class: 'measurement',
      unknown: -1,
      category: 'diagnostic',
    },
    label: 'Battery',
    note: '-1 (unknown) is published as `None`',
  },
  measurement('rssi', 'rssi', 'Signal strength', {
    device_class: 'signal_strength',
    unit: 'dBm',
    category: 'diagnostic',
  }),
  measurement('lqi', 'lqi', 'Link quality', { category: 'diagnostic' }),
  measurement('transmit-power', 'transmitPower', 'Transmit power', { unit: 'dBm', category: 'diagnostic' }),
  measurement('voltage', 'voltage', 'Voltage', { device_class: 'voltage', unit: 'V' }),
  measurement('toggle-voltage', 'voltage', 'Voltage', { device_class: 'voltage', unit: 'V' }),
  measurement('toggle-electric-current', 'electricCurrent', 'Current', {
    name: '*',
    device_class: 'current',
    unit: 'A',
    scale: 0.01,
  }),
  measurement('toggle-electric-power', 'electricPower', 'Power', {
    name: '*',
    device_class: 'power',
    unit: 'W',
    scale: 0.01,
  }),
  {
    capability: 'power-consumption',
    role: {
      entity: 'sensor',
      field: 'rlSummarize',
      device_class: 'energy',
      unit: 'kWh',
      state_class: 'total_increasing',
      scale: 0.01,
    },
    label: 'Energy',
    note: 'the real-time total (`rlSummarize`); history queries are not published',
  },
  {
    capability: 'toggle-power-consumption',
    name: '*',
    role: {
      entity: 'sensor',
      field: 'rlSummarize',
      device_class: 'energy',
      unit: 'kWh',
      state_class: 'total_increasing',
      scale: 0.01,
    },
    label: 'Energy',
  },
  measurement('co2', 'co2', 'CO2', { device_class: 'carbon_dioxide', unit: 'ppm' }),
  measurement('illumination', 'illumination', 'Illuminance', { device_class: 'illuminance', unit: 'lx' }),
  measurement('moisture', 'moisture', 'Moisture', { device_class: 'moisture', unit: '%' }),
  measurement('barometric-pressure', 'barometricPressure', 'Pressure', {
    device_class: 'atmospheric_pressure',
    unit: 'hPa',
  }),
  measurement('wind-speed', 'windSpeed', 'Wind speed', { device_class: 'wind_speed', unit: 'm/s' }),
  {
    capability: 'wind-direction',
    role: { entity: 'sensor', field: 'windDirection', device_class: 'wind_direction', unit: '°' },
    label: 'Wind direction',
    note: 'no state class: an angle is not a measurement Home Assistant averages',
  },
  measurement('rainfall', 'rainfall', 'Rainfall', { device_class: 'precipitation_intensity', unit: 'mm/h' }),
  measurement('ultraviolet-index', 'ultravioletIndex', 'UV index', { unit: 'UV index' }),
  measurement('electrical-conductivity', 'electricalConductivity', 'Conductivity', { unit: 'dS/m' }),
  measurement('pm25', 'pm25', 'PM2.5', { device_class: 'pm25', unit: 'µg/m³' }),
  measurement('voc-index', 'vocIndex', 'VOC', { device_class: 'volatile_organic_compounds', unit: 'µg/m³' }),
  { capability: 'illumination-level', role: { entity: 'enum_sensor', field: 'level' }, label: 'Light level' },
  binary('detect', 'detected', 'occupancy', 'Presence'),
  binary('smoke', 'smoke', 'smoke', 'Smoke'),
  { ...binary('contact', 'contact', 'opening', 'Contact'), note: 'on (open) when `contact` is true (COMPAT.md)' },
  binary('motion', 'motion', 'motion', 'Motion'),
  binary('water-leak', 'waterLeak', 'moisture', 'Water leak'),
  binary('gas', 'gas', 'gas', 'Gas'),
  {
    capability: 'tamper-alert',
    role: { entity: 'binary_sensor', field: 'tamper', on: 'detected', device_class: 'tamper' },
    label: 'Tamper',
  },
  {
    capability: 'detect-hold',
    role: { entity: 'binary_sensor', field: 'detectHold', on: 'on', category: 'diagnostic' },
    label: 'Detection hold',
  },

  // ---- presses and actions ----
  { capability: 'press', role: { entity: 'press' }, label: 'Button', note: 'an event entity and device triggers' },
  { capability: 'multi-press', name: '*', role: { entity: 'press' }, label: 'Button' },
  {
    capability: 'camera-stream',
    role: { entity: 'camera' },
    label: 'Snapshot',
    note: "cameras of the gateway's camera driver only; JPEG snapshots pushed over MQTT (not retained), never the stream address or its password",
  },
  {
    capability: 'identify',
    role: { entity: 'button', device_class: 'identify', press: { countdown: 3 } },
    label: 'Identify',
    note: 'identifies for 3 s',
  },
  {
    capability: 'toggle-identify',
    name: '*',
    role: { entity: 'button', device_class: 'identify', press: { countdown: 3 } },
    label: 'Identify',
  },
  {
    capability: 'system',
    role: { entity: 'button', device_class: 'restart', press: { restart: true } },
    label: 'Restart',
  },

  // ---- irrigation ----
  {
    capability: 'irrigation',
    name: 'work-mode',
    role: { entity: 'enum_sensor', field: 'workMode' },
    label: 'Work mode',
  },
  {
    capability: 'irrigation',
    name: 'work-status',
    role: { entity: 'sensor', field: 'dailyVolume', device_class: 'water', unit: 'L', state_class: 'total_increasing' },
    label: 'Water today',
    note: 'the daily volume; the real-time volume and times are not published',
  },
];

export const leftOut: readonly LeftOut[] = [
  {
    capability: 'toggle-inching',
    reason:
      'configuration only (per-channel auto-off settings): no state to show and no command; set it with D4 `capabilities`',
  },
  {
    capability: 'inching',
    reason: 'configuration only (auto-off settings): no state to show and no command; set it with D4 `capabilities`',
  },
  {
    capability: 'configuration',
    reason: 'reporting intervals of the device (three numbers in one object): a setting, not a state',
  },
  {
    capability: 'irrigation',
    name: 'auto-controller',
    reason: 'an automatic watering plan (type and action object) that no Home Assistant MQTT component holds',
  },
];

/**
 * Press actions of the catalog -> Home Assistant's device trigger `type` (the frontend names
 * these); an action not listed is sent as its own name, which Home Assistant shows as is.
 */
export const triggerTypes: Readonly<Record<string, string>> = {
  singlePress: 'button_short_press',
  doublePress: 'button_double_press',
  longPress: 'button_long_press',
};

/** The colour temperature range the catalog's 0 (warm) .. 100 (cool) maps onto, in kelvin. */
export const KELVIN_RANGE = { min: 2000, max: 6500 } as const;

/** `thermostat-mode` values -> Home Assistant HVAC modes (ECO is the `eco` preset of the heat mode). */
export const THERMOSTAT_MODES: Readonly<Record<string, string>> = { MANUAL: 'heat', AUTO: 'auto' };

/** `airConditionerMode` values -> Home Assistant HVAC modes. */
export const AC_MODES: Readonly<Record<string, string>> = {
  cool: 'cool',
  heat: 'heat',
  auto: 'auto',
  fan: 'fan_only',
  dry: 'dry',
};

/** Which setpoint (`thermostat-target-setpoint` name) a thermostat mode uses. */
export const SETPOINT_OF_MODE: Readonly<Record<string, string>> = {
  MANUAL: 'manual-mode',
  ECO: 'eco-mode',
  AUTO: 'auto-mode',
};
