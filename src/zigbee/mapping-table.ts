/**
 * The exposes -> capabilities mapping AS DATA (issue 5): one row per Zigbee2MQTT expose feature
 * the gateway understands, read in both directions by mapping.ts. A row says which feature it
 * matches (name, expose type, parent expose, unit), which capability, name level and state field
 * it becomes, and how values convert (a named conversion with its parameters). Rows are tried in
 * order; the first that matches a feature wins, and a capability/name already taken on the device
 * is not mapped twice (the feature then counts as unmapped unless the row has a channel fallback).
 */

/** How one value converts between Zigbee2MQTT (z) and the API (a). */
export type Conversion =
  /** Binary with the expose's value_on/value_off/value_toggle <-> `on`/`off`/`toggle`. */
  | { kind: 'onoff' }
  /**
   * Binary with the expose's value_on/value_off <-> boolean; `invert` flips the meaning. `raw`
   * reads the boolean itself, not value_on (contact's expose declares value_on = false, "open").
   */
  | { kind: 'bool'; invert?: boolean; raw?: boolean }
  /** Binary <-> one of two words. */
  | { kind: 'boolWord'; whenTrue: string; whenFalse: string }
  /** Enum value <-> enum value; values missing from `map` are not mapped (dropped on report). */
  | { kind: 'enum'; map: Readonly<Record<string, string>> }
  /** Linear range: the expose's value_min..value_max (or `from`) <-> `to`; `invert` maps min to the top of `to`. */
  | { kind: 'scale'; to: readonly [number, number]; from?: readonly [number, number]; invert?: boolean }
  /** Number times `factor` (API = Z2M x factor), rounded to an int when `int`, clamped to min/max. */
  | { kind: 'number'; factor?: number; int?: boolean; min?: number; max?: number }
  /** Composite colour (x/y or hue/saturation) <-> color-rgb {red, green, blue}. */
  | { kind: 'color' }
  /** A command without state (identify): any API value sends the expose's first enum value. */
  | { kind: 'command' };

/** Settings the mapping declares on a capability, built from the expose. */
export type SettingsKind =
  /** thermostat-target-setpoint: temperatureUnit `c`, temperatureRange from value_min/max/step. */
  | 'setpoint'
  /** mode: supportedValues = the mapped enum values the device has. */
  | 'supportedValues'
  /** thermostat thermostat-mode: supportedModes = the mapped values the device has. */
  | 'supportedModes'
  /** percentage: percentageRange from value_min/max. */
  | 'percentageRange';

export interface MappingRow {
  /** Expose feature name (`name`, not `property`: endpoints suffix the property). */
  feature: string;
  type: 'binary' | 'numeric' | 'enum' | 'composite';
  /** Types of the enclosing specific expose the feature may sit in (`''`: top level). Absent: any. */
  parent?: readonly string[];
  /** Units the feature must have (e.g. `V`, not the `mV` of a battery). Absent: any. */
  unit?: readonly string[];
  /** Only when the enum expose lists at least one of these values. */
  whenValues?: readonly string[];
  capability: string;
  /** Fixed name level when the feature has no endpoint. */
  name?: string;
  /** Capability used, with the channel name of the endpoint, when the feature has an endpoint. */
  channel?: string;
  /** When the capability (and name) is already taken: map to `channel` named after the endpoint or the parent. */
  fallbackToChannel?: boolean;
  /** State field in the capability body; `*` means the converted value is the whole body. */
  field: string;
  /** State field when mapped to the channel capability, if it differs (toggle's `toggleState`). */
  channelField?: string;
  /** Conversion when mapped to the channel capability, if it differs (toggle-startup has no `toggle`). */
  channelConv?: Conversion;
  conv: Conversion;
  /** Permission when the feature can be set (`/set`); otherwise the report-only code is used. */
  control?: string;
  /** Permission for report only. */
  report: string;
  /** Constant fields added to every report body (e.g. power-consumption's `type`). */
  constant?: Readonly<Record<string, unknown>>;
  settings?: SettingsKind;
  /**
   * How a set is confirmed by the republished state: `equal` (the value Z2M republishes equals
   * what was set, within one step), `present` (any republish of the property: toggles, colour,
   * covers that report progress) or `none` (a command without state: done once published).
   */
  confirm?: 'equal' | 'present' | 'none';
  /** `<field>Delta` in a command: the Z2M `<property>_step` property it becomes, and the factor. */
  delta?: { property: string; factor: number };
}

const STATE_PARENTS = ['light', 'switch', 'fan', ''] as const;

/** Enum maps shared by rows. */
export const STARTUP_MAP = { on: 'on', off: 'off', toggle: 'toggle', previous: 'stay' } as const;
export const TOGGLE_STARTUP_MAP = { on: 'on', off: 'off', previous: 'stay' } as const;
export const COVER_MAP = { OPEN: 'open', CLOSE: 'close', STOP: 'stop' } as const;
export const THERMOSTAT_MODE_MAP = { heat: 'MANUAL', auto: 'AUTO' } as const;
export const AC_MODE_MAP = { cool: 'cool', heat: 'heat', auto: 'auto', fan_only: 'fan', dry: 'dry' } as const;
export const FAN_LEVEL_MAP = { low: 'low', medium: 'medium', high: 'high' } as const;

/** A thermostat setpoint feature as the target setpoint of one mode. */
function setpoint(feature: string, name: 'manual-mode' | 'eco-mode'): MappingRow {
  return {
    feature,
    type: 'numeric',
    capability: 'thermostat-target-setpoint',
    name,
    field: 'targetSetpoint',
    conv: { kind: 'number' },
    control: '1110',
    report: '0110',
    settings: 'setpoint',
    confirm: 'equal',
  };
}

export const mappingTable: readonly MappingRow[] = [
  // switch, light, fan on/off: `power` without an endpoint, `toggle` channels with one.
  {
    feature: 'state',
    type: 'binary',
    parent: STATE_PARENTS,
    capability: 'power',
    channel: 'toggle',
    fallbackToChannel: true,
    field: 'powerState',
    channelField: 'toggleState',
    conv: { kind: 'onoff' },
    control: '1100',
    report: '0100',
    confirm: 'equal',
  },
  {
    feature: 'power_on_behavior',
    type: 'enum',
    capability: 'startup',
    channel: 'toggle-startup',
    field: 'startup',
    conv: { kind: 'enum', map: STARTUP_MAP },
    channelConv: { kind: 'enum', map: TOGGLE_STARTUP_MAP },
    control: '1100',
    report: '0100',
    confirm: 'equal',
  },
  // light
  {
    feature: 'brightness',
    type: 'numeric',
    parent: ['light', 'fan', ''],
    capability: 'brightness',
    field: 'brightness',
    conv: { kind: 'scale', to: [0, 100], from: [0, 254] },
    control: '1100',
    report: '0100',
    confirm: 'equal',
    delta: { property: 'brightness_step', factor: 2.54 },
  },
  {
    feature: 'color_temp',
    type: 'numeric',
    parent: ['light'],
    capability: 'color-temperature',
    field: 'colorTemperature',
    // mireds: a high value is warm, the API's 0 is warm, so the device's range maps inverted.
    conv: { kind: 'scale', to: [0, 100], invert: true },
    control: '1100',
    report: '0100',
    // Zigbee2MQTT clamps color_temp to the bulb's physical range (read from the bulb), which may
    // be narrower than the exposed one: it republishes the clamped value.
    confirm: 'present',
    delta: { property: 'color_temp_step', factor: -3 },
  },
  {
    feature: 'color_xy',
    type: 'composite',
    parent: ['light'],
    capability: 'color-rgb',
    field: '*',
    conv: { kind: 'color' },
    control: '1100',
    report: '0100',
    confirm: 'present',
  },
  {
    feature: 'color_hs',
    type: 'composite',
    parent: ['light'],
    capability: 'color-rgb',
    field: '*',
    conv: { kind: 'color' },
    control: '1100',
    report: '0100',
    confirm: 'present',
  },
  // cover
  {
    feature: 'state',
    type: 'enum',
    parent: ['cover'],
    capability: 'motor-control',
    field: 'motorControl',
    conv: { kind: 'enum', map: COVER_MAP },
    control: '1100',
    report: '0100',
    confirm: 'present',
  },
  {
    feature: 'position',
    type: 'numeric',
    parent: ['cover'],
    capability: 'percentage',
    field: 'percentage',
    conv: { kind: 'number', min: 0, max: 100 },
    control: '1100',
    report: '0100',
    confirm: 'present',
  },
  // climate
  setpoint('occupied_heating_setpoint', 'manual-mode'),
  setpoint('current_heating_setpoint', 'manual-mode'),
  setpoint('occupied_cooling_setpoint', 'manual-mode'),
  setpoint('unoccupied_heating_setpoint', 'eco-mode'),
  {
    feature: 'local_temperature',
    type: 'numeric',
    capability: 'temperature',
    field: 'temperature',
    conv: { kind: 'number' },
    report: '0100',
  },
  {
    feature: 'system_mode',
    type: 'enum',
    whenValues: ['cool', 'fan_only', 'dry'],
    capability: 'mode',
    name: 'airConditionerMode',
    field: 'modeValue',
    conv: { kind: 'enum', map: AC_MODE_MAP },
    control: '1100',
    report: '0100',
    settings: 'supportedValues',
    confirm: 'equal',
  },
  {
    feature: 'system_mode',
    type: 'enum',
    capability: 'thermostat',
    name: 'thermostat-mode',
    field: 'thermostatMode',
    conv: { kind: 'enum', map: THERMOSTAT_MODE_MAP },
    control: '1100',
    report: '0100',
    settings: 'supportedModes',
    confirm: 'equal',
  },
  // fan modes (a fan's `mode` feature has the property fan_mode; climate exposes fan_mode)
  {
    feature: 'mode',
    type: 'enum',
    parent: ['fan'],
    capability: 'mode',
    name: 'fanLevel',
    field: 'modeValue',
    conv: { kind: 'enum', map: FAN_LEVEL_MAP },
    control: '1100',
    report: '0100',
    settings: 'supportedValues',
    confirm: 'equal',
  },
  {
    feature: 'fan_mode',
    type: 'enum',
    capability: 'mode',
    name: 'fanLevel',
    field: 'modeValue',
    conv: { kind: 'enum', map: FAN_LEVEL_MAP },
    control: '1100',
    report: '0100',
    settings: 'supportedValues',
    confirm: 'equal',
  },
  {
    feature: 'child_lock',
    type: 'binary',
    capability: 'child-lock',
    field: 'powerState',
    conv: { kind: 'onoff' },
    control: '1100',
    report: '0100',
    confirm: 'equal',
  },
  {
    feature: 'window_detection',
    type: 'binary',
    capability: 'window-detection',
    field: 'powerState',
    conv: { kind: 'onoff' },
    control: '1100',
    report: '0100',
    confirm: 'equal',
  },
  {
    feature: 'identify',
    type: 'enum',
    capability: 'identify',
    field: 'countdown',
    conv: { kind: 'command' },
    control: '0100',
    report: '0100',
    confirm: 'none',
  },
  // binary sensors. Z2M's contact is true when CLOSED; the API's contact is true when OPEN.
  {
    feature: 'contact',
    type: 'binary',
    capability: 'contact',
    field: 'contact',
    conv: { kind: 'bool', invert: true, raw: true },
    report: '0100',
  },
  {
    feature: 'occupancy',
    type: 'binary',
    capability: 'motion',
    field: 'motion',
    conv: { kind: 'bool' },
    report: '0100',
  },
  {
    feature: 'presence',
    type: 'binary',
    capability: 'motion',
    field: 'motion',
    conv: { kind: 'bool' },
    report: '0100',
  },
  {
    feature: 'water_leak',
    type: 'binary',
    capability: 'water-leak',
    field: 'waterLeak',
    conv: { kind: 'bool' },
    report: '0100',
  },
  { feature: 'smoke', type: 'binary', capability: 'smoke', field: 'smoke', conv: { kind: 'bool' }, report: '0100' },
  { feature: 'gas', type: 'binary', capability: 'gas', field: 'gas', conv: { kind: 'bool' }, report: '0100' },
  {
    feature: 'tamper',
    type: 'binary',
    capability: 'tamper-alert',
    field: 'tamper',
    conv: { kind: 'boolWord', whenTrue: 'detected', whenFalse: 'clear' },
    report: '0100',
  },
  // numeric sensors
  {
    feature: 'battery',
    type: 'numeric',
    unit: ['%'],
    capability: 'battery',
    field: 'battery',
    conv: { kind: 'number', min: 0, max: 100 },
    report: '0100',
  },
  {
    feature: 'linkquality',
    type: 'numeric',
    capability: 'lqi',
    field: 'lqi',
    conv: { kind: 'number', min: 0, max: 255 },
    report: '0100',
  },
  {
    feature: 'temperature',
    type: 'numeric',
    unit: ['°C'],
    capability: 'temperature',
    field: 'temperature',
    conv: { kind: 'number' },
    report: '0100',
  },
  {
    feature: 'humidity',
    type: 'numeric',
    unit: ['%'],
    capability: 'humidity',
    field: 'humidity',
    conv: { kind: 'number', min: 0, max: 100 },
    report: '0100',
  },
  {
    feature: 'soil_moisture',
    type: 'numeric',
    unit: ['%'],
    capability: 'moisture',
    field: 'moisture',
    conv: { kind: 'number', min: 0, max: 100 },
    report: '0100',
  },
  {
    feature: 'pressure',
    type: 'numeric',
    unit: ['hPa'],
    capability: 'barometric-pressure',
    field: 'barometricPressure',
    conv: { kind: 'number', int: true },
    report: '0100',
  },
  {
    feature: 'pressure',
    type: 'numeric',
    unit: ['kPa'],
    capability: 'barometric-pressure',
    field: 'barometricPressure',
    conv: { kind: 'number', factor: 10, int: true },
    report: '0100',
  },
  {
    feature: 'illuminance',
    type: 'numeric',
    unit: ['lx'],
    capability: 'illumination',
    field: 'illumination',
    conv: { kind: 'number', int: true, min: 0 },
    report: '0100',
  },
  {
    feature: 'illuminance_lux',
    type: 'numeric',
    unit: ['lx'],
    capability: 'illumination',
    field: 'illumination',
    conv: { kind: 'number', int: true, min: 0 },
    report: '0100',
  },
  {
    feature: 'co2',
    type: 'numeric',
    unit: ['ppm'],
    capability: 'co2',
    field: 'co2',
    conv: { kind: 'number', int: true, min: 0 },
    report: '0100',
  },
  {
    feature: 'pm25',
    type: 'numeric',
    capability: 'pm25',
    field: 'pm25',
    conv: { kind: 'number', min: 0 },
    report: '0100',
  },
  {
    feature: 'voc_index',
    type: 'numeric',
    capability: 'voc-index',
    field: 'vocIndex',
    conv: { kind: 'number', min: 0 },
    report: '0100',
  },
  // metering: the API counts power in 0.01 W, current in 0.01 A, energy in 0.01 kWh.
  {
    feature: 'power',
    type: 'numeric',
    unit: ['W'],
    capability: 'toggle-electric-power',
    name: '1',
    channel: 'toggle-electric-power',
    field: 'electricPower',
    conv: { kind: 'number', factor: 100, int: true, min: 0 },
    report: '0100',
  },
  {
    feature: 'current',
    type: 'numeric',
    unit: ['A'],
    capability: 'toggle-electric-current',
    name: '1',
    channel: 'toggle-electric-current',
    field: 'electricCurrent',
    conv: { kind: 'number', factor: 100, int: true, min: 0 },
    report: '0100',
  },
  {
    feature: 'current',
    type: 'numeric',
    unit: ['mA'],
    capability: 'toggle-electric-current',
    name: '1',
    channel: 'toggle-electric-current',
    field: 'electricCurrent',
    conv: { kind: 'number', factor: 0.1, int: true, min: 0 },
    report: '0100',
  },
  {
    feature: 'voltage',
    type: 'numeric',
    unit: ['V'],
    capability: 'voltage',
    field: 'voltage',
    conv: { kind: 'number' },
    report: '0100',
  },
  {
    feature: 'energy',
    type: 'numeric',
    unit: ['kWh'],
    capability: 'power-consumption',
    channel: 'toggle-power-consumption',
    field: 'rlSummarize',
    conv: { kind: 'number', factor: 100, min: 0 },
    constant: { type: 'rlSummarize' },
    report: '0100',
  },
];

/**
 * Button actions: Zigbee2MQTT's `action` enum values. A bare press word becomes `press`;
 * a press word joined to a button name (`single_left`, `left_single`, `button_1_single`, `1_double`)
 * becomes `multi-press` with that button as its name. Other action values are not mapped.
 */
export const PRESS_WORDS: Readonly<Record<string, string>> = {
  single: 'singlePress',
  click: 'singlePress',
  press: 'singlePress',
  double: 'doublePress',
  long: 'longPress',
  hold: 'longPress',
};

/** Endpoint names to API channel names (first match wins); others keep their letters and digits. */
export const CHANNEL_PATTERNS: readonly [RegExp, string][] = [
  [/^l(\d+)$/, '$1'],
  [/^(?:switch|button|channel|ch|relay|socket|outlet|ep|gang)_?(\d+)$/, '$1'],
];

/**
 * Display category from the device's exposes and mapped capabilities (first match wins).
 * Tokens: `parent:<type>` a specific expose of that type, `cap:<capability>` a mapped capability,
 * `plug` the definition's description names a plug, socket or outlet.
 */
export const CATEGORY_RULES: readonly { all: readonly string[]; category: string }[] = [
  { all: ['parent:climate', 'cap:mode/airConditionerMode'], category: 'airConditioner' },
  { all: ['parent:climate'], category: 'thermostat' },
  { all: ['parent:fan', 'parent:light'], category: 'fanLight' },
  { all: ['parent:fan'], category: 'fan' },
  { all: ['parent:light'], category: 'light' },
  { all: ['parent:cover'], category: 'curtain' },
  { all: ['parent:switch', 'plug'], category: 'plug' },
  { all: ['parent:switch'], category: 'switch' },
  { all: ['cap:smoke'], category: 'smokeDetector' },
  { all: ['cap:water-leak'], category: 'waterLeakDetector' },
  { all: ['cap:contact'], category: 'contactSensor' },
  { all: ['cap:motion'], category: 'motionSensor' },
  { all: ['cap:temperature', 'cap:humidity'], category: 'temperatureAndHumiditySensor' },
  { all: ['cap:temperature'], category: 'temperatureSensor' },
  { all: ['cap:humidity'], category: 'humiditySensor' },
  { all: ['cap:press'], category: 'button' },
  { all: ['cap:multi-press'], category: 'button' },
  { all: [], category: 'sensor' },
];

export const PLUG_WORDS = /\b(plug|socket|outlet)\b/i;
