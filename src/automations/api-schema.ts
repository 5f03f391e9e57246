/**
 * What the API of scenes and automations answers, in the catalog's schema language: the OpenAPI
 * document is made from these, and every answer of a test gateway is checked against them. The
 * shapes are those of model.ts (a saved definition), trace.ts (a trace), runs.ts (a run under
 * way), scheduler.ts (a firing to come) and choices.ts (what the editor offers).
 */
import {
  any,
  arr,
  bool,
  int,
  map,
  named,
  num,
  type ObjectSchema,
  obj,
  oneOf,
  opt,
  optOrNull,
  type Schema,
  str,
} from '../catalog/schema.ts';
import { definitionSchema, definitionParts as P } from './schema.ts';

const ISO = str({ doc: 'an instant, ISO 8601 (UTC)' });
const TEXT = str();

const lastRun = obj({
  run_id: TEXT,
  result: oneOf('finished', 'failed', 'stopped'),
  started_at: ISO,
  ended_at: optOrNull(ISO),
  reason: optOrNull(TEXT),
});

/** How a definition is doing now (engine.ts DefinitionStatus). */
export const statusSchema = obj({
  running: int({ min: 0, doc: 'runs running, waiting in a delay or a wait, or queued' }),
  last_run: optOrNull(lastRun),
  next_firing: optOrNull(ISO),
});

/** A saved definition as the API shows it: the definition, its id, version, state and status. */
export const definitionViewSchema: ObjectSchema = named(
  obj({
    id: P.id,
    kind: P.kind,
    name: P.name,
    enabled: bool(),
    mode: P.mode,
    max: opt(P.max),
    triggers: P.triggers,
    conditions: P.conditions,
    actions: P.actions,
    version: int({ min: 1, doc: 'rises by one at every save' }),
    broken: optOrNull(arr(TEXT, { doc: 'why it is skipped: `path: rule` messages' })),
    created_at: ISO,
    updated_at: ISO,
    status: statusSchema,
  }),
  'AutomationDefinition',
);

/**
 * What a save takes: a definition, and (ignored) the fields the gateway adds, so that a definition
 * read with GET can be sent back changed.
 */
export const definitionBodySchema: ObjectSchema = named(
  obj({
    ...definitionSchema.fields,
    version: opt(any('ignored: set by the gateway')),
    broken: opt(any('ignored: set by the gateway')),
    created_at: opt(any('ignored: set by the gateway')),
    updated_at: opt(any('ignored: set by the gateway')),
    status: opt(any('ignored: set by the gateway')),
  }),
  'AutomationDefinitionInput',
);

const cause = obj({
  automation_id: TEXT,
  run_id: TEXT,
  depth: int({ min: 1 }),
  chain: arr(TEXT),
});

/** One run's record, or why a trigger did not start one (trace.ts). */
export const traceSchema = named(
  obj({
    run_id: TEXT,
    automation_id: TEXT,
    version: int({ min: 1 }),
    trigger: obj({
      kind: oneOf('trigger', 'manual', 'scene'),
      index: opt(int({ min: 0 })),
      description: TEXT,
      at: ISO,
      scheduled: opt(ISO),
      late_seconds: opt(int({ min: 0 })),
      caused_by: optOrNull(cause),
    }),
    conditions: arr(obj({ path: TEXT, type: TEXT, result: bool(), detail: opt(TEXT) })),
    steps: arr(
      obj({
        index: int({ min: 0 }),
        type: TEXT,
        at: ISO,
        outcome: oneOf('done', 'failed', 'retry', 'timed_out', 'waiting', 'resumed'),
        detail: opt(TEXT),
      }),
    ),
    started_at: ISO,
    ended_at: opt(ISO),
    result: oneOf('running', 'finished', 'failed', 'stopped', 'not_run'),
    reason: opt(TEXT),
  }),
  'AutomationTrace',
);

/** A run under way (runs.ts). */
export const activeRunSchema = obj({
  run_id: TEXT,
  automation_id: TEXT,
  name: TEXT,
  status: oneOf('queued', 'running', 'waiting'),
  step: int({ min: 0 }),
  deadline: optOrNull(ISO),
});

/** A firing to come of a time or sun trigger (scheduler.ts). */
export const firingSchema = obj({
  trigger: int({ min: 0 }),
  at: ISO,
  local: str({ doc: 'the same instant on the wall of the gateway zone, with its offset' }),
  resolution: opt(oneOf('gap', 'overlap')),
});

/** A value of a device a trigger, a condition or a wait may read (choices.ts). */
const valueChoice = obj({
  capability: TEXT,
  name: opt(TEXT),
  field: TEXT,
  type: oneOf('enum', 'boolean', 'number', 'string'),
  values: opt(arr(any('a value'))),
  min: opt(num()),
  max: opt(num()),
  unit: opt(TEXT),
});

/** What the editor may offer, all of it valid for a save (choices.ts). */
export const choicesSchema = obj({
  devices: arr(
    obj({
      serial_number: TEXT,
      name: TEXT,
      online: bool(),
      values: arr(valueChoice),
      presses: arr(obj({ name: opt(TEXT), presses: arr(oneOf('singlePress', 'doublePress', 'longPress')) })),
      controllable: bool(),
    }),
  ),
  security_modes: arr(obj({ sid: int({ min: 0 }), name: TEXT })),
  sounds: arr(TEXT),
  tts_engines: arr(obj({ id: TEXT, name: TEXT })),
  definitions: arr(obj({ id: TEXT, kind: P.kind, name: TEXT })),
  time_zone: TEXT,
  location: bool(),
  limits: map(num()),
});

/** The data of the automations' events on the streams (event-bus.ts). */
export const eventSchemas: Record<string, Schema> = {
  runStarted: obj({ payload: obj({ automation_id: TEXT, run_id: TEXT, name: TEXT, trigger: TEXT }) }),
  runFinished: obj({
    payload: obj({
      automation_id: TEXT,
      run_id: TEXT,
      name: TEXT,
      result: oneOf('finished', 'failed', 'stopped'),
      reason: optOrNull(TEXT),
    }),
  }),
  notify: obj({ payload: obj({ automation_id: TEXT, run_id: optOrNull(TEXT), name: TEXT, message: TEXT }) }),
  changed: obj({
    payload: obj({
      automation_id: TEXT,
      change: oneOf('saved', 'removed', 'enabled', 'disabled', 'broken', 'repaired'),
      broken: optOrNull(arr(TEXT)),
    }),
  }),
};
