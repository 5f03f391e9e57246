/**
 * A whole definition checked when it is saved: its shape (schema.ts, the catalog's compiler),
 * then what only the gateway knows: each device named exists and has the capability, channel
 * and field read; each value fits the field (the device's own range); each control command is
 * one the device accepts (the catalog's `validateCommand`, as for D4); each scene, automation,
 * security mode and sound named exists; sun rules have a location; the limits hold. Every
 * problem is one `path: rule` message; nothing is saved unless there are none.
 */
import { isSoundName, validateCommand } from '../catalog/index.ts';
import { isObject } from '../lib/object.ts';
import { automationLimits as L } from './limits.ts';
import type { Action, Condition, DefinitionInput, Trigger } from './model.ts';
import type { DeviceView } from './ports.ts';
import { checkShape } from './schema.ts';
import { checkComparison, checkValue, resolveRef } from './values.ts';
import { parseTimeOfDay } from './zone.ts';

/** What validation looks up. */
export interface ValidationContext {
  device(serial: string): DeviceView | undefined;
  /** The kind of the definition with this id, if one is saved. */
  definition(id: string): 'scene' | 'automation' | undefined;
  sids(): readonly number[];
  /** Whether the `location` setting is set (sun rules need it). */
  hasLocation: boolean;
}

export type Checked = { ok: true; value: DefinitionInput } | { ok: false; errors: string[] };

/** Checks a whole definition; `value` is the definition as given (checked), on success. */
export function validateDefinition(input: unknown, ctx: ValidationContext): Checked {
  const errors = checkShape(input);
  if (errors.length > 0) return { ok: false, errors };
  const def = input as DefinitionInput;
  if (def.kind === 'scene') {
    if (def.triggers?.length) errors.push('triggers: a scene has no triggers (it is run by hand or by an action)');
    if (def.conditions?.length) errors.push('conditions: a scene has no conditions');
  }
  if ((def.mode === 'single' || def.mode === 'restart') && def.max !== undefined)
    errors.push(`max: only queued and parallel automations take a max (this one is ${def.mode})`);
  if (countConditions(def.conditions ?? []) > L.conditions)
    errors.push(`conditions: ${countConditions(def.conditions ?? [])} conditions in all is above max ${L.conditions}`);
  for (const [i, t] of (def.triggers ?? []).entries()) checkTrigger(t, `triggers.${i}`, ctx, errors);
  for (const [i, c] of (def.conditions ?? []).entries()) checkCondition(c, `conditions.${i}`, ctx, errors);
  for (const [i, a] of def.actions.entries()) checkAction(a, `actions.${i}`, ctx, def, errors);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: def };
}

function countConditions(list: readonly Condition[]): number {
  let n = 0;
  for (const c of list) n += 1 + ('conditions' in c ? countConditions(c.conditions) : 0);
  return n;
}

function device(serial: string, path: string, ctx: ValidationContext, errors: string[]): DeviceView | undefined {
  const d = ctx.device(serial);
  if (!d) errors.push(`${path}.device: no device has serial_number ${JSON.stringify(serial)}`);
  return d;
}

function sun(path: string, ctx: ValidationContext, errors: string[]): void {
  if (!ctx.hasLocation)
    errors.push(`${path}: the sun needs the gateway's location (the \`location\` setting: latitude,longitude)`);
}

function sid(value: number | undefined, path: string, ctx: ValidationContext, errors: string[]): void {
  if (value !== undefined && !ctx.sids().includes(value)) errors.push(`${path}.sid: no security mode has sid ${value}`);
}

function checkTrigger(t: Trigger, path: string, ctx: ValidationContext, errors: string[]): void {
  switch (t.type) {
    case 'state': {
      const d = device(t.device, path, ctx, errors);
      const r = d && resolveRef(d.capabilities, t, path, errors);
      if (!r) return;
      checkComparison(r, t, path, errors);
      if (t.to === undefined && t.above === undefined && t.below === undefined && t.for_seconds !== undefined)
        errors.push(`${path}.for_seconds: needs a value to hold (to, above or below)`);
      return;
    }
    case 'press': {
      const d = device(t.device, path, ctx, errors);
      if (!d) return;
      const r = resolveRef(
        d.capabilities,
        { capability: t.name === undefined ? 'press' : 'multi-press', name: t.name, field: 'press' },
        path,
        errors,
      );
      if (r) checkValue(r.schema, t.press, `${path}.press`, errors);
      return;
    }
    case 'online':
      device(t.device, path, ctx, errors);
      return;
    case 'sun':
      sun(path, ctx, errors);
      return;
    case 'security':
      sid(t.sid, path, ctx, errors);
      return;
    default:
      return;
  }
}

function checkCondition(c: Condition, path: string, ctx: ValidationContext, errors: string[]): void {
  switch (c.type) {
    case 'time':
      if (c.after !== undefined && c.after === c.before)
        errors.push(`${path}.before: the same as after: the window would be empty (or the whole day)`);
      return;
    case 'sun':
      sun(path, ctx, errors);
      return;
    case 'state': {
      const d = device(c.device, path, ctx, errors);
      const r = d && resolveRef(d.capabilities, c, path, errors);
      if (r) checkComparison(r, c, path, errors);
      return;
    }
    case 'online':
      device(c.device, path, ctx, errors);
      return;
    case 'security':
      sid(c.sid, path, ctx, errors);
      return;
    case 'all':
    case 'any':
    case 'not':
      for (const [i, x] of c.conditions.entries()) checkCondition(x, `${path}.conditions.${i}`, ctx, errors);
      return;
    default:
      return;
  }
}

function checkAction(a: Action, path: string, ctx: ValidationContext, def: DefinitionInput, errors: string[]): void {
  switch (a.type) {
    case 'device': {
      const d = device(a.device, path, ctx, errors);
      if (!d) return;
      if (!isObject(a.state) || Object.keys(a.state).length === 0) {
        errors.push(`${path}.state: needs at least one capability to control`);
        return;
      }
      const r = validateCommand(d.capabilities, a.state, `${path}.state`);
      if (!r.ok) errors.push(...r.errors);
      return;
    }
    case 'scene': {
      const kind = a.scene === def.id ? def.kind : ctx.definition(a.scene);
      if (kind === undefined) errors.push(`${path}.scene: no scene has id ${JSON.stringify(a.scene)}`);
      else if (kind !== 'scene') errors.push(`${path}.scene: ${a.scene} is an automation, not a scene`);
      else if (a.scene === def.id) errors.push(`${path}.scene: a scene cannot run itself`);
      return;
    }
    case 'automation':
      if (a.automation !== def.id && ctx.definition(a.automation) === undefined)
        errors.push(`${path}.automation: no automation or scene has id ${JSON.stringify(a.automation)}`);
      return;
    case 'security':
      sid(a.sid, path, ctx, errors);
      return;
    case 'sound':
      if (!isSoundName(a.sound))
        errors.push(`${path}.sound: ${JSON.stringify(a.sound)} is not a sound (alert1..5, doorbell1..5, alarm1..5)`);
      return;
    case 'wait': {
      const d = device(a.device, path, ctx, errors);
      const r = d && resolveRef(d.capabilities, a, path, errors);
      if (r) checkComparison(r, a, path, errors);
      return;
    }
    default:
      return;
  }
}

/** Seconds since midnight of a checked `HH:MM[:SS]`. */
export function secondsOf(text: string): number {
  return parseTimeOfDay(text) as number;
}
