/**
 * The capabilities -> Matter mapping AS DATA. A gateway device becomes one bridged device of the
 * Matter bridge: one endpoint per function it has (a light, a plug, one switch channel, a cover, a
 * thermostat, a fan, each sensor, each button), under a Bridged Node endpoint when it has several.
 * One row per capability (and name) says which endpoint it feeds and what it fills there. Rows of a
 * capability are tried in order; the first whose condition holds wins, except rows marked `also`,
 * which apply and let the next rows be tried too. What the bridge does not publish is in `leftOut`
 * with the reason; docs/matter.md is rendered from both lists and a test checks that every
 * capability of the catalog is in one of them.
 */
import type { Condition } from '../../core/devices/conditions.ts';

/**
 * The kinds of endpoint a device may get; each is one Matter device type (the light's depends on
 * what it can do, a channel's on the device's category). `device` is the bridged device itself:
 * what it holds (battery, identify) goes on its only endpoint, or on its Bridged Node endpoint.
 */
export type EndpointKind =
  | 'light'
  | 'outlet'
  | 'channel'
  | 'cover'
  | 'thermostat'
  | 'fan'
  | 'contact'
  | 'occupancy'
  | 'leak'
  | 'smoke'
  | 'temperature'
  | 'humidity'
  | 'pressure'
  | 'illuminance'
  | 'airQuality'
  | 'button'
  | 'device';

/** What a row fills on its endpoint (the cluster attribute or command it becomes). */
export type Feature =
  | 'onOff'
  | 'level'
  | 'colorTemperature'
  | 'color'
  | 'liftPosition'
  | 'motor'
  | 'thermostatPower'
  | 'thermostatMode'
  | 'acMode'
  | 'setpoint'
  | 'localTemperature'
  | 'fanPower'
  | 'fanSpeed'
  | 'booleanState'
  | 'occupied'
  | 'smokeState'
  | 'measured'
  | 'co2'
  | 'pm25'
  | 'tvoc'
  | 'presses'
  | 'battery'
  | 'identify';

/** Conditions on the device a row may require (src/core/devices/conditions.ts). */
export type { Condition };

export interface MappingRow {
  capability: string;
  /** The name level: a fixed name, `*` for every name (channels), absent for capabilities without names. */
  name?: string;
  when?: Condition;
  /** The row applies and the next rows of the capability are tried too. */
  also?: boolean;
  endpoint: EndpointKind;
  feature: Feature;
  /** Why, for the docs, where the choice is not obvious. */
  note?: string;
}

/** A capability (or one name of it) the bridge does not publish, and why. */
export interface LeftOut {
  capability: string;
  name?: string;
  reason: string;
}

export const mappingTable: readonly MappingRow[] = [
  // ---- on/off: whose it is depends on the device ----
  {
    capability: 'power',
    when: 'climate',
    endpoint: 'thermostat',
    feature: 'thermostatPower',
    note: 'off is system mode Off',
  },
  { capability: 'power', when: 'fan', endpoint: 'fan', feature: 'fanPower', note: 'off is fan mode Off' },
  { capability: 'power', when: 'lightPower', endpoint: 'light', feature: 'onOff' },
  { capability: 'power', endpoint: 'outlet', feature: 'onOff', note: 'a plug, a relay or a wall switch' },
  { capability: 'toggle', name: 'light', when: 'lightChannel', endpoint: 'light', feature: 'onOff' },
  {
    capability: 'toggle',
    name: '*',
    endpoint: 'channel',
    feature: 'onOff',
    note: 'one endpoint per channel: an On/Off Light on a `light`, else an On/Off Plug-in Unit',
  },

  // ---- light: one light endpoint per device ----
  { capability: 'brightness', when: 'light', endpoint: 'light', feature: 'level' },
  { capability: 'color-temperature', when: 'light', endpoint: 'light', feature: 'colorTemperature' },
  { capability: 'color-rgb', when: 'light', endpoint: 'light', feature: 'color' },

  // ---- cover ----
  { capability: 'percentage', when: 'cover', endpoint: 'cover', feature: 'liftPosition' },
  { capability: 'motor-control', endpoint: 'cover', feature: 'motor', note: '`lock` is not sent' },

  // ---- climate: one thermostat endpoint per thermostat or air conditioner ----
  {
    capability: 'thermostat',
    name: 'thermostat-mode',
    endpoint: 'thermostat',
    feature: 'thermostatMode',
    note: 'MANUAL, AUTO and ECO all show as Heat (Matter has no schedule or eco mode); Heat sets MANUAL',
  },
  {
    capability: 'thermostat-target-setpoint',
    name: '*',
    endpoint: 'thermostat',
    feature: 'setpoint',
    note: 'the setpoint of the current mode',
  },
  { capability: 'mode', name: 'airConditionerMode', endpoint: 'thermostat', feature: 'acMode' },
  { capability: 'mode', name: 'fanLevel', when: 'fan', endpoint: 'fan', feature: 'fanSpeed' },
  { capability: 'temperature', when: 'climate', endpoint: 'thermostat', feature: 'localTemperature' },
  { capability: 'temperature', endpoint: 'temperature', feature: 'measured' },
  { capability: 'humidity', endpoint: 'humidity', feature: 'measured' },

  // ---- sensors ----
  { capability: 'contact', endpoint: 'contact', feature: 'booleanState', note: 'Matter says true for closed' },
  { capability: 'detect', endpoint: 'occupancy', feature: 'occupied' },
  { capability: 'motion', endpoint: 'occupancy', feature: 'occupied', note: 'a passive infrared sensor' },
  { capability: 'water-leak', endpoint: 'leak', feature: 'booleanState' },
  { capability: 'smoke', endpoint: 'smoke', feature: 'smokeState' },
  { capability: 'illumination', endpoint: 'illuminance', feature: 'measured' },
  { capability: 'barometric-pressure', endpoint: 'pressure', feature: 'measured' },
  { capability: 'co2', endpoint: 'airQuality', feature: 'co2' },
  { capability: 'pm25', endpoint: 'airQuality', feature: 'pm25' },
  { capability: 'voc-index', endpoint: 'airQuality', feature: 'tvoc' },
  {
    capability: 'battery',
    endpoint: 'device',
    feature: 'battery',
    note: 'a Power Source cluster (battery); -1 (unknown) is null',
  },
  {
    capability: 'identify',
    endpoint: 'device',
    feature: 'identify',
    note: "the Identify command of any of the device's endpoints",
  },

  // ---- presses ----
  {
    capability: 'press',
    endpoint: 'button',
    feature: 'presses',
    note: 'Generic Switch events: single, double, long press',
  },
  { capability: 'multi-press', name: '*', endpoint: 'button', feature: 'presses', note: 'one endpoint per button' },
];

export const leftOut: readonly LeftOut[] = [
  {
    capability: 'thermostat',
    name: 'adaptive-recovery-status',
    reason: 'an optional running-state attribute few controllers show',
  },
  {
    capability: 'mode',
    name: 'thermostatMode',
    reason: 'a preset mode with no Matter attribute (the thermostat-mode name is mapped)',
  },
  { capability: 'mode', name: 'fanMode', reason: 'a preset mode with no Matter attribute' },
  { capability: 'mode', name: 'horizontalAngle', reason: 'swing angles have no Matter attribute' },
  { capability: 'mode', name: 'verticalAngle', reason: 'swing angles have no Matter attribute' },
  {
    capability: 'thermostat-mode-detect',
    reason: 'a comfort reading (humidity and temperature words) with no Matter attribute',
  },
  {
    capability: 'gas',
    reason: "Matter has no natural gas detector; its Smoke CO Alarm's CO is carbon monoxide, another gas",
  },
  { capability: 'tamper-alert', reason: 'no Matter device type reports tampering' },
  {
    capability: 'detect-hold',
    reason: 'a setting of how long a detection holds, not a state a controller shows',
  },
  {
    capability: 'illumination-level',
    reason: 'light levels in words; the lux reading (`illumination`) is mapped',
  },
  { capability: 'rssi', reason: 'radio diagnostics of the Zigbee side; a bridged device carries none' },
  { capability: 'lqi', reason: 'radio diagnostics of the Zigbee side; a bridged device carries none' },
  {
    capability: 'transmit-power',
    reason: 'radio diagnostics of the Zigbee side; a bridged device carries none',
  },
  {
    capability: 'voltage',
    reason: 'electrical measurements (Matter 1.3 Electrical Sensor) are not bridged yet: few controllers show them',
  },
  { capability: 'toggle-voltage', reason: 'electrical measurements are not bridged yet' },
  { capability: 'toggle-electric-current', reason: 'electrical measurements are not bridged yet' },
  { capability: 'toggle-electric-power', reason: 'electrical measurements are not bridged yet' },
  { capability: 'power-consumption', reason: 'energy measurements are not bridged yet' },
  { capability: 'toggle-power-consumption', reason: 'energy measurements are not bridged yet' },
  { capability: 'moisture', reason: 'soil moisture: Matter 1.5 Soil Sensor, which controllers do not show yet' },
  {
    capability: 'rainfall',
    reason: "an amount of rain; Matter's Rain Sensor is only raining or not",
  },
  { capability: 'wind-speed', reason: 'no Matter device type measures wind' },
  { capability: 'wind-direction', reason: 'no Matter device type measures wind' },
  { capability: 'ultraviolet-index', reason: 'no Matter device type measures ultraviolet light' },
  { capability: 'electrical-conductivity', reason: 'no Matter device type measures conductivity' },
  {
    capability: 'startup',
    reason: 'the power-on behaviour is a setting, changed through the gateway (D4)',
  },
  { capability: 'toggle-startup', reason: 'the power-on behaviour is a setting, changed through the gateway (D4)' },
  { capability: 'toggle-identify', reason: 'identify per channel: the device-wide `identify` is mapped' },
  { capability: 'inching', reason: 'configuration only (auto-off settings): no state and no command' },
  { capability: 'toggle-inching', reason: 'configuration only (auto-off settings): no state and no command' },
  { capability: 'motor-reverse', reason: 'a motor setting, changed through the gateway (D4)' },
  { capability: 'motor-clb', reason: 'a calibration reading with no Matter attribute' },
  { capability: 'window-detection', reason: 'a thermostat feature switch with no Matter attribute' },
  { capability: 'child-lock', reason: 'a lock of the device keys with no Matter attribute on these devices' },
  { capability: 'anti-direct-blow', reason: 'an air conditioner feature with no Matter attribute' },
  { capability: 'horizontal-swing', reason: 'an air conditioner feature with no Matter attribute' },
  { capability: 'vertical-swing', reason: 'an air conditioner feature with no Matter attribute' },
  { capability: 'eco', reason: 'an eco switch with no Matter attribute' },
  {
    capability: 'camera-stream',
    reason: 'Matter cameras (1.5) need WebRTC, which no controller offers for bridged cameras',
  },
  { capability: 'configuration', reason: 'reporting intervals of the device: a setting, not a state' },
  { capability: 'system', reason: 'restarting a device has no Matter command on a bridged device' },
  { capability: 'irrigation', reason: 'watering plans and volumes: no Matter device type holds them' },
];

/** The colour temperature range the catalog's 0 (warm) .. 100 (cool) maps onto, in kelvin. */
export const KELVIN_RANGE = { min: 2000, max: 6500 } as const;

/**
 * Air quality (Matter's AirQuality attribute) from the readings, the worse of the two where both
 * are known: upper bounds of Good, Fair, Moderate, Poor and Very poor (above: Extremely poor).
 * PM2.5 in µg/m³ after the US EPA's breakpoints; CO2 in ppm after common indoor guidance.
 */
export const AIR_QUALITY_BOUNDS = {
  pm25: [12, 35, 55, 150, 250],
  co2: [800, 1000, 1500, 2000, 5000],
} as const;

/** Fan levels of the `fanLevel` mode -> Matter fan modes and the percent each sets. */
export const FAN_LEVELS = {
  low: { mode: 'Low', percent: 33 },
  medium: { mode: 'Medium', percent: 66 },
  high: { mode: 'High', percent: 100 },
} as const;

/** Which setpoint (`thermostat-target-setpoint` name) a thermostat mode uses. */
export const SETPOINT_OF_MODE: Readonly<Record<string, string>> = {
  MANUAL: 'manual-mode',
  ECO: 'eco-mode',
  AUTO: 'auto-mode',
};
