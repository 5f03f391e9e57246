/**
 * The API of scenes and automations, declared once (src/core/route.ts) and served on both
 * surfaces: the Open API under `/open-api/{v1,v2}/rest/opencube/automations` (a token, the
 * envelope) and the console's API under `/console/api/automations` (a session, HTTP statuses).
 * The Open API's path has a vendor segment of its own: no client of the hardware gateways calls
 * it, and a scene API the hardware gateways may add one day cannot collide with it
 * (docs/automations.md, "The API"). Every definition is checked whole when saved; a refusal
 * lists every problem, `path: rule`, and saves nothing.
 */
import { ErrorCode } from '../catalog/errors.ts';
import { bool, int, obj, oneOf, opt, str } from '../catalog/schema.ts';
import type { Actor } from '../core/actor.ts';
import { answered, type RouteAnswer, type RouteDecl, refused } from '../core/route.ts';
import {
  activeRunSchema,
  choicesSchema,
  definitionBodySchema,
  definitionViewSchema,
  firingSchema,
  traceSchema,
} from './api-schema.ts';
import type { Choices } from './choices.ts';
import type { AutomationEngine, DefinitionStatus } from './engine.ts';
import type { Definition } from './model.ts';
import type { Bucket } from './trace.ts';

/** What the routes use: the engine, and what the editor's choices are made of. */
export interface AutomationsApi {
  engine: AutomationEngine;
  choices(): Choices;
}

/** The fields the gateway adds to a definition: sent back with a save, they are ignored. */
const ADDED = ['version', 'broken', 'created_at', 'updated_at', 'status'] as const;

/** A definition as the API shows it: `max` only where it counts, and how it is doing. */
export function viewOf(d: Definition, status: DefinitionStatus | undefined) {
  const { max, ...rest } = d;
  const counted = d.mode === 'queued' || d.mode === 'parallel';
  return {
    ...rest,
    ...(counted ? { max } : {}),
    status: status ?? { running: 0, last_run: null, next_firing: null },
  };
}

const ID_PARAM = { id: str({ maxLength: 64, doc: 'the id of a scene or automation' }) };

const notFound = (id: string) =>
  refused(ErrorCode.NOT_FOUND, `id: no scene or automation has id ${JSON.stringify(id)}`);

/** The routes under `base` (`/opencube/automations` on the Open API, `/automations` in the console). */
export function automationRoutes(api: AutomationsApi, base: string): RouteDecl[] {
  const { engine } = api;
  const view = (d: Definition) => viewOf(d, engine.statuses().get(d.id));
  const one = (id: string): RouteAnswer => {
    const d = engine.get(id);
    return d ? answered({ definition: view(d) }) : notFound(id);
  };
  const save = (body: Record<string, unknown>, id: string | undefined): RouteAnswer => {
    const input: Record<string, unknown> = { ...body };
    for (const k of ADDED) delete input[k];
    if (id !== undefined) input.id = id;
    const r = engine.save(input);
    if (!r.ok) {
      const unknown = r.errors.find((e) => e.startsWith('id: no scene or automation'));
      return unknown
        ? refused(ErrorCode.NOT_FOUND, unknown)
        : refused(ErrorCode.INVALID_PARAMETERS, r.errors.join('; '));
    }
    return answered({ definition: view(r.definition) });
  };
  const definition = { definition: definitionViewSchema };
  return [
    {
      method: 'GET',
      path: base,
      summary: 'Lists the scenes and automations, each with its status (runs under way, the last run, the next firing)',
      query: obj({ kind: opt(oneOf('scene', 'automation')) }),
      answer: obj({ definitions: { kind: 'array', items: definitionViewSchema } }),
      handle: ({ query }) => {
        const statuses = engine.statuses();
        const list = engine.list().filter((d) => query.kind === undefined || d.kind === query.kind);
        return answered({ definitions: list.map((d) => viewOf(d, statuses.get(d.id))) });
      },
    },
    {
      method: 'POST',
      path: base,
      summary: 'Creates a scene or an automation, checked whole (every problem refused at once, nothing saved)',
      description:
        'The body is a definition (docs/automations.md); the gateway gives its `id`. A refusal lists every problem as `path: rule` (`triggers.0.at: "25:00" is not a time of day HH:MM or HH:MM:SS (24 h)`).',
      body: definitionBodySchema,
      answer: obj(definition),
      handle: ({ body }) =>
        body.id !== undefined
          ? refused(
              ErrorCode.INVALID_PARAMETERS,
              `id: a new scene or automation gets its id from the gateway; to change ${JSON.stringify(body.id)}, PUT it at ${base}/{id}`,
            )
          : save(body, undefined),
    },
    {
      method: 'GET',
      path: `${base}/runs`,
      summary: 'The runs under way: running, waiting in a delay or a wait (with its deadline), or queued',
      answer: obj({ runs: { kind: 'array', items: activeRunSchema } }),
      handle: () =>
        answered({
          runs: engine.active().map((r) => ({ ...r, name: engine.get(r.automation_id)?.name ?? '' })),
        }),
    },
    {
      method: 'GET',
      path: `${base}/choices`,
      summary:
        "What an editor may offer: each device's values and presses, the security modes, sounds, TTS engines, the other definitions, the time zone and limits",
      answer: choicesSchema,
      handle: () => answered(api.choices()),
    },
    {
      method: 'GET',
      path: `${base}/{id}`,
      summary: 'One scene or automation, with its status',
      params: ID_PARAM,
      answer: obj(definition),
      errors: [ErrorCode.NOT_FOUND],
      handle: ({ params }) => one(params.id),
    },
    {
      method: 'PUT',
      path: `${base}/{id}`,
      summary: 'Saves a new version of a scene or automation, checked whole; its runs under way stop',
      description:
        'The whole definition, as POST takes it (a definition read with GET may be sent back: the fields the gateway adds are ignored). A scene stays a scene and an automation an automation.',
      params: ID_PARAM,
      body: definitionBodySchema,
      answer: obj(definition),
      errors: [ErrorCode.NOT_FOUND],
      handle: ({ params, body }) =>
        body.id !== undefined && body.id !== params.id
          ? refused(ErrorCode.INVALID_PARAMETERS, `id: ${JSON.stringify(body.id)} differs from the path's ${params.id}`)
          : save(body, params.id),
    },
    {
      method: 'DELETE',
      path: `${base}/{id}`,
      summary: 'Removes a scene or automation; its runs stop, and those that name it become broken',
      params: ID_PARAM,
      errors: [ErrorCode.NOT_FOUND],
      handle: ({ params }) => (engine.remove(params.id) ? answered() : notFound(params.id)),
    },
    ...(['enable', 'disable'] as const).map(
      (verb): RouteDecl => ({
        method: 'POST',
        path: `${base}/{id}/${verb}`,
        summary:
          verb === 'enable'
            ? 'Enables an automation: its triggers listen again (from now: the past is not caught up)'
            : 'Disables an automation: its triggers stop listening and its runs under way stop',
        params: ID_PARAM,
        answer: obj(definition),
        errors: [ErrorCode.NOT_FOUND],
        handle: ({ params }) => {
          if (!engine.setEnabled(params.id, verb === 'enable').ok) return notFound(params.id);
          return one(params.id);
        },
      }),
    ),
    {
      method: 'POST',
      path: `${base}/{id}/run`,
      summary: 'Runs a scene or automation now (its actions; its conditions only when asked)',
      description:
        'The trace names who ran it. Refused with 409 when it is broken, or when it did not start: its conditions did not hold (`conditions: true`), its run mode had no room, or a loop guard stopped it.',
      params: ID_PARAM,
      body: obj({
        conditions: opt(bool('check its conditions first (default false: a run by hand skips them)')),
      }),
      answer: obj({ run_id: str() }),
      errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
      handle: ({ params, body, actor }) => {
        if (!engine.get(params.id)) return notFound(params.id);
        const r = engine.run(params.id, { conditions: body.conditions === true, by: actor as Actor });
        return r.ok ? answered({ run_id: r.run_id }) : refused(ErrorCode.CONFLICT, r.message, 409);
      },
    },
    {
      method: 'POST',
      path: `${base}/{id}/stop`,
      summary: 'Stops every run of a scene or automation under way (their traces say who stopped them)',
      params: ID_PARAM,
      answer: obj({ stopped: int({ min: 0, doc: 'runs stopped' }) }),
      errors: [ErrorCode.NOT_FOUND],
      handle: ({ params, actor }) =>
        engine.get(params.id) ? answered({ stopped: engine.stopRuns(params.id, actor) }) : notFound(params.id),
    },
    {
      method: 'GET',
      path: `${base}/{id}/traces`,
      summary: 'The traces kept of a scene or automation, newest first: runs, failed runs and triggers not run',
      description:
        'The last 10 of each bucket: `run` (runs that finished or were stopped), `failed` (an action failed), `not_run` (a trigger fired but no run started, with why).',
      params: ID_PARAM,
      query: obj({ bucket: opt(oneOf('run', 'failed', 'not_run')) }),
      answer: obj({ traces: { kind: 'array', items: traceSchema } }),
      errors: [ErrorCode.NOT_FOUND],
      handle: ({ params, query }) =>
        engine.get(params.id)
          ? answered({ traces: engine.traces(params.id, query.bucket as Bucket | undefined) })
          : notFound(params.id),
    },
    {
      method: 'GET',
      path: `${base}/{id}/next`,
      summary:
        'When its time and sun triggers fire next, in UTC and on the wall of the gateway zone (DST changes shown)',
      params: ID_PARAM,
      query: obj({
        count: opt(
          str({
            pattern: /^([1-9]|[1-4][0-9]|50)$/,
            patternDoc: 'a whole number from 1 to 50',
            doc: 'firings of each trigger (default 5)',
          }),
        ),
      }),
      answer: obj({ firings: { kind: 'array', items: firingSchema } }),
      errors: [ErrorCode.NOT_FOUND],
      handle: ({ params, query }) =>
        engine.get(params.id)
          ? answered({ firings: engine.nextFirings(params.id, query.count === undefined ? 5 : Number(query.count)) })
          : notFound(params.id),
    },
  ];
}
