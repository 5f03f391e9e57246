/**
 * Reading a device's state and declarations for the bridge (the readings shared with the Matter
 * bridge are in src/core/devices/reading.ts), and the numbers and payloads of Home Assistant's MQTT.
 */
import { bodyIn } from '../../core/devices/reading.ts';

export { bodyIn, enumValues, fieldSchema, finite, numberRange } from '../../core/devices/reading.ts';
export { isObject } from '../../lib/object.ts';

/** One field of a capability's body in a device state. */
export function fieldIn(state: Record<string, unknown>, capability: string, name: string | undefined, field: string) {
  return bodyIn(state, capability, name)?.[field];
}

/** `value` times `scale`, rounded to the decimals of the scale (0.01 -> 2), without float noise. */
export function scaled(value: number, scale = 1): number {
  if (scale === 1) return value;
  const decimals = Math.max(0, Math.ceil(-Math.log10(scale)));
  return Number((value * scale).toFixed(decimals + 2).replace(/\.?0+$/, ''));
}

/**
 * A number from a command payload as Home Assistant sends it (`21.5`, `"42"`), else undefined.
 * Only plain decimal notation: `0x10`, `1e3`, `Infinity` and empty text are not numbers here.
 */
export function parseNumber(text: string): number | undefined {
  const t = text.trim();
  if (!/^-?\d+(\.\d+)?$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

/** A short, printable form of a payload for messages and logs (at most 200 characters). */
export function shown(payload: string): string {
  const s = JSON.stringify(payload.length > 200 ? `${payload.slice(0, 200)}...` : payload);
  return s;
}
