/**
 * Traces: what one run did, or why a trigger did not start one. Built while the run goes (and
 * journalled with it, so a run resumed after a restart keeps its trace), kept when it ends in a
 * bounded ring per automation and bucket (store.ts): the latest runs, the latest failed runs and
 * the latest triggers not run are kept apart, so chatty runs never push out the failure a user
 * looks for.
 */
import { randomBytes } from 'node:crypto';

export type { Bucket, Cause, ConditionResult, StepResult, Trace, TraceResult, TraceTrigger } from './views.ts';

import type { Bucket, Cause, ConditionResult, Trace, TraceTrigger } from './views.ts';

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
