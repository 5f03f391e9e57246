/**
 * Traces: what one run did, or why a trigger did not start one. Built while the run goes (and
 * journalled with it, so a run resumed after a restart keeps its trace), kept when it ends in a
 * bounded ring per automation and bucket (store.ts): the latest runs, the latest failed runs and
 * the latest triggers not run are kept apart, so chatty runs never push out the failure a user
 * looks for.
 */

export type TraceResult = 'running' | 'finished' | 'failed' | 'stopped' | 'not_run';
export type Bucket = 'run' | 'failed' | 'not_run';

/** The run (of which automation) whose action caused this one's trigger. */
export interface Cause {
  automation_id: string;
  run_id: string;
  /** 1 for a run started by a person, a device or the time; one more for each run in the chain. */
  depth: number;
  /** Automation ids of the chain, oldest first (the last few). */
  chain: string[];
}

export interface TraceTrigger {
  /** `trigger` (index into the definition's triggers), `manual` (by hand), `scene` (a scene action), `started`. */
  kind: 'trigger' | 'manual' | 'scene';
  index?: number;
  /** In words: "motion of Hallway sensor changed to true". */
  description: string;
  at: string;
  /** A time or sun trigger: the instant it was scheduled for, and how late it ran (a catch-up at start). */
  scheduled?: string;
  late_seconds?: number;
  caused_by: Cause | null;
}

export interface ConditionResult {
  path: string;
  type: string;
  result: boolean;
  detail?: string;
}

export interface StepResult {
  index: number;
  type: string;
  at: string;
  /** `retry`: a device command failed and is tried again; `failed`: the action failed for good (the run went on). */
  outcome: 'done' | 'failed' | 'retry' | 'timed_out' | 'waiting' | 'resumed';
  detail?: string;
}

export interface Trace {
  run_id: string;
  automation_id: string;
  version: number;
  trigger: TraceTrigger;
  conditions: ConditionResult[];
  steps: StepResult[];
  started_at: string;
  ended_at?: string;
  result: TraceResult;
  /** Why it stopped or was not run, in words. */
  reason?: string;
}

/** The bucket a finished trace is kept in. */
export function bucketOf(t: Trace): Bucket {
  if (t.result === 'not_run') return 'not_run';
  return t.result === 'failed' ? 'failed' : 'run';
}

/** ISO 8601 of an instant, for traces. */
export function iso(t: number): string {
  return new Date(t).toISOString();
}
