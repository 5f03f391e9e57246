/**
 * Reading a device's state and declarations for the bridge: a capability's body in the state, the
 * schema of one state field as the device narrows it (its own ranges and value lists, the very
 * ones D4 validates against), and number formatting.
 */
import {
  bodyDef,
  type CapabilityObject,
  capabilityDef,
  type EnumValue,
  narrowBody,
  type Schema,
} from '../../catalog/index.ts';

/** A plain JSON object (not an array, not null). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The body of a capability (or of one name of it) in a device state, if any. */
export function bodyIn(
  state: Record<string, unknown>,
  capability: string,
  name?: string,
): Record<string, unknown> | undefined {
  const cap = state[capability];
  if (!isObject(cap)) return undefined;
  if (name === undefined) return cap;
  const named = cap[name];
  return isObject(named) ? named : undefined;
}

/** One field of a capability's body in a device state. */
export function fieldIn(state: Record<string, unknown>, capability: string, name: string | undefined, field: string) {
  return bodyIn(state, capability, name)?.[field];
}

/** The state schema of one field of a declared capability, narrowed by the device's own settings. */
export function fieldSchema(cap: CapabilityObject, field: string): Schema | undefined {
  const def = capabilityDef(cap.capability);
  if (!def) return undefined;
  const body = bodyDef(def, cap.name);
  if (!body) return undefined;
  const narrowed = narrowBody(body, cap.settings) ?? body;
  const state = narrowed.state ?? narrowed.report;
  if (state?.kind !== 'object') return undefined;
  return state.fields[field];
}

/** The values a field may take (an enum field), as the device narrows them. */
export function enumValues(cap: CapabilityObject, field: string): EnumValue[] {
  const s = fieldSchema(cap, field);
  if (s?.kind === 'enum') return [...s.values];
  if (s?.kind === 'union') {
    for (const o of s.options) if (o.kind === 'enum') return [...o.values];
  }
  return [];
}

/** The range of a numeric field, as the device narrows it. */
export function numberRange(cap: CapabilityObject, field: string): { min?: number; max?: number; step?: number } {
  const s = fieldSchema(cap, field);
  if (s?.kind !== 'number') return {};
  return {
    ...(s.min !== undefined ? { min: s.min } : {}),
    ...(s.max !== undefined ? { max: s.max } : {}),
    ...(s.step !== undefined ? { step: s.step } : {}),
    ...(s.int ? { step: s.step ?? 1 } : {}),
  };
}

/** `value` times `scale`, rounded to the decimals of the scale (0.01 -> 2), without float noise. */
export function scaled(value: number, scale = 1): number {
  if (scale === 1) return value;
  const decimals = Math.max(0, Math.ceil(-Math.log10(scale)));
  return Number((value * scale).toFixed(decimals + 2).replace(/\.?0+$/, ''));
}

/** A finite number from a state value, else undefined. */
export function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
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
