import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  LogController,
  type preHandlerAsyncHookHandler,
} from 'fastify';
import { ApiError } from '../catalog/errors.ts';
import { requireAuth } from './auth.ts';
import { installBodyParser } from './body.ts';
import type { HttpContext } from './context.ts';
import { fail, sendFailure } from './envelope.ts';
import { bridgeRoutes } from './routes/bridge.ts';
import { hardwareRoutes } from './routes/hardware.ts';
import { securityRoutes } from './routes/security.ts';
import { type SseHub, sseRoutes } from './sse.ts';

/** API versions served; every REST and SSE path exists under each (COMPAT.md). */
export const API_VERSIONS = ['v1', 'v2'] as const;

/** A module of REST routes, registered once per API version under `/open-api/<v>/rest`. */
export type RestModule = (app: FastifyInstance, auth: preHandlerAsyncHookHandler) => void;

export interface AppOptions {
  /** REST modules beyond the gateway's own (devices, third party, tts, media...). */
  modules?: RestModule[];
  /** Extra registrations outside the REST tree (console, local API). */
  extra?: ((app: FastifyInstance) => void)[];
  sse: SseHub;
}

/** Longest path parameter (a serial number, a capability, a security mode id) the router takes. */
const MAX_PARAM_LENGTH = 500;

/** Lower-cases the version segment so `/open-api/V2/...` and `/open-api/v2/...` are one route. */
export function normalizeUrl(url: string): string {
  return url.replace(/^\/open-api\/(v\d+)(?=\/|$|\?)/i, (_m, v: string) => `/open-api/${v.toLowerCase()}`);
}

/** Builds the Fastify app of the API. It does not listen; the caller does (tests use inject()). */
export function buildApp(ctx: HttpContext, opts: AppOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
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
    frameworkErrors: (err, _req, reply) => {
      const message =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `path: a parameter is longer than ${MAX_PARAM_LENGTH} characters`
          : err.code === 'FST_ERR_BAD_URL'
            ? 'path: a parameter is not valid percent-encoding'
            : err.message;
      reply.header('Access-Control-Allow-Origin', '*');
      sendFailure(reply, 400, message);
    },
    // A request Node cannot even parse still gets the envelope, so clients can read what went wrong.
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return;
      const body = JSON.stringify(
        fail(400, `malformed HTTP request: ${(err as NodeJS.ErrnoException).code ?? err.message}`),
      );
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  });
  installBodyParser(app);
  const auth = requireAuth(ctx.tokens);

  app.setErrorHandler((err: Error & { code?: string; validation?: unknown }, req, reply) => {
    if (err instanceof ApiError) return sendFailure(reply, err.error, err.message);
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendFailure(reply, 400, 'body is larger than 1 MiB');
    // A client fault Fastify or Node reports (a 4xx status: e.g. a body cut off by the client) is no server fault.
    const status = (err as { statusCode?: number }).statusCode;
    const clientFault = status !== undefined && status >= 400 && status < 500;
    if (err.validation || err.code?.startsWith('FST_ERR_CTP') || err.code === 'FST_ERR_BAD_URL' || clientFault) {
      return sendFailure(reply, 400, err.message);
    }
    req.log.error({ err, url: req.url, method: req.method }, 'request failed');
    return sendFailure(reply, 500, 'server exception');
  });

  // Browser clients (dashboards) call the API from other origins; tokens travel in headers, not cookies.
  // A callback hook, not an async one: it runs on every request, and a promise per request costs.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('Access-Control-Allow-Origin', '*');
    if (req.method === 'OPTIONS') {
      reply
        .code(204)
        .header('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS')
        .header('Access-Control-Allow-Headers', 'Authorization, Content-Type, Last-Event-ID')
        .header('Access-Control-Max-Age', '86400')
        .send();
      return;
    }
    done();
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

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(fail(404, `not found: ${req.method} ${req.url.split('?')[0]}`));
  });

  const modules: RestModule[] = [bridgeRoutes(ctx), hardwareRoutes(ctx), securityRoutes(ctx), ...(opts.modules ?? [])];
  for (const version of API_VERSIONS) {
    app.register(
      async (scope) => {
        for (const mod of modules) mod(scope, auth);
      },
      { prefix: `/open-api/${version}/rest` },
    );
    app.register(sseRoutes(ctx, opts.sse, version), { prefix: `/open-api/${version}/sse` });
  }
  for (const register of opts.extra ?? []) register(app);
  return app;
}
