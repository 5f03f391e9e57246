/**
 * The cover of a curtain or blind: its position is `percentage` (100 open, 0 closed, Home
 * Assistant's defaults), open/close/stop drive `motor-control`. A cover without a position shows
 * the motor's last command as its state; one without a motor opens and closes by position.
 */
import { own } from '../../lib/object.ts';
import type { Entity, Message, Parts } from './entity.ts';
import { part, refuse } from './entity.ts';
import { bodyFor } from './simple.ts';
import { fieldIn, finite, parseNumber, shown } from './values.ts';

const MOTOR: Readonly<Record<string, string>> = { OPEN: 'open', CLOSE: 'close', STOP: 'stop' };
const MOTOR_STATE: Readonly<Record<string, string>> = { open: 'open', close: 'closed', stop: 'stopped' };

/** The cover entity of a device (needs a position or a motor). */
export function coverEntity(parts: Parts, displayCategory: string): Entity | undefined {
  const position = part(parts, 'position');
  const motor = part(parts, 'motor');
  if (!position && !motor) return undefined;
  const sources = new Set([position, motor].flatMap((c) => (c ? [c.capability] : [])));
  return {
    component: 'cover',
    key: 'cover',
    sources,
    followsDevice: true,
    commands: ['', ...(position ? ['position'] : [])],
    config: (t) => ({
      name: null,
      command_topic: t.command(),
      payload_open: 'OPEN',
      payload_close: 'CLOSE',
      payload_stop: 'STOP',
      ...(position ? { position_topic: t.state('position'), set_position_topic: t.command('position') } : {}),
      ...(position ? {} : { state_topic: t.state() }),
      ...(displayCategory === 'curtain' ? { device_class: 'curtain' } : {}),
    }),
    states(device): Message[] {
      if (position) {
        const p = finite(fieldIn(device.state, position.capability, position.name, 'percentage'));
        return p === undefined ? [] : [{ sub: 'position', payload: String(p) }];
      }
      const m = motor ? fieldIn(device.state, motor.capability, motor.name, 'motorControl') : undefined;
      const s = typeof m === 'string' ? own(MOTOR_STATE, m) : undefined;
      return s ? [{ payload: s }] : [];
    },
    command(sub, payload) {
      if (sub === 'position') {
        const n = parseNumber(payload);
        if (n === undefined || !position) return refuse(`payload: ${shown(payload)} is not a number`);
        return { ok: true, state: bodyFor(position, { percentage: n }) };
      }
      const action = own(MOTOR, payload);
      if (action === undefined) return refuse(`payload: ${shown(payload)} is not OPEN, CLOSE or STOP`);
      if (motor) return { ok: true, state: bodyFor(motor, { motorControl: action }) };
      if (action === 'stop') return refuse('STOP: this cover has no motor control, only a position');
      return {
        ok: true,
        state: bodyFor(position as NonNullable<typeof position>, { percentage: action === 'open' ? 100 : 0 }),
      };
    },
  };
}
