/**
 * The HTTP server: Fastify with what every surface shares (body parsing, URL normalisation, the
 * answer to requests Node cannot parse, a graceful close), and the surfaces, each a sibling
 * plugin with its own conventions: the Open API under `/open-api` (envelope, HTTP 200 failures),
 * and, beside it, surfaces with ordinary HTTP statuses (the console's API, health). Every surface
 * registers in the one list the composition root passes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { type Clock, systemClock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';
import { installBodyParser } from './body.ts';
import { type GuardStats, guardConnections } from './connection-guard.ts';
import { fail, sendFailure } from './open-api/envelope.ts';
import { API_VERSIONS, routeForVersion, VERSION_SEGMENT } from './open-api/versions.ts';

declare module 'fastify' {
  interface FastifyReply {
    /** The outcome of the request for metrics: the envelope's error code on the Open API ('' elsewhere). */
    outcome: string;
  }
}

/** What the server tells of every request it answered (metrics). */
export interface ServerOptions {
  /**
   * Who is told of each request answered, if anyone (asked at each request: undefined costs no
   * route label). `route` is the route's pattern (`/open-api/v2/rest/devices/:serial_number`), or
   * `(no route)`.
   */
  onAnswered?(): ((route: string, method: string, outcome: string) => void) | undefined;
  /**
   * Handlers asked before Fastify, in order: one that takes the request answers it and returns
   * its route (for metrics); undefined passes it on. For what lives long (an event stream), where
   * Fastify's objects per request would be held for its whole life.
   */
  rawRoutes?: readonly RawRoute[];
}

/** A handler ahead of Fastify (ServerOptions.rawRoutes). */
export type RawRoute = (req: IncomingMessage, res: ServerResponse) => string | undefined;

/** A surface: a plugin and where it lives. */
export interface Surface {
  prefix: string;
  plugin: FastifyPluginAsync;
}

/** Bounds of connections (settings `http.*`; docs/security.md). */
export interface ServerLimits {
  maxConnections: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** The clock of the two timeouts (the gateway's). */
  clock?: Clock;
}

/**
 * Node's own timeouts stand behind the guard's (they run on real time, checked every 30 s):
 * this much later, so that they never fire first.
 */
const BACKSTOP_MS = 10_000;

const served = new WeakMap<FastifyInstance, { method: string; url: string }[]>();
const guards = new WeakMap<FastifyInstance, GuardStats>();

/** What the connection guard of a server did so far. */
export function connectionStats(app: FastifyInstance): GuardStats | undefined {
  return guards.get(app);
}

/**
 * Bounds the connections of a server built by buildServer, before it listens: the connection
 * guard (src/http/connection-guard.ts) with its two timeouts on the gateway's clock, and Node's
 * own timeouts behind them (Fastify's default request timeout is none: a body that never
 * completes would be held forever).
 */
export function limitConnections(app: FastifyInstance, limits: ServerLimits): void {
  app.server.requestTimeout = limits.requestTimeoutMs + BACKSTOP_MS;
  app.server.headersTimeout = limits.headersTimeoutMs + BACKSTOP_MS;
  guards.set(
    app,
    guardConnections(app.server, {
      maxConnections: limits.maxConnections,
      headersTimeoutMs: limits.headersTimeoutMs,
      requestTimeoutMs: limits.requestTimeoutMs,
      clock: limits.clock ?? systemClock,
      log: app.log,
    }),
  );
}

/** Every route the server serves (method and URL as registered), for the test that checks the OpenAPI document. */
export function servedRoutes(app: FastifyInstance): readonly { method: string; url: string }[] {
  return served.get(app) ?? [];
}

/** Longest path parameter (a serial number, a capability, a security mode id) the router takes. */
const MAX_PARAM_LENGTH = 500;

/** Lower-cases the version segment so `/open-api/V2/...` and `/open-api/v2/...` are one route. */
export function normalizeUrl(url: string): string {
  return url.replace(/^\/open-api\/(v\d+)(?=\/|$|\?)/i, (_m, v: string) => `/open-api/${v.toLowerCase()}`);
}

/**
 * The gateway's logger as Fastify sees it: the same lines, except Fastify's own "Server listening at"
 * (one per address) moves to debug, since the banner already says where clients reach the gateway.
 * Level changes made while running still apply: each call reads the logger's current method.
 */
function fastifyLogger(log: Log): FastifyBaseLogger {
  const wrapper = Object.create(log) as FastifyBaseLogger;
  wrapper.info = ((obj: unknown, ...rest: unknown[]) => {
    if (typeof obj === 'string' && obj.startsWith('Server listening at ')) return log.debug({}, obj);
    return (log.info as (...a: unknown[]) => void)(obj, ...rest);
  }) as FastifyBaseLogger['info'];
  return wrapper;
}

/**
 * Fastify's schema compilers (ajv, fast-json-stringify), loaded the first time a route declares a
 * Fastify schema. No route does: requests are checked by the catalog's compiled validators
 * (src/http/open-api/route.ts), and loading them at every start was about a third of the
 * server's code (docs/benchmarks.md). scripts/build.mjs keeps them out of the bundle.
 */
const lazyCompilers = (() => {
  const load = createRequire(import.meta.url);
  return {
    buildValidator: (...args: unknown[]) =>
      (load('@fastify/ajv-compiler') as () => (...a: unknown[]) => unknown)()(...args),
    buildSerializer: (...args: unknown[]) =>
      (load('@fastify/fast-json-stringify-compiler') as () => (...a: unknown[]) => unknown)()(...args),
  };
})();

/**
 * A node:http server that asks the raw routes before Fastify's handler, set up as Fastify sets up
 * its own (keep-alive, request and socket timeouts from its options).
 */
function rawFirst(raw: readonly RawRoute[], opts: ServerOptions) {
  return (
    handler: (req: IncomingMessage, res: ServerResponse) => void,
    options: { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number },
  ) => {
    const server = createServer((req, res) => {
      for (const r of raw) {
        const route = r(req, res);
        if (route === undefined) continue;
        // Told when the answer is complete, as Fastify's onResponse would (metrics).
        const onAnswered = opts.onAnswered?.();
        if (onAnswered) res.once('finish', () => onAnswered(route, req.method ?? 'GET', String(res.statusCode)));
        return;
      }
      handler(req, res);
    });
    if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
    server.setTimeout(options.connectionTimeout ?? 0);
    return server;
  };
}

/** Builds the server with its surfaces. It does not listen; the caller does (tests use inject()). */
export function buildServer(log: Log, surfaces: readonly Surface[], opts: ServerOptions = {}): FastifyInstance {
  const raw = opts.rawRoutes ?? [];
  const app = Fastify({
    loggerInstance: fastifyLogger(log),
    ...(raw.length > 0 ? { serverFactory: rawFirst(raw, opts) } : {}),
    schemaController: { compilersFactory: lazyCompilers as never },
    logController: new LogController({ disableRequestLogging: true }),
    // Requests are not logged, so a child logger per request (Fastify's default) is pure cost on
    // the hot path; errors are logged with their method and URL instead of a request id.
    childLoggerFactory: (logger) => logger,
    rewriteUrl: (req) => normalizeUrl(req.url ?? '/'),
    bodyLimit: 1024 * 1024,
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH },
    // A path parameter the router cannot decode (`%E0%A4%A`) or that is too long: the envelope,
    // not Fastify's own body with HTTP 400/414, which clients drop.
    frameworkErrors: (err, req, reply) => {
      const message =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `path: a parameter is longer than ${MAX_PARAM_LENGTH} characters`
          : err.code === 'FST_ERR_BAD_URL'
            ? 'path: a parameter is not valid percent-encoding'
            : err.message;
      // The console's own API answers in its own shape (an HTTP status and `{error}`), as its routes do.
      if (req.url?.startsWith('/console/api/')) {
        (reply as FastifyReply).code(400).type('application/json; charset=utf-8').send({ error: message });
        return;
      }
      reply.header('Access-Control-Allow-Origin', '*');
      sendFailure(reply, 400, message);
    },
    // A request Node cannot even parse still gets the envelope, so clients can read what went wrong.
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return;
      const code = (err as NodeJS.ErrnoException).code;
      const timeout = code === 'ERR_HTTP_REQUEST_TIMEOUT';
      const body = JSON.stringify(
        fail(
          400,
          timeout
            ? 'request timeout: the request did not arrive in time'
            : `malformed HTTP request: ${code ?? err.message}`,
        ),
      );
      socket.end(
        `HTTP/1.1 ${timeout ? '408 Request Timeout' : '400 Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  });
  installBodyParser(app);
  app.decorateReply('outcome', '');
  app.addHook('onResponse', (req, reply, done) => {
    const outcome = reply.outcome || String(reply.statusCode);
    const onAnswered = opts.onAnswered?.();
    if (onAnswered) {
      const url = req.routeOptions.url;
      const route =
        url === undefined
          ? '(no route)'
          : routeForVersion(url, (req.params as { version?: string } | undefined)?.version ?? '');
      onAnswered(route, req.method, outcome);
    }
    // The URL may carry `?access_token=`: the logger takes it out.
    if (log.isLevelEnabled?.('debug'))
      log.debug(
        { method: req.method, url: req.url, status: reply.statusCode, outcome, ms: Math.round(reply.elapsedTime) },
        'request',
      );
    done();
  });
  const routes: { method: string; url: string }[] = [];
  served.set(app, routes);
  app.addHook('onRoute', (r) => {
    // A route of every Open API version is listed once per version, as clients call it.
    const urls = r.url.includes(VERSION_SEGMENT) ? API_VERSIONS.map((v) => routeForVersion(r.url, v)) : [r.url];
    for (const method of Array.isArray(r.method) ? r.method : [r.method])
      for (const url of urls) routes.push({ method, url });
  });

  // Once the gateway stops, each answer closes its connection: a keep-alive connection whose request
  // was in flight when the stop began would otherwise hold the close until it times out (72 s).
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });

  const notFound = (req: FastifyRequest, reply: FastifyReply) =>
    reply.code(404).send(fail(404, `not found: ${req.method} ${req.url.split('?')[0]}`));
  app.setNotFoundHandler(notFound);
  // A body Fastify refuses before routing (too large, cut off) on a path no surface serves still
  // gets the 404 envelope, not Fastify's own body (found by npm run fuzz). On a route of a surface
  // without its own handler (health, the console's files), the refusal says what it is.
  app.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    const status = err.statusCode;
    const served = req.routeOptions.url !== undefined;
    if (status === undefined || status >= 500) {
      log.error({ err, url: req.url }, 'request failed');
      return served ? reply.code(500).send(fail(500)) : notFound(req, reply);
    }
    return served ? reply.code(status).send(fail(400, err.message)) : notFound(req, reply);
  });
  for (const s of surfaces) app.register(s.plugin, { prefix: s.prefix });
  return app;
}

/**
 * Closes a server gracefully: waits for the requests in flight (their store writes are
 * synchronous, so they are complete). A client that never sends the rest of its request would
 * hold the close for minutes: after `graceMs`, longer than any request runs, such connections
 * are cut.
 */
export async function closeServer(app: FastifyInstance, graceMs: number): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
