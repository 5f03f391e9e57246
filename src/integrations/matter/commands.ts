/**
 * What a Matter controller asks of an endpoint, as the D4 body the gateway's device service takes
 * (the same validation and driver confirmation as any client). Matter's units come back to the
 * catalog's: level 1..254 to brightness %, mireds to the 0..100 colour temperature, hue and
 * saturation or x/y to RGB, lift hundredths closed to the open percentage, hundredths of a degree
 * to the device's unit. Pure: a refused intent is a value with the reason, never an exception.
 */
import type { CapabilityObject } from '../../catalog/index.ts';
import type { DeviceRecord } from '../../core/devices/contract.ts';
import { hsToRgb, rgbToHs, xyToRgb } from '../../lib/color.ts';
import { FAN_LEVELS } from './mapping-table.ts';
import type { DevicePlan, EndpointPlan } from './plan.ts';
import {
  currentSetpoint,
  enumValues,
  fieldOf,
  finite,
  fromCentiCelsius,
  fromLevel,
  fromLift,
  fromMireds,
  MatterEnum,
  unitOf,
} from './values.ts';

/** A request of a Matter controller to one endpoint. */
export type Intent =
  | { kind: 'onOff'; to: 'on' | 'off' | 'toggle' }
  /** MoveToLevel (with on/off: level at the minimum switches off, above it on). */
  | { kind: 'level'; level: number; withOnOff: boolean }
  /** Step (and Move, which goes all the way): a change of level in Matter units. */
  | { kind: 'levelStep'; delta: number; withOnOff: boolean }
  | { kind: 'mireds'; mireds: number }
  /** Hue and saturation in Matter units (0..254); an absent one keeps the light's. */
  | { kind: 'hueSaturation'; hue?: number; saturation?: number }
  | { kind: 'xy'; x: number; y: number }
  | { kind: 'cover'; action: 'open' | 'close' | 'stop' }
  /** GoToLiftPercentage: hundredths of a percent closed. */
  | { kind: 'coverTo'; closed100ths: number }
  /** A heating or cooling setpoint in hundredths of a degree Celsius. */
  | { kind: 'setpoint'; centiCelsius: number }
  | { kind: 'systemMode'; mode: number }
  | { kind: 'fanMode'; mode: number }
  | { kind: 'fanPercent'; percent: number }
  | { kind: 'identify'; seconds: number };

export type Translation = { ok: true; body: Record<string, unknown> } | { ok: false; message: string };

const refuse = (message: string): Translation => ({ ok: false, message });
const state = (body: Record<string, unknown>): Translation => ({ ok: true, body: { state: body } });

/** The D4 state body that sets one capability object (named capabilities nest under the name). */
export function capBody(cap: CapabilityObject, body: Record<string, unknown>): Record<string, unknown> {
  return cap.name === undefined ? { [cap.capability]: body } : { [cap.capability]: { [cap.name]: body } };
}

function onOffBody(cap: CapabilityObject, to: 'on' | 'off' | 'toggle'): Record<string, unknown> {
  return capBody(cap, cap.capability === 'toggle' ? { toggleState: to } : { powerState: to });
}

/** The light's current colour in Matter hue/saturation units (0..254), from its RGB state. */
function currentHs(device: DeviceRecord, cap: CapabilityObject): { hue: number; saturation: number } {
  const [red, green, blue] = ['red', 'green', 'blue'].map((f) => finite(fieldOf(device.state, cap, f)) ?? 255) as [
    number,
    number,
    number,
  ];
  const hs = rgbToHs({ red, green, blue });
  return { hue: Math.round((hs.hue * 254) / 360), saturation: Math.round((hs.saturation * 254) / 100) };
}

/** The D4 body for an intent on one endpoint of a device, or why it cannot be sent. */
export function translate(intent: Intent, ep: EndpointPlan, plan: DevicePlan, device: DeviceRecord): Translation {
  const f = ep.features;
  switch (intent.kind) {
    case 'onOff': {
      const cap = f.onOff?.[0];
      return cap ? state(onOffBody(cap, intent.to)) : refuse('the endpoint has no on/off');
    }
    case 'level':
    case 'levelStep': {
      const cap = f.level?.[0];
      if (!cap) return refuse('the endpoint has no level');
      const onOff = f.onOff?.[0];
      if (intent.kind === 'levelStep') {
        const delta = Math.round((intent.delta * 100) / 254);
        if (delta === 0) return state({});
        const body = capBody(cap, { brightnessDelta: Math.max(-100, Math.min(100, delta)) });
        return state(intent.withOnOff && onOff && delta > 0 ? { ...onOffBody(onOff, 'on'), ...body } : body);
      }
      if (intent.withOnOff && onOff && intent.level <= 1) return state(onOffBody(onOff, 'off'));
      const body = capBody(cap, { brightness: fromLevel(intent.level) });
      return state(intent.withOnOff && onOff ? { ...onOffBody(onOff, 'on'), ...body } : body);
    }
    case 'mireds': {
      const cap = f.colorTemperature?.[0];
      return cap
        ? state(capBody(cap, { colorTemperature: fromMireds(intent.mireds) }))
        : refuse('the light has no colour temperature');
    }
    case 'hueSaturation':
    case 'xy': {
      const cap = f.color?.[0];
      if (!cap) return refuse('the light has no colour');
      if (intent.kind === 'xy') {
        const rgb = xyToRgb(intent.x / 65536, intent.y / 65536);
        return state(capBody(cap, { red: rgb.red, green: rgb.green, blue: rgb.blue }));
      }
      const now = currentHs(device, cap);
      const hue = ((intent.hue ?? now.hue) * 360) / 254;
      const saturation = ((intent.saturation ?? now.saturation) * 100) / 254;
      const rgb = hsToRgb(hue, saturation);
      return state(capBody(cap, { red: rgb.red, green: rgb.green, blue: rgb.blue }));
    }
    case 'cover': {
      const motor = f.motor?.[0];
      if (motor) return state(capBody(motor, { motorControl: intent.action }));
      const position = f.liftPosition?.[0];
      if (!position || intent.action === 'stop') return refuse('the cover cannot stop');
      return state(capBody(position, { percentage: intent.action === 'open' ? 100 : 0 }));
    }
    case 'coverTo': {
      const position = f.liftPosition?.[0];
      if (position) return state(capBody(position, { percentage: fromLift(intent.closed100ths) }));
      const motor = f.motor?.[0];
      // A cover without a position still opens and closes all the way.
      if (motor && (intent.closed100ths === 0 || intent.closed100ths === 10000))
        return state(capBody(motor, { motorControl: intent.closed100ths === 0 ? 'open' : 'close' }));
      return refuse('the cover has no position');
    }
    case 'setpoint': {
      const cap = currentSetpoint(ep, device.state);
      if (!cap) return refuse('the thermostat has no setpoint');
      return state(capBody(cap, { targetSetpoint: fromCentiCelsius(intent.centiCelsius, unitOf(cap)) }));
    }
    case 'systemMode':
      return systemModeBody(intent.mode, ep, device);
    case 'fanMode':
    case 'fanPercent':
      return fanBody(intent, ep);
    case 'identify': {
      if (!plan.identify) return refuse('the device does not identify itself');
      return { ok: true, body: { state: { identify: { countdown: Math.max(0, Math.min(intent.seconds, 600)) } } } };
    }
  }
}

function systemModeBody(mode: number, ep: EndpointPlan, device: DeviceRecord): Translation {
  const f = ep.features;
  const power = f.thermostatPower?.[0];
  const S = MatterEnum.systemMode;
  if (mode === S.Off) return power ? state(onOffBody(power, 'off')) : refuse('the thermostat cannot be switched off');
  const on = power ? onOffBody(power, 'on') : {};
  const ac = f.acMode?.[0];
  if (ac) {
    const value = { [S.Cool]: 'cool', [S.Heat]: 'heat', [S.FanOnly]: 'fan', [S.Dry]: 'dry', [S.Auto]: 'auto' }[mode];
    if (!value || !enumValues(ac, 'modeValue').includes(value))
      return refuse(`system mode ${mode} is not a mode of this air conditioner`);
    return state({ ...on, ...capBody(ac, { modeValue: value }) });
  }
  if (mode !== S.Heat) return refuse(`system mode ${mode} is not a mode of this thermostat`);
  const tm = f.thermostatMode?.[0];
  // Heat is the thermostat working by hand unless it already heats (AUTO and ECO heat too).
  const current = fieldOf(device.state, tm, 'thermostatMode');
  if (tm && current !== 'MANUAL' && !(power && fieldOf(device.state, power, 'powerState') === 'off'))
    return state({ ...on, ...capBody(tm, { thermostatMode: 'MANUAL' }) });
  return state(on);
}

function fanBody(intent: Extract<Intent, { kind: 'fanMode' | 'fanPercent' }>, ep: EndpointPlan): Translation {
  const power = ep.features.fanPower?.[0];
  const speed = ep.features.fanSpeed?.[0];
  const F = MatterEnum.fanMode;
  let level: keyof typeof FAN_LEVELS | 'off' | 'on';
  if (intent.kind === 'fanMode') {
    const byMode: Record<number, typeof level> = {
      [F.Off]: 'off',
      [F.Low]: 'low',
      [F.Medium]: 'medium',
      [F.High]: 'high',
      [F.On]: 'on',
      [F.Auto]: 'on',
    };
    const l = byMode[intent.mode];
    if (!l) return refuse(`fan mode ${intent.mode} is not a mode of this fan`);
    level = l;
  } else {
    const p = intent.percent;
    level = p <= 0 ? 'off' : p <= FAN_LEVELS.low.percent ? 'low' : p <= FAN_LEVELS.medium.percent ? 'medium' : 'high';
  }
  if (level === 'off') return power ? state(onOffBody(power, 'off')) : refuse('the fan cannot be switched off');
  const on = power ? onOffBody(power, 'on') : {};
  if (level === 'on' || !speed) return state(on);
  if (!enumValues(speed, 'modeValue').includes(level)) return refuse(`the fan has no ${level} level`);
  return state({ ...on, ...capBody(speed, { modeValue: level }) });
}
