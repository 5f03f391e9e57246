/**
 * A device's state as Matter attribute values, per endpoint of its plan: on/off, level (1..254),
 * colour temperature in mireds, hue and saturation (0..254) and x/y (0..65279), lift position in
 * hundredths of a percent closed, temperatures in hundredths of a degree Celsius, humidity in
 * hundredths of a percent, pressure in tenths of a kPa (= hPa), illuminance as 10000 x log10(lux)
 * + 1, battery in half percents. Pure: nothing of matter.js; the attribute names and enum values
 * are those of the Matter specification (a test checks them against matter.js's own).
 */
import type { CapabilityObject } from '../../catalog/index.ts';
import { bodyIn, finite } from '../../core/devices/reading.ts';

export { bodyIn, enumValues, finite, numberRange } from '../../core/devices/reading.ts';

import type { DeviceRecord } from '../../core/devices/contract.ts';
import { rgbToHs, rgbToXy } from '../../lib/color.ts';
import { isObject, own } from '../../lib/object.ts';
import { AIR_QUALITY_BOUNDS, FAN_LEVELS, KELVIN_RANGE, SETPOINT_OF_MODE } from './mapping-table.ts';
import { cools, type DevicePlan, type EndpointPlan } from './plan.ts';

/** Matter enum values the bridge writes (Matter Application Cluster Specification). */
export const MatterEnum = {
  systemMode: { Off: 0, Auto: 1, Cool: 3, Heat: 4, FanOnly: 7, Dry: 8 },
  fanMode: { Off: 0, Low: 1, Medium: 2, High: 3, On: 4, Auto: 5 },
  alarmState: { Normal: 0, Warning: 1, Critical: 2 },
  expressedState: { Normal: 0, SmokeAlarm: 1 },
  airQuality: { Unknown: 0, Good: 1, Fair: 2, Moderate: 3, Poor: 4, VeryPoor: 5, ExtremelyPoor: 6 },
  batChargeLevel: { Ok: 0, Warning: 1, Critical: 2 },
  colorMode: { HueSaturation: 0, Xy: 1, Temperature: 2 },
} as const;

/** Attribute values per behavior (matter.js behavior ids), as `endpoint.set()` takes them. */
export type Patch = Record<string, Record<string, unknown>>;

// ---- reading the state ----

/** One field of a declared capability's body in a device state. */
export function fieldOf(state: Record<string, unknown>, cap: CapabilityObject | undefined, field: string): unknown {
  return cap ? bodyIn(state, cap.capability, cap.name)?.[field] : undefined;
}

// ---- conversions ----

/** The catalog's brightness (0..100 %) as a Matter level (1..254). */
export function toLevel(brightness: number): number {
  return Math.min(254, Math.max(1, Math.round((brightness * 254) / 100)));
}

/** A Matter level (0..254) as brightness (1..100 %: a light that is on is never at 0 %). */
export function fromLevel(level: number): number {
  return Math.min(100, Math.max(1, Math.round((level * 100) / 254)));
}

const SPAN = KELVIN_RANGE.max - KELVIN_RANGE.min;
/** The mireds of the warmest and coolest colour temperature (500 and 154). */
export const MIREDS = {
  min: Math.round(1e6 / KELVIN_RANGE.max),
  max: Math.round(1e6 / KELVIN_RANGE.min),
} as const;

/** The catalog's colour temperature (0 warm .. 100 cool) in mireds. */
export function toMireds(ct: number): number {
  return Math.round(1e6 / (KELVIN_RANGE.min + (ct * SPAN) / 100));
}

/** Mireds as the catalog's colour temperature (0 warm .. 100 cool), clamped to it. */
export function fromMireds(mireds: number): number {
  const kelvin = 1e6 / Math.max(1, mireds);
  return Math.min(100, Math.max(0, Math.round(((kelvin - KELVIN_RANGE.min) * 100) / SPAN)));
}

/** Degrees in the device's unit as hundredths of a degree Celsius. */
export function toCentiCelsius(value: number, unit: 'c' | 'f' = 'c'): number {
  const c = unit === 'f' ? ((value - 32) * 5) / 9 : value;
  return Math.round(c * 100);
}

/** Hundredths of a degree Celsius in the device's unit (to the tenth). */
export function fromCentiCelsius(value: number, unit: 'c' | 'f' = 'c'): number {
  const c = value / 100;
  return Math.round((unit === 'f' ? (c * 9) / 5 + 32 : c) * 10) / 10;
}

/** The temperature unit of a capability's settings (`temperatureUnit`), Celsius by default. */
export function unitOf(cap: CapabilityObject | undefined): 'c' | 'f' {
  const item = cap?.settings?.temperatureUnit;
  return isObject(item) && item.value === 'f' ? 'f' : 'c';
}

/** Lux as Matter's illuminance value (0: too low to measure). */
export function toIlluminance(lux: number): number {
  if (!(lux >= 1)) return 0;
  return Math.min(0xfffe, Math.round(10000 * Math.log10(lux) + 1));
}

/** The open percentage (100 open, 0 closed) as Matter's lift position (hundredths of a percent closed). */
export function toLift(percentage: number): number {
  return Math.round((100 - Math.min(100, Math.max(0, percentage))) * 100);
}

/** Matter's lift position (hundredths of a percent closed) as the open percentage. */
export function fromLift(closed100ths: number): number {
  return Math.min(100, Math.max(0, Math.round(100 - closed100ths / 100)));
}

/** Air quality from the readings (the worse of PM2.5 and CO2; Unknown when neither is known). */
export function airQuality(pm25: number | undefined, co2: number | undefined): number {
  const grade = (v: number | undefined, bounds: readonly number[]) =>
    v === undefined ? 0 : bounds.findIndex((b) => v <= b) + 1 || bounds.length + 1;
  return Math.max(grade(pm25, AIR_QUALITY_BOUNDS.pm25), grade(co2, AIR_QUALITY_BOUNDS.co2));
}

// ---- attribute values per endpoint ----

const first = (ep: EndpointPlan, f: keyof EndpointPlan['features']) => ep.features[f]?.[0];

/** Whether a device is on: `powerState` or `toggleState` of the capability object. */
function onOfValue(state: Record<string, unknown>, cap: CapabilityObject | undefined): boolean | undefined {
  const v = fieldOf(state, cap, cap?.capability === 'toggle' ? 'toggleState' : 'powerState');
  return v === 'on' ? true : v === 'off' ? false : undefined;
}

/** The setpoint capability object of the thermostat's current mode (manual by default). */
export function currentSetpoint(ep: EndpointPlan, state: Record<string, unknown>): CapabilityObject | undefined {
  const setpoints = ep.features.setpoint ?? [];
  const mode = fieldOf(state, first(ep, 'thermostatMode'), 'thermostatMode');
  const wanted = typeof mode === 'string' ? own(SETPOINT_OF_MODE, mode) : undefined;
  return setpoints.find((c) => c.name === wanted) ?? setpoints.find((c) => c.name === 'manual-mode') ?? setpoints[0];
}

/** The thermostat's Matter system mode, from power, the air conditioner mode or the thermostat mode. */
function systemMode(ep: EndpointPlan, state: Record<string, unknown>): number | undefined {
  const power = first(ep, 'thermostatPower');
  if (power && onOfValue(state, power) === false) return MatterEnum.systemMode.Off;
  const ac = fieldOf(state, first(ep, 'acMode'), 'modeValue');
  if (typeof ac === 'string') {
    const m = { cool: 'Cool', heat: 'Heat', fan: 'FanOnly', dry: 'Dry' }[ac] as keyof typeof MatterEnum.systemMode;
    // `auto` has no Matter mode without the thermostat's AutoMode feature: Cool is the nearest
    // where it cools, Heat where it only heats.
    return MatterEnum.systemMode[m ?? (cools(ep) ? 'Cool' : 'Heat')];
  }
  if (first(ep, 'thermostatMode') || first(ep, 'setpoint') || power) return MatterEnum.systemMode.Heat;
  return undefined;
}

function fanValues(ep: EndpointPlan, state: Record<string, unknown>): Record<string, unknown> {
  const on = onOfValue(state, first(ep, 'fanPower'));
  const level = fieldOf(state, first(ep, 'fanSpeed'), 'modeValue');
  const preset =
    typeof level === 'string' ? own<(typeof FAN_LEVELS)[keyof typeof FAN_LEVELS]>(FAN_LEVELS, level) : undefined;
  if (on === false) return { fanMode: MatterEnum.fanMode.Off, percentSetting: 0, percentCurrent: 0 };
  if (preset) {
    return { fanMode: MatterEnum.fanMode[preset.mode], percentSetting: preset.percent, percentCurrent: preset.percent };
  }
  if (on === true) return { fanMode: MatterEnum.fanMode.High, percentSetting: 100, percentCurrent: 100 };
  return {};
}

/**
 * The attribute values of one endpoint from the device's state; `changed` (the state a report
 * changed) says whether the colour or the colour temperature was set last. Values the state
 * does not hold are left out (the endpoint keeps what it had).
 */
export function endpointValues(
  ep: EndpointPlan,
  device: Pick<DeviceRecord, 'state'>,
  changed?: Record<string, unknown>,
): Patch {
  const s = device.state;
  const out: Patch = {};
  const put = (behavior: string, attr: string, v: unknown) => {
    if (v === undefined) return;
    out[behavior] ??= {};
    (out[behavior] as Record<string, unknown>)[attr] = v;
  };
  const on = onOfValue(s, first(ep, 'onOff'));
  put('onOff', 'onOff', on);
  const b = finite(fieldOf(s, first(ep, 'level'), 'brightness'));
  if (b !== undefined) put('levelControl', 'currentLevel', toLevel(b));
  const ctCap = first(ep, 'colorTemperature');
  const ct = finite(fieldOf(s, ctCap, 'colorTemperature'));
  if (ct !== undefined) put('colorControl', 'colorTemperatureMireds', toMireds(ct));
  const rgbCap = first(ep, 'color');
  const [r, g, bl] = ['red', 'green', 'blue'].map((f) => finite(fieldOf(s, rgbCap, f)));
  if (r !== undefined && g !== undefined && bl !== undefined) {
    const hs = rgbToHs({ red: r, green: g, blue: bl });
    const xy = rgbToXy({ red: r, green: g, blue: bl });
    put('colorControl', 'currentHue', Math.min(254, Math.round((hs.hue * 254) / 360)));
    put('colorControl', 'currentSaturation', Math.min(254, Math.round((hs.saturation * 254) / 100)));
    put('colorControl', 'currentX', Math.min(65279, Math.round(xy.x * 65536)));
    put('colorControl', 'currentY', Math.min(65279, Math.round(xy.y * 65536)));
  }
  if (ctCap && rgbCap && changed) {
    // Which the light shows: the one set last (a full report with both says nothing of it).
    const rgbChanged = rgbCap.capability in changed;
    const ctChanged = ctCap.capability in changed;
    if (rgbChanged !== ctChanged) {
      const mode = rgbChanged ? MatterEnum.colorMode.HueSaturation : MatterEnum.colorMode.Temperature;
      put('colorControl', 'colorMode', mode);
      put('colorControl', 'enhancedColorMode', mode);
    }
  }
  const pct = finite(fieldOf(s, first(ep, 'liftPosition'), 'percentage'));
  if (pct !== undefined) {
    put('windowCovering', 'currentPositionLiftPercent100ths', toLift(pct));
    put('windowCovering', 'targetPositionLiftPercent100ths', toLift(pct));
  }
  if (ep.kind === 'thermostat') {
    const temp = first(ep, 'localTemperature');
    const t = finite(fieldOf(s, temp, 'temperature'));
    if (t !== undefined) put('thermostat', 'localTemperature', toCentiCelsius(t));
    const spCap = currentSetpoint(ep, s);
    const sp = finite(fieldOf(s, spCap, 'targetSetpoint'));
    if (sp !== undefined) {
      const c = toCentiCelsius(sp, unitOf(spCap));
      put('thermostat', 'occupiedHeatingSetpoint', c);
      if (cools(ep)) put('thermostat', 'occupiedCoolingSetpoint', c);
    }
    put('thermostat', 'systemMode', systemMode(ep, s));
  }
  if (ep.kind === 'fan') for (const [k, v] of Object.entries(fanValues(ep, s))) put('fanControl', k, v);
  const contact = fieldOf(s, first(ep, 'booleanState'), ep.kind === 'contact' ? 'contact' : 'waterLeak');
  // Matter's contact sensor says true when the contact is made (closed); the catalog's `contact` is true when open.
  if (typeof contact === 'boolean') put('booleanState', 'stateValue', ep.kind === 'contact' ? !contact : contact);
  const occupied = (ep.features.occupied ?? [])
    .map((c) => fieldOf(s, c, c.capability === 'motion' ? 'motion' : 'detected'))
    .filter((v): v is boolean => typeof v === 'boolean');
  if (occupied.length > 0) put('occupancySensing', 'occupancy', { occupied: occupied.some(Boolean) });
  const smoke = fieldOf(s, first(ep, 'smokeState'), 'smoke');
  if (typeof smoke === 'boolean') {
    put('smokeCoAlarm', 'smokeState', smoke ? MatterEnum.alarmState.Critical : MatterEnum.alarmState.Normal);
    put(
      'smokeCoAlarm',
      'expressedState',
      smoke ? MatterEnum.expressedState.SmokeAlarm : MatterEnum.expressedState.Normal,
    );
  }
  const measured = first(ep, 'measured');
  if (measured) {
    const v = finite(fieldOf(s, measured, MEASURED_FIELD[measured.capability] ?? measured.capability));
    const behavior = MEASURED_BEHAVIOR[ep.kind];
    if (v !== undefined && behavior) put(behavior, 'measuredValue', measuredValue(ep.kind, v));
  }
  if (ep.kind === 'airQuality') {
    const co2 = finite(fieldOf(s, first(ep, 'co2'), 'co2'));
    const pm25 = finite(fieldOf(s, first(ep, 'pm25'), 'pm25'));
    const tvoc = finite(fieldOf(s, first(ep, 'tvoc'), 'vocIndex'));
    if (co2 !== undefined) put('carbonDioxideConcentrationMeasurement', 'measuredValue', co2);
    if (pm25 !== undefined) put('pm25ConcentrationMeasurement', 'measuredValue', pm25);
    if (tvoc !== undefined) put('totalVolatileOrganicCompoundsConcentrationMeasurement', 'measuredValue', tvoc);
    if (co2 !== undefined || pm25 !== undefined) put('airQuality', 'airQuality', airQuality(pm25, co2));
  }
  return out;
}

/** The state field of each measured capability. */
const MEASURED_FIELD: Readonly<Record<string, string>> = {
  temperature: 'temperature',
  humidity: 'humidity',
  illumination: 'illumination',
  'barometric-pressure': 'barometricPressure',
};

/** The measurement behavior of each sensor endpoint. */
const MEASURED_BEHAVIOR: Readonly<Partial<Record<EndpointPlan['kind'], string>>> = {
  temperature: 'temperatureMeasurement',
  humidity: 'relativeHumidityMeasurement',
  pressure: 'pressureMeasurement',
  illuminance: 'illuminanceMeasurement',
};

function measuredValue(kind: EndpointPlan['kind'], v: number): number {
  switch (kind) {
    case 'temperature':
      return toCentiCelsius(v);
    case 'humidity':
      return Math.min(10000, Math.max(0, Math.round(v * 100)));
    case 'pressure':
      // hPa = tenths of a kPa, Matter's unit; int16.
      return Math.min(32767, Math.max(-32767, Math.round(v)));
    default:
      return toIlluminance(v);
  }
}

/** The Power Source values of a device with a battery (null: unknown, -1 in the catalog). */
export function batteryValues(plan: DevicePlan, device: Pick<DeviceRecord, 'state'>): Patch {
  const level = finite(fieldOf(device.state, plan.battery, 'battery'));
  if (level === undefined) return {};
  if (level < 0) return { powerSource: { batPercentRemaining: null } };
  const percent = Math.min(100, level);
  const charge =
    percent <= 10
      ? MatterEnum.batChargeLevel.Critical
      : percent <= 20
        ? MatterEnum.batChargeLevel.Warning
        : MatterEnum.batChargeLevel.Ok;
  return { powerSource: { batPercentRemaining: Math.round(percent * 2), batChargeLevel: charge } };
}

/**
 * A text cut to Matter's bound for a string attribute (32 bytes of UTF-8 for names and labels), on a
 * character boundary.
 */
export function clip(text: string, maxBytes = 32): string {
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > maxBytes) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/** Whether two attribute values are the same: primitives, lists and structs (read through matter.js's state views) compared by content. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * The values of a patch that differ from what an endpoint holds (`current` reads one behavior's
 * state). A device re-reports values that have not changed (sensors every few seconds, the
 * simulated network every 15 s), and each matter.js `set` is a transaction that allocates and
 * compares whether or not anything changed: with hundreds of bridged devices, that garbage is what
 * the heap grows by between collections (docs/benchmarks.md, "The Matter bridge's memory").
 */
export function differing(patch: Patch, current: (behavior: string) => Record<string, unknown> | undefined): Patch {
  const out: Patch = {};
  for (const [behavior, values] of Object.entries(patch)) {
    const now = current(behavior);
    for (const [attr, v] of Object.entries(values)) {
      if (now !== undefined && sameValue(now[attr], v)) continue;
      out[behavior] ??= {};
      (out[behavior] as Record<string, unknown>)[attr] = v;
    }
  }
  return out;
}
