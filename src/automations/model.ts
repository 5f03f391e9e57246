/**
 * The model of scenes and automations, as definitions are saved and read (snake_case fields at
 * the boundary, as the rest of the API). A scene is a named list of actions, run by hand, by
 * another automation's `scene` action or from an automation on a button; an automation adds
 * triggers (any one starts a run) and conditions (all must hold). docs/automations.md shows each
 * kind with an example.
 */
import type { Weekday } from './zone.ts';

export type RunMode = 'single' | 'restart' | 'queued' | 'parallel';

/** Where a value of a device is read: its capability, the channel or name of it, and the field. */
export interface ValueRef {
  device: string;
  capability: string;
  /** The channel (`toggle` 1, `multi-press` 2) or fixed name of the capability, when it has them. */
  name?: string;
  /** The field of the capability's state (`powerState`); optional when the state has one field. */
  field?: string;
}

/** A comparison of a value: equal to, above, below (both: between, exclusive). */
export interface Comparison {
  equals?: unknown;
  above?: number;
  below?: number;
}

export type Trigger =
  | (ValueRef & {
      type: 'state';
      /** The value changed to this (or, for a number, crossed into above/below). */
      to?: unknown;
      from?: unknown;
      above?: number;
      below?: number;
      for_seconds?: number;
    })
  | { type: 'press'; device: string; name?: string; press: 'singlePress' | 'doublePress' | 'longPress' }
  | { type: 'online'; device: string; online: boolean; for_seconds?: number }
  | { type: 'time'; at: string; weekdays?: Weekday[] }
  | { type: 'sun'; event: 'sunrise' | 'sunset'; offset_minutes?: number; weekdays?: Weekday[] }
  | { type: 'security'; sid?: number; state: 'armed' | 'disarmed' }
  | { type: 'alarm'; state: 'raised' | 'cancelled' }
  | { type: 'started' };

export interface SunBound {
  event: 'sunrise' | 'sunset';
  offset_minutes?: number;
}

export type Condition =
  | { type: 'time'; after?: string; before?: string; weekdays?: Weekday[] }
  | { type: 'weekday'; weekdays: Weekday[] }
  | { type: 'sun'; after?: SunBound; before?: SunBound }
  | (ValueRef & Comparison & { type: 'state' })
  | { type: 'online'; device: string; online: boolean }
  | { type: 'security'; sid?: number; state: 'armed' | 'disarmed' }
  | { type: 'all' | 'any' | 'not'; conditions: Condition[] };

export type Action =
  | { type: 'device'; device: string; state: Record<string, unknown> }
  | { type: 'scene'; scene: string }
  | { type: 'security'; action: 'arm' | 'disarm'; sid?: number }
  | { type: 'sound'; sound: string; volume?: number; countdown?: number }
  | { type: 'speak'; text: string; engine?: string; volume?: number }
  | { type: 'delay'; seconds: number }
  | (ValueRef &
      Comparison & {
        type: 'wait';
        timeout_seconds: number;
        /** What a time-out does: go on with the next action (default) or stop the run. */
        on_timeout?: 'continue' | 'stop';
      })
  | { type: 'automation'; automation: string; enabled: boolean }
  | { type: 'notify'; message: string };

/** A definition as a client sends it (`id` absent: a new one). */
export interface DefinitionInput {
  id?: string;
  kind: 'scene' | 'automation';
  name: string;
  enabled?: boolean;
  mode?: RunMode;
  /** For `queued` and `parallel`: at most this many runs waiting or running. */
  max?: number;
  triggers?: Trigger[];
  conditions?: Condition[];
  actions: Action[];
}

/** A saved definition: checked whole, with its id and version. */
export interface Definition {
  id: string;
  kind: 'scene' | 'automation';
  name: string;
  enabled: boolean;
  mode: RunMode;
  max: number;
  triggers: Trigger[];
  conditions: Condition[];
  actions: Action[];
  /** Rises by one at every save; runs record the version they run. */
  version: number;
  /** Why it is skipped (a device it names was removed...), else null. */
  broken: string[] | null;
  created_at: string;
  updated_at: string;
}

/** The devices a definition names (in a trigger, condition or action). */
export function devicesOf(d: Definition): string[] {
  const out: string[] = [];
  for (const x of [...d.triggers, ...d.actions]) if ('device' in x) out.push(x.device);
  const walk = (list: readonly Condition[]) => {
    for (const c of list) {
      if ('device' in c) out.push(c.device);
      if ('conditions' in c) walk(c.conditions);
    }
  };
  walk(d.conditions);
  return out;
}
