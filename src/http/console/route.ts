/**
 * Routes of the console's API declared as data, with the conventions of this surface: ordinary
 * HTTP statuses (400, 401, 403, 404, 409, 429, 502...), JSON bodies `{error: "<words>"}` on
 * failure, bodies checked by the catalog's schema language (one message grammar, `path: rule`),
 * a session cookie for every route but login, and an Origin check on every request that changes
 * state (a page of another site cannot make the browser act with the user's cookie).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Check, compileStrict } from '../../catalog/compile-strict.ts';
import type { ObjectSchema, StringSchema } from '../../catalog/schema.ts';
import type { SessionInfo } from './access.ts';

export type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

export interface ConsoleInput<B = Record<string, unknown>, P = Record<string, string>> {
  body: B;
  params: P;
  query: Record<string, unknown>;
  /** The session (absent on routes without auth). */
  session?: SessionInfo;
  req: FastifyRequest;
  reply: FastifyReply;
}

/** An answer with a status and a JSON body. */
export type Answer = { status: number; body?: unknown };
/** A handler's answer, or `sent` when it wrote the reply itself. */
export type ConsoleResult = Answer | { sent: true };

export interface ConsoleRoute {
  method: Method;
  /** Under `/console/api`, with `{name}` parameters. */
  path: string;
  auth: 'session' | 'none';
  params?: Readonly<Record<string, StringSchema>>;
  body?: ObjectSchema;
  // biome-ignore lint/suspicious/noExplicitAny: the input is checked at run time against the declared schemas
  handle(input: ConsoleInput<any, any>): Promise<ConsoleResult> | ConsoleResult;
}

/** Declares a route (identity, for type checking and readability). */
export const consoleRoute = (r: ConsoleRoute): ConsoleRoute => r;

/** 200 with a JSON body. */
export const ok = (body: unknown = {}): Answer => ({ status: 200, body });
/** A failure with its status and words a person reads. */
export const refuse = (status: number, error: string): Answer => ({ status, body: { error } });

/** The name of the session cookie. */
export const COOKIE = 'opencube_session';

/** The value of one cookie of a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Whether a state-changing request comes from the console's own page: its Origin is this
 * gateway as the browser reached it (scheme, host and port of the Host header). Browsers send
 * Origin on every POST, PUT and DELETE of fetch(); a request without one must say it is
 * same-origin through Sec-Fetch-Site.
 */
export function sameOrigin(req: FastifyRequest): boolean {
  const origin = req.headers.origin;
  const host = req.headers.host;
  if (!host) return false;
  if (origin === undefined) return req.headers['sec-fetch-site'] === 'same-origin';
  return origin === `http://${host}` || origin === `https://${host}`;
}

function checker(schema: ObjectSchema | undefined, whole: string): ((v: unknown) => string[]) | undefined {
  if (!schema) return undefined;
  const check: Check = compileStrict(schema);
  return (v) => {
    const errors: string[] = [];
    check(v, '', errors);
    return errors.map((e) => (e.startsWith('.') ? e.slice(1) : e.startsWith(': ') ? `${whole}${e}` : e));
  };
}

export interface RegisterOptions {
  verify(cookie: string | undefined): SessionInfo | undefined;
}

/** Registers the routes in the console's scope. */
export function registerConsoleRoutes(app: FastifyInstance, routes: readonly ConsoleRoute[], opts: RegisterOptions) {
  for (const spec of routes) {
    const params = checker(spec.params ? { kind: 'object', fields: spec.params, open: true } : undefined, 'path');
    const body = checker(spec.body, 'body');
    app.route({
      method: spec.method,
      url: spec.path.replace(/\{([^}]+)\}/g, ':$1'),
      // Only the console's own page calls this API, and never with HEAD: no HEAD twin per GET
      // route, which was a quarter of the routes registered at every start.
      exposeHeadRoute: false,
      handler: async (req, reply) => {
        const send = (r: Answer) =>
          reply
            .code(r.status)
            .header('cache-control', 'no-store')
            .type('application/json; charset=utf-8')
            .send(JSON.stringify(r.body ?? {}));
        if (spec.method !== 'GET' && !sameOrigin(req))
          return send(refuse(403, 'this request did not come from the console page (Origin check)'));
        let session: SessionInfo | undefined;
        if (spec.auth === 'session') {
          session = opts.verify(cookieValue(req.headers.cookie, COOKIE));
          if (!session) return send(refuse(401, 'not logged in (or the session ended): log in again'));
        }
        const input = {
          params: (req.params ?? {}) as Record<string, string>,
          body: req.body === undefined || req.body === null ? {} : req.body,
        };
        const errors = [...(params?.(input.params) ?? []), ...(body?.(input.body) ?? [])];
        if (errors.length > 0) return send(refuse(400, errors.join('; ')));
        const result = await spec.handle({
          ...input,
          query: (req.query ?? {}) as Record<string, unknown>,
          ...(session ? { session } : {}),
          req,
          reply,
        });
        if ('sent' in result) return reply;
        return send(result);
      },
    });
  }
}
