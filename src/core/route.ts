/**
 * A route declared as data, the one declaration every surface of the HTTP layer mounts: the Open
 * API (the envelope, HTTP 200 failures) and the console's API (ordinary HTTP statuses, `{error}`
 * bodies). It says the method, the path, the schemas of what the caller sends (in the catalog's
 * language: one message grammar, `field: rule`), the schema of what it answers, and the handler,
 * which gets the checked input and who is calling. A handler never writes a wire format: it
 * answers `ok` with data, or the core's one failure shape, which each surface writes its own way.
 * Integrations contribute routes in this form (src/core/integration.ts).
 */
import type { ErrorCodeValue, Failed } from '../catalog/errors.ts';
import type { ObjectSchema, Schema, StringSchema } from '../catalog/schema.ts';
import type { Actor } from './actor.ts';

export type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

/** What a handler is given: the input checked against the declared schemas, and who is calling. */
export interface RouteInput<B = Record<string, unknown>, Q = Record<string, unknown>, P = Record<string, string>> {
  body: B;
  query: Q;
  params: P;
  /** An app (by its token), or the console (by its session). */
  actor: Actor;
}

/**
 * A refusal: the core's failure, and (for the surfaces with ordinary HTTP statuses) the status
 * when the code's own (src/http/console/words.ts) does not fit, e.g. 409 for "it is off".
 */
export type Refusal = Failed & { status?: number };

/**
 * A file a handler answers instead of JSON (a CSV export): its media type, the name a browser
 * saves it under, and its text as lines the surface streams (read one at a time, as the client
 * takes them).
 */
export interface FileAnswer {
  type: string;
  filename: string;
  lines: Iterable<string>;
}

/** A handler's answer: success with `data` (or a file, on a route that declares `produces`), or a refusal. */
export type RouteAnswer = { ok: true; data?: object; file?: FileAnswer } | Refusal;

export interface RouteDecl {
  method: Method;
  /** Under the surface's root (`/open-api/{v1,v2}/rest`, `/console/api`), with `{name}` parameters. */
  path: string;
  summary: string;
  description?: string;
  params?: Readonly<Record<string, StringSchema>>;
  query?: ObjectSchema;
  body?: Schema;
  /** The schema of `data` in a success; absent: `{}`. */
  answer?: Schema;
  /** The media type of a success that is a file (`text/csv`) rather than JSON; a refusal stays JSON. */
  produces?: string;
  /** Error codes it may answer besides 400 and 401. */
  errors?: readonly ErrorCodeValue[];
  // biome-ignore lint/suspicious/noExplicitAny: the input is checked at run time against the declared schemas, which the types do not follow
  handle(input: RouteInput<any, any, any>): Promise<RouteAnswer> | RouteAnswer;
}

/** Success with `data`. */
export const answered = (data?: object): RouteAnswer => ({ ok: true, ...(data ? { data } : {}) });

/** A refusal with a code of the error catalog, words, and optionally the console's HTTP status. */
export const refused = (code: ErrorCodeValue, message: string, status?: number): Refusal => ({
  ok: false,
  code,
  message,
  ...(status !== undefined ? { status } : {}),
});
