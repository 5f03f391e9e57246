/**
 * What the scheduler (time and sun) and the holds (`for`) share with the engine: a trigger of a
 * definition, how it fired, and what they ask of the engine around them.
 */
import type { Definition } from './model.ts';
import type { Occurrence } from './schedule.ts';
import type { Cause, ConditionResult, TraceTrigger } from './trace.ts';

/** A trigger of a definition, by index. */
export interface TriggerRef {
  def: Definition;
  index: number;
}

/** How a trigger fired: the words for the trace, the event's cause, a scheduled instant. */
export interface Firing {
  description: string;
  cause: Cause | null;
  scheduled?: Occurrence;
  /** Runs inside the firing's transaction first; false: already fired (an instant or a hold claimed before). */
  claim?: () => boolean;
}

/** The key of a trigger in maps of timers. */
export const triggerKey = (id: string, index: number) => `${id}\u0000${index}`;

/** Whether a timer key belongs to a definition. */
export const ofDefinition = (k: string, id: string) => k.startsWith(`${id}\u0000`);

/** What the scheduler and the holds ask of the engine. */
export interface TriggerHost {
  definition(id: string): Definition | undefined;
  /** Enabled and whole: its triggers listen. */
  live(d: Definition): boolean;
  /** A trigger fired: guards, conditions and the run mode decide. */
  fire(ref: TriggerRef, f: Firing): void;
  /** Records a trigger that did not start a run, with why. */
  notRun(d: Definition, trigger: TraceTrigger, conditions: ConditionResult[], reason: string): void;
  traceTrigger(ref: TriggerRef, f: Firing): TraceTrigger;
}
