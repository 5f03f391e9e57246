/**
 * The climate entity of a thermostat or air conditioner. Its HVAC mode comes from the air
 * conditioner mode or the thermostat mode (MANUAL heat, AUTO auto; ECO is the `eco` preset of
 * heat), `off` from `power`. Its target temperature is the setpoint of the mode the thermostat is
 * in (manual-mode, eco-mode, auto-mode), in the unit the setpoint declares; the current
 * temperature and humidity, the recovery status (as the action) and the fan levels join it.
 */

import type { CapabilityObject } from '../../catalog/index.ts';
import type { DeviceRecord } from '../../core/devices/contract.ts';
import { own } from '../../lib/object.ts';
import { type Entity, type Message, type Parts, part, refuse } from './entity.ts';
import { AC_MODES, SETPOINT_OF_MODE, THERMOSTAT_MODES } from './mapping-table.ts';
import { bodyFor } from './simple.ts';
import { enumValues, fieldIn, finite, numberRange, parseNumber, shown } from './values.ts';

const SETPOINT_ORDER = ['manual-mode', 'eco-mode', 'auto-mode'];
const ACTIONS: Readonly<Record<string, string>> = { HEATING: 'heating', INACTIVE: 'idle' };

function keyOf(map: Readonly<Record<string, string>>, value: string): string | undefined {
  return Object.keys(map).find((k) => map[k] === value);
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}

/** The climate entity of a device. */
export function climateEntity(parts: Parts, device: DeviceRecord): Entity {
  const power = part(parts, 'power');
  const hvac = part(parts, 'hvac');
  const ac = part(parts, 'ac');
  const targets = [...(parts.get('target') ?? [])].sort(
    (a, b) => SETPOINT_ORDER.indexOf(a.name ?? '') - SETPOINT_ORDER.indexOf(b.name ?? ''),
  );
  const current = part(parts, 'current_temperature');
  const humidity = part(parts, 'current_humidity');
  const recovery = part(parts, 'action');
  const fanLevel = part(parts, 'fan_mode');

  const thermostatModes = hvac ? enumValues(hvac, 'thermostatMode').map(String) : [];
  const acValues = ac ? enumValues(ac, 'modeValue').map(String) : [];
  const eco = thermostatModes.includes('ECO');
  const fallback = device.display_category === 'airConditioner' ? 'auto' : 'heat';
  const onModes = ac
    ? acValues.flatMap((v) => (own(AC_MODES, v) ? [own(AC_MODES, v) as string] : []))
    : hvac
      ? [
          ...thermostatModes.flatMap((v) => (own(THERMOSTAT_MODES, v) ? [own(THERMOSTAT_MODES, v) as string] : [])),
          ...(eco ? ['heat'] : []),
        ]
      : [fallback];
  const modes = unique([...(power ? ['off'] : []), ...onModes]);
  const fanValues = fanLevel ? enumValues(fanLevel, 'modeValue') : [];
  const fanModes = fanValues.map(String);
  const first = targets[0];
  const unit = first?.settings?.temperatureUnit?.value === 'f' ? 'F' : 'C';
  const range = first ? numberRange(first, 'targetSetpoint') : {};
  const precision = range.step !== undefined && [0.1, 0.5, 1].includes(range.step) ? range.step : undefined;
  const canCommandMode = Boolean(power || hvac || ac);

  const read = (d: DeviceRecord, cap: CapabilityObject | undefined, field: string) =>
    cap ? fieldIn(d.state, cap.capability, cap.name, field) : undefined;
  const isOff = (d: DeviceRecord) => read(d, power, 'powerState') === 'off';
  /** The setpoint of the mode the thermostat is in, else the first it has. */
  const activeSetpoint = (d: DeviceRecord): CapabilityObject | undefined => {
    const mode = read(d, hvac, 'thermostatMode');
    const name = typeof mode === 'string' ? own(SETPOINT_OF_MODE, mode) : undefined;
    return targets.find((t) => t.name === name) ?? first;
  };
  /** The HVAC mode the device is in: off, else its air conditioner or thermostat mode, else the fallback. */
  const hvacMode = (d: DeviceRecord): string | undefined => {
    if (isOff(d)) return 'off';
    if (ac) {
      const v = read(d, ac, 'modeValue');
      return typeof v === 'string' ? own(AC_MODES, v) : undefined;
    }
    if (hvac) {
      const v = read(d, hvac, 'thermostatMode');
      if (v === 'ECO') return 'heat';
      return typeof v === 'string' ? own(THERMOSTAT_MODES, v) : undefined;
    }
    return fallback;
  };
  const powerOn = (d: DeviceRecord) => (power && isOff(d) ? bodyFor(power, { powerState: 'on' }) : {});

  const sources = new Set(
    [power, hvac, ac, current, humidity, recovery, fanLevel, ...targets].flatMap((c) => (c ? [c.capability] : [])),
  );
  return {
    component: 'climate',
    key: 'climate',
    sources,
    followsDevice: true,
    commands: [
      ...(canCommandMode ? ['mode'] : []),
      ...(first ? ['target'] : []),
      ...(eco ? ['preset'] : []),
      ...(fanLevel ? ['fan_mode'] : []),
    ],
    config: (t) => ({
      name: null,
      modes,
      mode_state_topic: t.state('mode'),
      ...(canCommandMode ? { mode_command_topic: t.command('mode') } : {}),
      temperature_unit: unit,
      ...(first
        ? {
            temperature_state_topic: t.state('target'),
            temperature_command_topic: t.command('target'),
            ...(range.min !== undefined ? { min_temp: range.min } : {}),
            ...(range.max !== undefined ? { max_temp: range.max } : {}),
            ...(range.step !== undefined ? { temp_step: range.step } : {}),
            ...(precision !== undefined ? { precision } : {}),
          }
        : {}),
      ...(current ? { current_temperature_topic: t.state('current_temperature') } : {}),
      ...(humidity ? { current_humidity_topic: t.state('current_humidity') } : {}),
      ...(recovery ? { action_topic: t.state('action') } : {}),
      ...(eco
        ? {
            preset_modes: ['eco'],
            preset_mode_state_topic: t.state('preset'),
            preset_mode_command_topic: t.command('preset'),
          }
        : {}),
      ...(fanLevel
        ? {
            fan_modes: fanModes,
            fan_mode_state_topic: t.state('fan_mode'),
            fan_mode_command_topic: t.command('fan_mode'),
          }
        : {}),
    }),
    states(d): Message[] {
      const out: Message[] = [];
      const thermostatMode = read(d, hvac, 'thermostatMode');
      const mode = hvacMode(d);
      if (mode) out.push({ sub: 'mode', payload: mode });
      if (eco && typeof thermostatMode === 'string')
        out.push({ sub: 'preset', payload: thermostatMode === 'ECO' ? 'eco' : 'none' });
      const sp = activeSetpoint(d);
      const target = finite(read(d, sp, 'targetSetpoint'));
      if (target !== undefined) out.push({ sub: 'target', payload: String(target) });
      const celsius = finite(read(d, current, 'temperature'));
      if (celsius !== undefined) {
        // Readings are Celsius (spec 2.6); the entity speaks the setpoint's unit.
        const t = unit === 'F' ? Math.round(((celsius * 9) / 5) * 10 + 320) / 10 : celsius;
        out.push({ sub: 'current_temperature', payload: String(t) });
      }
      const h = finite(read(d, humidity, 'humidity'));
      if (h !== undefined) out.push({ sub: 'current_humidity', payload: String(h) });
      if (recovery) {
        const status = read(d, recovery, 'adaptiveRecoveryStatus');
        const action = isOff(d) ? 'off' : typeof status === 'string' ? own(ACTIONS, status) : undefined;
        if (action) out.push({ sub: 'action', payload: action });
      }
      const fan = read(d, fanLevel, 'modeValue');
      if (fan !== undefined && fanModes.includes(String(fan))) out.push({ sub: 'fan_mode', payload: String(fan) });
      return out;
    },
    command(sub, payload, d) {
      switch (sub) {
        case 'mode': {
          if (payload === 'off') {
            if (!power) return refuse('mode: "off": this device cannot be switched off');
            return { ok: true, state: bodyFor(power, { powerState: 'off' }) };
          }
          if (!modes.includes(payload)) return refuse(`mode: ${shown(payload)} is not one of ${modes.join(', ')}`);
          if (ac) {
            const v = keyOf(AC_MODES, payload) as string;
            return { ok: true, state: { ...powerOn(d), ...bodyFor(ac, { modeValue: v }) } };
          }
          if (hvac) {
            const v =
              payload === 'heat' && !thermostatModes.includes('MANUAL')
                ? 'ECO'
                : (keyOf(THERMOSTAT_MODES, payload) as string);
            return { ok: true, state: { ...powerOn(d), ...bodyFor(hvac, { thermostatMode: v }) } };
          }
          if (power) return { ok: true, state: bodyFor(power, { powerState: 'on' }) };
          return refuse(`mode: ${shown(payload)}: this device has no mode to set`);
        }
        case 'target': {
          const n = parseNumber(payload);
          const sp = activeSetpoint(d);
          if (n === undefined || !sp) return refuse(`payload: ${shown(payload)} is not a number`);
          return { ok: true, state: bodyFor(sp, { targetSetpoint: n }) };
        }
        case 'preset': {
          if (!hvac) return refuse('preset: this device has no presets');
          if (payload === 'eco') return { ok: true, state: bodyFor(hvac, { thermostatMode: 'ECO' }) };
          if (payload === 'none') {
            const back = thermostatModes.includes('MANUAL') ? 'MANUAL' : 'AUTO';
            return { ok: true, state: bodyFor(hvac, { thermostatMode: back }) };
          }
          return refuse(`preset: ${shown(payload)} is not eco or none`);
        }
        case 'fan_mode': {
          if (!fanLevel) return refuse('fan_mode: this device has no fan levels');
          const i = fanModes.indexOf(payload);
          return { ok: true, state: bodyFor(fanLevel, { modeValue: i >= 0 ? fanValues[i] : payload }) };
        }
        default:
          return refuse(`${sub}: not a command of this climate entity`);
      }
    },
  };
}
