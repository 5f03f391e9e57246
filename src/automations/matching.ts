/**
 * Whether a device event sets off a trigger. Triggers fire on edges only: a value that changes
 * into what the trigger asks (or a number that crosses its threshold), never a report that
 * repeats the value already known. The registry publishes a state event only for a change
 * (src/core/devices/state.ts), and the engine compares with the value it last saw, so a state
 * restored at start or sent again by a device or an add-on (the spec's duplicate-report hazard)
 * starts nothing.
 */
import { isDeepStrictEqual } from 'node:util';
import { isObject } from '../lib/object.ts';
import type { Trigger } from './model.ts';
import { compare, type ResolvedRef, readValue } from './values.ts';

export type StateTrigger = Extract<Trigger, { type: 'state' }>;

/** Whether a value is one the trigger asks for (its to/above/below; any value when none is given). */
export function wanted(t: StateTrigger, v: unknown): boolean {
  return compare(v, { equals: t.to, above: t.above, below: t.below });
}

/** Whether the change of the field from `before` to `after` sets the trigger off. */
export function stateEdge(t: StateTrigger, before: unknown, after: unknown): boolean {
  if (after === undefined || isDeepStrictEqual(before, after)) return false;
  if (t.from !== undefined && !isDeepStrictEqual(before, t.from)) return false;
  if (!wanted(t, after)) return false;
  // A threshold fires when it is crossed, not at every change beyond it.
  const threshold = t.to !== undefined || t.above !== undefined || t.below !== undefined;
  return !threshold || !wanted(t, before);
}

/** The field's value before and after a state event, for a resolved ref. */
export function change(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
  r: ResolvedRef,
): [unknown, unknown] {
  return [before ? readValue(before, r) : undefined, readValue(after, r)];
}

/** The press a state event's payload carries for a press trigger (a press is an event: each one counts). */
export function pressOf(payload: Record<string, unknown>, name: string | undefined): unknown {
  const body = payload[name === undefined ? 'press' : 'multi-press'];
  const at = name === undefined ? body : isObject(body) ? body[name] : undefined;
  return isObject(at) ? at.press : undefined;
}
