/**
 * Traces: what one run did, or why a trigger did not start one. Built while the run goes (and
 * journalled with it, so a run resumed after a restart keeps its trace), kept when it ends in a
 * bounded ring per automation and bucket (store.ts): the latest runs, the latest failed runs and
 * the latest triggers not run are kept apart, so chatty runs never push out the failure a user
 * looks for.
 */
import { randomBytes } from 'node:crypto';

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

/** What fired, for a trace: the trigger's index, the words, its cause, and a scheduled instant with how late it ran. */
export function triggerOf(
  index: number,
  f: { description: string; cause: Cause | null; scheduled?: { at: number } },
  now: number,
): TraceTrigger {
  return {
    kind: 'trigger',
    index,
    description: f.description,
    at: iso(now),
    ...(f.scheduled
      ? { scheduled: iso(f.scheduled.at), late_seconds: Math.max(0, Math.round((now - f.scheduled.at) / 1000)) }
      : {}),
    caused_by: f.cause,
  };
}

/** The trace of a trigger that did not start a run, with why. */
export function notRunTrace(
  d: { id: string; version: number },
  trigger: TraceTrigger,
  conditions: ConditionResult[],
  reason: string,
  now: number,
): Trace {
  return {
    run_id: randomBytes(8).toString('hex'),
    automation_id: d.id,
    version: d.version,
    trigger,
    conditions,
    steps: [],
    started_at: iso(now),
    ended_at: iso(now),
    result: 'not_run',
    reason,
  };
}

/** ISO 8601 of an instant, for traces. */
export function iso(t: number): string {
  return new Date(t).toISOString();
}
