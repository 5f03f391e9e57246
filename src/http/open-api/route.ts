/**
 * Routes of the Open API declared as data: method, path, auth, the schemas of the path
 * parameters, query and body (in the catalog's schema language), the schema of the answer's
 * `data`, the spec id (G1..G9, D1..D6, S1..S5, T1, T3; `X-` for this gateway's own) and the error
 * codes. From one declaration come: the strict validator of the request (one message grammar,
 * `path: rule`, all problems at once), the Fastify route on both trees (v1, v2), and the OpenAPI
 * document. A handler receives checked input and returns a value; it never writes the envelope.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { compileTop } from '../../catalog/compile-strict.ts';
import { ErrorCode, type ErrorCodeValue, errorMessages, type Failed } from '../../catalog/errors.ts';
import type { Schema } from '../../catalog/schema.ts';
import type { Actor } from '../../core/actor.ts';
import type { Method, RouteDecl } from '../../core/route.ts';
import type { TokenInfo } from '../../core/tokens.ts';
import { sendFile } from '../routes/file.ts';
import { compileChecks, fastifyPath } from '../routes/input.ts';
import { bearerToken } from './auth.ts';
import { fail, ok } from './envelope.ts';

export type { Method };
export { fastifyPath };

/** What a handler is given: the checked input, and the request for what only it knows. */
export interface RouteInput<B = Record<string, unknown>, Q = Record<string, unknown>, P = Record<string, string>> {
  body: B;
  query: Q;
  params: P;
  /** The token that authorised the request (absent on routes without auth). */
  token?: TokenInfo;
  /** The app of that token, for the activity log (absent on routes without auth). */
  actor?: Actor;
  /** `v1` or `v2`: the tree the request came in on. */
  version: string;
  /** Where the client reached the gateway (`http://host:port`), for URLs handed out. */
  baseUrl: string;
  req: FastifyRequest;
  reply: FastifyReply;
}

/**
 * A handler's answer: success with `data`, an expected failure (the envelope with HTTP 200), or
 * `sent` when the handler wrote the reply itself (a stream, an image, a cached body).
 */
export type RouteResult = { ok: true; data?: object } | Failed | { sent: true };

/**
 * The core's route declaration (src/core/route.ts) with what is the Open API's own: the spec id,
 * the kind of auth, the documented formats, and a handler that may write the reply itself.
 */
export interface RouteSpec extends Omit<RouteDecl, 'method' | 'handle'> {
  /** G1..G9, D1..D6, S1..S5, T1, T3 as the spec numbers them; `X-<name>` for this gateway's own. */
  id: string;
  method: Method | readonly Method[];
  /**
   * `token`: `Authorization: Bearer <token>` (401 envelope otherwise); `token-or-query`: also
   * `?access_token=` (images and streams shown by an `<img>`); `none`; `handler`: the handler
   * checks it and answers in its own format (T1).
   */
  auth: 'token' | 'token-or-query' | 'none' | 'handler';
  /** A body that the handler (or a driver) reads itself, with its own messages: documented, not checked here. */
  requestDoc?: Schema;
  /** The media type of an answer that is not the JSON envelope. */
  produces?: string;
  /** Largest body (bytes) when more than the default 1 MiB. */
  bodyLimit?: number;
  /** false: the answer is not the REST envelope (T1 answers `{header, payload}`). */
  envelope?: boolean;
  /** Answers errors raised before the handler (an unparsable body) in the route's own format. */
  onError?: (err: Error & { code?: string; statusCode?: number }, req: FastifyRequest, reply: FastifyReply) => unknown;
  // biome-ignore lint/suspicious/noExplicitAny: the input is checked at run time against the declared schemas, which the types do not follow
  handle(input: RouteInput<any, any, any>): Promise<RouteResult> | RouteResult;
}

/** Declares a route (identity, for type checking and readability). */
export function route(spec: RouteSpec): RouteSpec {
  return spec;
}

/** Success with `data`. */
export const done = (data?: object): RouteResult => ({ ok: true, ...(data ? { data } : {}) });
/** An expected failure: the envelope with this code and message, HTTP 200. */
export const failed = (code: ErrorCodeValue, message: string): RouteResult => ({ ok: false, code, message });

/**
 * A route an integration declares (src/core/route.ts), as the Open API serves it: behind a token,
 * its id `X-` and its path's words (`X-probe-things`), the token's app as the actor, a refusal in
 * the envelope.
 */
export function openApiRoute(decl: RouteDecl): RouteSpec {
  // Path parameters count (`{id}` as `id`): `/things` and `/things/{id}` are two operations.
  const words = decl.path
    .split('/')
    .filter((p) => p !== '')
    .map((p) => p.replace(/[{}]/g, ''));
  return {
    ...decl,
    id: `X-${words.join('-')}`,
    auth: 'token',
    async handle(input) {
      // Behind a token: its actor is always there.
      const r = await decl.handle({ ...input, actor: input.actor as Actor });
      if (r.ok && r.file) {
        input.reply.outcome = '0';
        sendFile(input.reply, r.file);
        return { sent: true };
      }
      return r.ok ? done(r.data) : failed(r.code, r.message);
    },
  };
}

const NO_PARAMS: Record<string, string> = {};

/**
 * A handler's input. What few handlers read (the actor, the base URL) is worked out when read, by
 * getters of the class: every request passes here (GET bridge is polled), and an object literal's
 * getters would be two closures made for each one.
 */
class HandlerInput implements RouteInput {
  constructor(
    readonly params: Record<string, string>,
    readonly query: Record<string, unknown>,
    // biome-ignore lint/suspicious/noExplicitAny: checked at run time against the declared schema
    readonly body: any,
    readonly token: TokenInfo | undefined,
    readonly version: string,
    readonly req: FastifyRequest,
    readonly reply: FastifyReply,
  ) {}

  /** The token's app, for the activity log (read by the handlers of commands). */
  get actor(): Actor | undefined {
    const t = this.token;
    return t && { kind: 'app', tokenId: t.id, name: t.app_name };
  }

  /** Where the client reached the gateway (read by the few handlers that hand out a URL). */
  get baseUrl(): string {
    return `${this.req.protocol}://${this.req.host}`;
  }
}

/** Checks of answers, when asked for (tests): every success's `data` against the declared answer. */
export interface AnswerCheck {
  violations: { route: string; errors: string[] }[];
}

export interface RegisterOptions {
  /** Verifies a token (the token service). */
  verify(token: string | null | undefined): TokenInfo | undefined;
  answerCheck?: AnswerCheck;
}

// Add-ons compare this text (COMPAT.md), so it keeps the wording every gateway answers with rather
// than the `path: rule` form; the error catalog holds it once.
const AUTH_INVALID = errorMessages[ErrorCode.AUTH_FAILED];

/**
 * Registers the routes in a scope whose prefix has the path parameter `version` (every API tree at
 * once, src/http/open-api/plugin.ts); a handler sees that segment as `version`, not among its params.
 */
export function registerRoutes(app: FastifyInstance, routes: readonly RouteSpec[], opts: RegisterOptions): void {
  for (const spec of routes) {
    const checks = compileChecks(spec, spec.params ? withoutVersion : () => NO_PARAMS);
    const answer = opts.answerCheck && spec.answer ? compileTop(spec.answer, 'data') : undefined;
    const methods = Array.isArray(spec.method) ? [...spec.method] : [spec.method as Method];
    app.route({
      method: methods,
      url: fastifyPath(spec.path),
      ...(spec.bodyLimit ? { bodyLimit: spec.bodyLimit } : {}),
      ...(spec.onError ? { errorHandler: spec.onError } : {}),
      handler: async (req, reply) => {
        let token: TokenInfo | undefined;
        if (spec.auth === 'token' || spec.auth === 'token-or-query') {
          const q = req.query as Record<string, unknown> | undefined;
          const raw =
            bearerToken(req.headers.authorization) ??
            (spec.auth === 'token-or-query' && typeof q?.access_token === 'string' ? q.access_token : null);
          token = opts.verify(raw);
          if (!token) return sendEnvelope(reply, fail(401, AUTH_INVALID));
        }
        const version = (req.params as Record<string, string>).version as string;
        const { input, errors } = checks(req);
        if (errors.length > 0) return sendEnvelope(reply, fail(ErrorCode.INVALID_PARAMETERS, errors.join('; ')));
        // A handler that writes the envelope itself (a cached body, straight to the socket) writes a
        // success; a failure goes through sendEnvelope or sendFailure, which say so.
        if (spec.envelope !== false && !spec.produces) reply.outcome = '0';
        const result = await spec.handle(
          new HandlerInput(input.params, input.query, input.body, token, version, req, reply),
        );
        if ('sent' in result) return reply;
        if (!result.ok) return sendEnvelope(reply, fail(result.code, result.message));
        if (answer) {
          const problems = answer(result.data ?? {});
          if (problems.length > 0)
            opts.answerCheck?.violations.push({ route: `${spec.id} ${spec.path}`, errors: problems });
        }
        return sendEnvelope(reply, ok(result.data));
      },
    });
  }
}

/** A route's path parameters without the version segment, which handlers get as `version`. */
function withoutVersion(path: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(path)) if (key !== 'version') out[key] = path[key] as string;
  return out;
}

function sendEnvelope(reply: FastifyReply, body: { error: number }): FastifyReply {
  reply.outcome = String(body.error);
  return reply.code(200).type('application/json; charset=utf-8').send(body);
}
