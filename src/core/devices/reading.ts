/**
 * Reading a device's state and declarations, for the integrations that show it to another
 * ecosystem (Home Assistant, Matter): a capability's body in the state, and the schema of one
 * state field as the device narrows it (its own ranges and value lists, the very ones D4
 * validates against).
 */
import {
  bodyDef,
  type CapabilityObject,
  capabilityDef,
  type EnumValue,
  narrowBody,
  type Schema,
} from '../../catalog/index.ts';
import { isObject } from '../../lib/object.ts';

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

/** The state schema of one field of a declared capability, narrowed by the device's own settings. */
export function fieldSchema(cap: CapabilityObject, field: string): Schema | undefined {
  const def = capabilityDef(cap.capability);
  const body = def && bodyDef(def, cap.name);
  if (!body) return undefined;
  const narrowed = narrowBody(body, cap.settings) ?? body;
  const state = narrowed.state ?? narrowed.report;
  return state?.kind === 'object' ? state.fields[field] : undefined;
}

/** The values a field may take (an enum field), as the device narrows them. */
export function enumValues(cap: CapabilityObject, field: string): EnumValue[] {
  const s = fieldSchema(cap, field);
  if (s?.kind === 'enum') return [...s.values];
  if (s?.kind === 'union') for (const o of s.options) if (o.kind === 'enum') return [...o.values];
  return [];
}

/** The range of a numeric field, as the device narrows it (an integer field steps by 1 at least). */
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

/** A finite number from a state value, else undefined. */
export function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * A device's state with a change laid over it: query results (D6) are not stored, so what an
 * event carries is shown over the stored state, capability by capability.
 */
export function stateWith(stored: Record<string, unknown>, changed: Record<string, unknown>): Record<string, unknown> {
  const state = { ...stored };
  for (const [cap, v] of Object.entries(changed))
    state[cap] = isObject(v) && isObject(state[cap]) ? { ...state[cap], ...v } : v;
  return state;
}
