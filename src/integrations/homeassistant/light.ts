/**
 * The light of a device, in Home Assistant's JSON schema: on/off (`power`, or the `light` channel
 * of a fan light), brightness on a 0..100 scale (the catalog's own, so no conversion), colour
 * temperature in kelvin over KELVIN_RANGE, and colour as RGB. One JSON command becomes one D4 body.
 */
import type { CapabilityObject } from '../../catalog/index.ts';
import type { DeviceRecord } from '../../core/devices/contract.ts';
import { type Entity, type Message, OFF, ON, type Parts, part, refuse } from './entity.ts';
import { KELVIN_RANGE } from './mapping-table.ts';
import { bodyFor } from './simple.ts';
import { fieldIn, finite, isObject, shown } from './values.ts';

const SPAN = KELVIN_RANGE.max - KELVIN_RANGE.min;

/** The catalog's colour temperature (0 warm .. 100 cool) in kelvin. */
export function toKelvin(ct: number): number {
  return Math.round(KELVIN_RANGE.min + (ct * SPAN) / 100);
}

/** Kelvin as the catalog's 0..100, not clamped: a value outside the range is D4's to refuse. */
export function fromKelvin(k: number): number {
  return Math.round(((k - KELVIN_RANGE.min) * 100) / SPAN);
}

function stateField(cap: CapabilityObject): string {
  return cap.capability === 'toggle' ? 'toggleState' : 'powerState';
}

/** The light entity of a device; `parts.state` is required. */
export function lightEntity(parts: Parts): Entity | undefined {
  const onOff = part(parts, 'state');
  if (!onOff) return undefined;
  const brightness = part(parts, 'brightness');
  const ct = part(parts, 'color_temp');
  const color = part(parts, 'color');
  const colorModes = [...(color ? ['rgb'] : []), ...(ct ? ['color_temp'] : [])];
  const modes = colorModes.length > 0 ? colorModes : [brightness ? 'brightness' : 'onoff'];
  // What the light shows: the colour or the colour temperature set last (the state keeps both).
  let colorMode = ct ? 'color_temp' : (modes[0] as string);
  // The mode Home Assistant last asked for, until a report shows it: a device that reports its
  // whole state (colour and temperature at once) says nothing of which one it now shows.
  let asked: 'rgb' | 'color_temp' | undefined;
  const sources = new Set([onOff, brightness, ct, color].flatMap((c) => (c ? [c.capability] : [])));

  const read = (device: DeviceRecord, cap: CapabilityObject | undefined, field: string) =>
    cap ? fieldIn(device.state, cap.capability, cap.name, field) : undefined;

  return {
    component: 'light',
    key: 'light',
    sources,
    followsDevice: true,
    commands: [''],
    config: (t) => ({
      // The light of a fan light is named; otherwise the light is the device.
      name: onOff.capability === 'toggle' ? 'Light' : null,
      schema: 'json',
      state_topic: t.state(),
      command_topic: t.command(),
      supported_color_modes: modes,
      ...(brightness ? { brightness: true, brightness_scale: 100 } : {}),
      ...(ct ? { color_temp_kelvin: true, min_kelvin: KELVIN_RANGE.min, max_kelvin: KELVIN_RANGE.max } : {}),
    }),
    states(device, changed): Message[] {
      const on = read(device, onOff, stateField(onOff));
      if (on !== 'on' && on !== 'off') return [];
      const rgbChanged = Boolean(changed && color && color.capability in changed);
      const ctChanged = Boolean(changed && ct && ct.capability in changed);
      if ((asked === 'rgb' && rgbChanged) || (asked === 'color_temp' && ctChanged)) {
        colorMode = asked;
        asked = undefined;
      } else if (rgbChanged !== ctChanged) colorMode = rgbChanged ? 'rgb' : 'color_temp';
      // Both at once (a full report) without a command of Home Assistant's: the mode stays.
      const out: Record<string, unknown> = { state: on === 'on' ? ON : OFF };
      const b = finite(read(device, brightness, 'brightness'));
      if (b !== undefined) out.brightness = b;
      out.color_mode = colorMode;
      const temp = finite(read(device, ct, 'colorTemperature'));
      if (temp !== undefined) out.color_temp = toKelvin(temp);
      const [r, g, bl] = ['red', 'green', 'blue'].map((f) => finite(read(device, color, f)));
      if (r !== undefined && g !== undefined && bl !== undefined) out.color = { r, g, b: bl };
      return [{ payload: JSON.stringify(out) }];
    },
    command(_sub, payload) {
      let msg: unknown;
      try {
        msg = JSON.parse(payload);
      } catch {
        return refuse(`payload: ${shown(payload)} is not JSON`);
      }
      if (!isObject(msg)) return refuse(`payload: ${shown(payload)} is not a JSON object`);
      const state: Record<string, unknown> = {};
      if (msg.state !== undefined) {
        if (msg.state !== ON && msg.state !== OFF)
          return refuse(`state: ${JSON.stringify(msg.state)} is not ON or OFF`);
        Object.assign(state, bodyFor(onOff, { [stateField(onOff)]: msg.state === ON ? 'on' : 'off' }));
        // Off is off: brightness or colour sent along would switch some lights back on.
        if (msg.state === OFF) return { ok: true, state };
      }
      if (msg.brightness !== undefined) {
        if (typeof msg.brightness !== 'number')
          return refuse(`brightness: ${JSON.stringify(msg.brightness)} is not a number`);
        state.brightness = { brightness: msg.brightness };
      }
      if (msg.color_temp !== undefined) {
        if (typeof msg.color_temp !== 'number')
          return refuse(`color_temp: ${JSON.stringify(msg.color_temp)} is not a number`);
        state['color-temperature'] = { colorTemperature: fromKelvin(msg.color_temp) };
      }
      if (msg.color !== undefined) {
        const c = msg.color;
        if (!isObject(c) || typeof c.r !== 'number' || typeof c.g !== 'number' || typeof c.b !== 'number')
          return refuse(`color: ${JSON.stringify(c)} is not {r, g, b} (the light takes RGB colours)`);
        state['color-rgb'] = { red: c.r, green: c.g, blue: c.b };
      }
      if (Object.keys(state).length === 0) return refuse(`payload: ${shown(payload)} changes nothing this light has`);
      if (state['color-rgb']) asked = 'rgb';
      else if (state['color-temperature']) asked = 'color_temp';
      return { ok: true, state };
    },
  };
}
