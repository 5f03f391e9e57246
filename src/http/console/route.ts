/**
 * Routes of the console's API declared as data, with the conventions of this surface: ordinary
 * HTTP statuses (400, 401, 403, 404, 409, 429, 502...), JSON bodies `{error: "<words>"}` on
 * failure, bodies checked by the catalog's schema language (one message grammar, `path: rule`),
 * a session cookie for every route but login, and an Origin check on every request that changes
 * state (a page of another site cannot make the browser act with the user's cookie).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../../core/actor.ts';
import type { Method, Refusal, RouteDecl } from '../../core/route.ts';
import { sendFile } from '../routes/file.ts';
import { compileChecks, fastifyPath } from '../routes/input.ts';
import type { SessionInfo } from './access.ts';
import { statusOf } from './words.ts';

export type { Method };

export interface ConsoleInput<B = Record<string, unknown>, P = Record<string, string>> {
  body: B;
  params: P;
  query: Record<string, unknown>;
  /** The session (absent on routes without auth). */
  session?: SessionInfo;
  /** The console and its session, for the activity log (absent on routes without auth). */
  actor?: Actor;
  req: FastifyRequest;
  reply: FastifyReply;
}

/** An answer with a status and a JSON body. */
export type Answer = { status: number; body?: unknown };
/** A handler's answer, or `sent` when it wrote the reply itself. */
export type ConsoleResult = Answer | { sent: true };

/** The core's route declaration (src/core/route.ts) with the console's own: its auth, and a handler that answers a status. */
export interface ConsoleRoute extends Pick<RouteDecl, 'method' | 'path' | 'params' | 'query' | 'body'> {
  auth: 'session' | 'none';
  // biome-ignore lint/suspicious/noExplicitAny: the input is checked at run time against the declared schemas
  handle(input: ConsoleInput<any, any>): Promise<ConsoleResult> | ConsoleResult;
}

/** Declares a route (identity, for type checking and readability). */
export const consoleRoute = (r: ConsoleRoute): ConsoleRoute => r;

/** 200 with a JSON body. */
export const ok = (body: unknown = {}): Answer => ({ status: 200, body });
/** A failure with its status and words a person reads. */
export const refuse = (status: number, error: string): Answer => ({ status, body: { error } });
/** The core's refusal as this surface writes it: its status (the code's own unless it says one) and its words. */
export const refusal = (r: Refusal): Answer => refuse(r.status ?? statusOf(r.code), r.message);

/**
 * A route an integration declares (src/core/route.ts), as the console serves it: behind a
 * session, the session as the actor, a refusal as its HTTP status and `{error}` in words.
 */
export function consoleRouteOf(decl: RouteDecl): ConsoleRoute {
  return {
    method: decl.method,
    path: decl.path,
    auth: 'session',
    ...(decl.params ? { params: decl.params } : {}),
    ...(decl.query ? { query: decl.query } : {}),
    ...(decl.body ? { body: decl.body } : {}),
    async handle(input) {
      // Behind a session: its actor is always there.
      const r = await decl.handle({ ...input, actor: input.actor as Actor });
      if (r.ok && r.file) {
        sendFile(input.reply, r.file);
        return { sent: true };
      }
      return r.ok ? ok(r.data ?? {}) : refusal(r);
    },
  };
}

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

export interface RegisterOptions {
  verify(cookie: string | undefined): SessionInfo | undefined;
}

/** Registers the routes in the console's scope. */
export function registerConsoleRoutes(app: FastifyInstance, routes: readonly ConsoleRoute[], opts: RegisterOptions) {
  for (const spec of routes) {
    const checks = compileChecks(spec, (p) => p);
    app.route({
      method: spec.method,
      url: fastifyPath(spec.path),
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
        const { input, errors } = checks(req);
        if (errors.length > 0) return send(refuse(400, errors.join('; ')));
        const result = await spec.handle({
          ...input,
          ...(session ? { session, actor: { kind: 'console', sessionId: session.id } } : {}),
          req,
          reply,
        });
        if ('sent' in result) return reply;
        return send(result);
      },
    });
  }
}
