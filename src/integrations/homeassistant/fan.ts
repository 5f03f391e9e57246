/**
 * The fan of a fan (or fan light): on/off is `power`, the speed levels of `mode` `fanLevel` are
 * its preset modes (the level names as the device lists them, low/medium/high by default).
 */
import { type Entity, type Message, OFF, ON, type Parts, part, refuse } from './entity.ts';
import { bodyFor } from './simple.ts';
import { enumValues, fieldIn, shown } from './values.ts';

/** The fan entity of a device (needs its on/off). */
export function fanEntity(parts: Parts): Entity | undefined {
  const power = part(parts, 'state');
  if (!power) return undefined;
  const level = part(parts, 'preset');
  const values = level ? enumValues(level, 'modeValue') : [];
  const presets = values.map(String);
  return {
    component: 'fan',
    key: 'fan',
    sources: new Set([power.capability, ...(level ? [level.capability] : [])]),
    followsDevice: true,
    commands: ['', ...(level ? ['preset'] : [])],
    config: (t) => ({
      name: null,
      state_topic: t.state(),
      command_topic: t.command(),
      payload_on: ON,
      payload_off: OFF,
      ...(level
        ? {
            preset_modes: presets,
            preset_mode_state_topic: t.state('preset'),
            preset_mode_command_topic: t.command('preset'),
          }
        : {}),
    }),
    states(device): Message[] {
      const out: Message[] = [];
      const on = fieldIn(device.state, power.capability, power.name, 'powerState');
      if (on === 'on' || on === 'off') out.push({ payload: on === 'on' ? ON : OFF });
      const v = level ? fieldIn(device.state, level.capability, level.name, 'modeValue') : undefined;
      if (v !== undefined && presets.includes(String(v))) out.push({ sub: 'preset', payload: String(v) });
      return out;
    },
    command(sub, payload) {
      if (sub === 'preset' && level) {
        const i = presets.indexOf(payload);
        return { ok: true, state: bodyFor(level, { modeValue: i >= 0 ? values[i] : payload }) };
      }
      if (payload === ON || payload === OFF)
        return { ok: true, state: bodyFor(power, { powerState: payload === ON ? 'on' : 'off' }) };
      return refuse(`payload: ${shown(payload)} is not ON or OFF`);
    },
  };
}
