/**
 * Values of devices as triggers, conditions and waits read them: where a ValueRef points in a
 * device's state (checked against the device's own capabilities and the catalog's compiled
 * report schema, narrowed by the device's settings), and how a value compares.
 */
import { isDeepStrictEqual } from 'node:util';
import { type Check, compileStrict } from '../catalog/compile-strict.ts';
import { indexDevice, nameWord } from '../catalog/device.ts';
import type { CapabilityObject } from '../catalog/index.ts';
import { reportSchema } from '../catalog/index.ts';
import type { Schema } from '../catalog/schema.ts';
import { isObject } from '../lib/object.ts';
import type { Comparison, ValueRef } from './model.ts';

/** A ValueRef checked against a device: the field it reads and the field's schema. */
export interface ResolvedRef {
  capability: string;
  name?: string;
  field: string;
  schema: Schema;
}

/** Strict checkers by schema, compiled once each (the catalog's schemas are frozen data). */
const checkers = new WeakMap<Schema, Check>();

/** Checks `v` against a field's schema: the messages, `path: rule`. */
export function checkValue(schema: Schema, v: unknown, path: string, errors: string[]): void {
  let check = checkers.get(schema);
  if (!check) {
    check = compileStrict(schema);
    checkers.set(schema, check);
  }
  check(v, path, errors);
}

/**
 * Resolves `ref` on a device with these capabilities, or adds the problems (`path.capability:
 * the device has no capability x`) to `errors` and returns undefined.
 */
export function resolveRef(
  caps: readonly CapabilityObject[],
  ref: Pick<ValueRef, 'capability' | 'name' | 'field'>,
  path: string,
  errors: string[],
): ResolvedRef | undefined {
  const dc = indexDevice(caps).get(ref.capability);
  if (!dc) return void errors.push(`${path}.capability: the device has no capability ${ref.capability}`);
  let entry = dc.single;
  if (dc.compiled.def.naming.kind !== 'none') {
    const word = nameWord(dc.compiled);
    if (ref.name === undefined)
      return void errors.push(
        `${path}.name: required: ${ref.capability} has ${word}s (${[...dc.names.keys()].join(', ')})`,
      );
    entry = dc.names.get(ref.name);
    if (!entry) return void errors.push(`${path}.name: the device has no ${word} ${ref.name} of ${ref.capability}`);
  } else if (ref.name !== undefined) {
    return void errors.push(`${path}.name: ${ref.capability} has no channels or names`);
  }
  const state = entry ? reportSchema(entry.body.def) : undefined;
  if (state?.kind !== 'object')
    return void errors.push(`${path}.capability: ${ref.capability} reports no state to read`);
  const fields = Object.keys(state.fields);
  const field = ref.field ?? (fields.length === 1 ? fields[0] : undefined);
  if (field === undefined) return void errors.push(`${path}.field: required: one of ${fields.join(', ')}`);
  const schema = Object.hasOwn(state.fields, field) ? state.fields[field] : undefined;
  if (!schema) return void errors.push(`${path}.field: ${ref.capability} has no field ${field} (${fields.join(', ')})`);
  return {
    capability: ref.capability,
    ...(ref.name !== undefined ? { name: ref.name } : {}),
    field,
    schema: stateOnly(schema),
  };
}

/**
 * The values a device can be in: `toggle` of power and of a channel is a command (flip it), never a
 * state a device reports, so a trigger or condition on it could never hold and is refused.
 */
function stateOnly(schema: Schema): Schema {
  if (schema.kind !== 'enum' || !schema.values.includes('toggle') || !schema.values.includes('on')) return schema;
  return { ...schema, values: schema.values.filter((v) => v !== 'toggle') };
}

/** Checks a comparison's values against the field: equals by the field's schema, above/below numbers in range. */
export function checkComparison(
  r: ResolvedRef,
  c: Comparison & { to?: unknown; from?: unknown },
  path: string,
  errors: string[],
): void {
  for (const key of ['equals', 'to', 'from'] as const)
    if (c[key] !== undefined) checkValue(r.schema, c[key], `${path}.${key}`, errors);
  for (const key of ['above', 'below'] as const) {
    const v = c[key];
    if (v === undefined) continue;
    if (r.schema.kind !== 'number') {
      errors.push(`${path}.${key}: ${r.field} is not a number`);
      continue;
    }
    if (r.schema.min !== undefined && v < r.schema.min)
      errors.push(`${path}.${key}: ${v} is below min ${r.schema.min}`);
    else if (r.schema.max !== undefined && v > r.schema.max)
      errors.push(`${path}.${key}: ${v} is above max ${r.schema.max}`);
  }
  if (c.above !== undefined && c.below !== undefined && c.above >= c.below)
    errors.push(`${path}.below: ${c.below} is not above ${c.above} (above must be less than below)`);
}

/** The value a resolved ref reads in a device's state (undefined when the state has none). */
export function readValue(
  state: Record<string, unknown>,
  r: Pick<ResolvedRef, 'capability' | 'name' | 'field'>,
): unknown {
  let body = state[r.capability];
  if (r.name !== undefined) body = isObject(body) ? body[r.name] : undefined;
  return isObject(body) ? body[r.field] : undefined;
}

/** Whether a value meets a comparison (an unknown value meets none). */
export function compare(v: unknown, c: Comparison): boolean {
  if (v === undefined) return false;
  if (c.equals !== undefined && !isDeepStrictEqual(v, c.equals)) return false;
  if (c.above !== undefined && !(typeof v === 'number' && v > c.above)) return false;
  if (c.below !== undefined && !(typeof v === 'number' && v < c.below)) return false;
  return true;
}
