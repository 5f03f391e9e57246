/**
 * What the API of scenes and automations answers, as types only, with no imports of code: the
 * engine builds these, and the console's own code (console/src/automations.ts) uses these very
 * definitions. The definitions themselves are model.ts's.
 */
import type { Definition } from './model.ts';

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

/** The head of the trace of a definition's last run. */
export interface LastRun {
  run_id: string;
  result: string;
  started_at: string;
  ended_at: string | null;
  reason: string | null;
}

/** How a definition is doing now: its runs under way, the last that ended, when it fires next. */
export interface DefinitionStatus {
  /** Runs running, waiting (in a delay or wait) or queued. */
  running: number;
  last_run: LastRun | null;
  /** The soonest firing of its time and sun triggers (null: none scheduled). */
  next_firing: string | null;
}

/** A definition as the API shows it: `max` only for queued and parallel ones, and how it is doing. */
export type DefinitionView = Omit<Definition, 'max'> & { max?: number; status: DefinitionStatus };

/** A run under way, as the API lists it. */
export interface ActiveRun {
  run_id: string;
  automation_id: string;
  name: string;
  status: 'queued' | 'running' | 'waiting';
  step: number;
  deadline: string | null;
}

/** A firing to come of a scheduled trigger. */
export interface NextFiring {
  /** The trigger's index in its definition. */
  trigger: number;
  /** The instant (UTC, ISO 8601). */
  at: string;
  /** The same instant on the wall in the gateway's zone, with its offset (`2025-03-30T03:00:00+02:00`). */
  local: string;
  /** `gap`: the time did not exist that day (clocks went forward; it fires at the change); `overlap`: it existed twice (it fires at the first). */
  resolution?: 'gap' | 'overlap';
}

export interface ValueChoice {
  capability: string;
  name?: string;
  field: string;
  type: 'enum' | 'boolean' | 'number' | 'string';
  values?: readonly unknown[];
  min?: number;
  max?: number;
  unit?: string;
}

type Press = 'singlePress' | 'doublePress' | 'longPress';

export interface DeviceChoices {
  serial_number: string;
  name: string;
  online: boolean;
  values: ValueChoice[];
  presses: { name?: string; presses: Press[] }[];
  /** Whether it takes commands (a device action); the console offers its controls. */
  controllable: boolean;
}

export interface Choices {
  devices: DeviceChoices[];
  security_modes: { sid: number; name: string }[];
  sounds: string[];
  tts_engines: { id: string; name: string }[];
  definitions: { id: string; kind: 'scene' | 'automation'; name: string }[];
  time_zone: string;
  location: boolean;
  limits: Record<string, number>;
}
