/**
 * The Open API as one Fastify plugin under `/open-api`, carrying its conventions: every REST path
 * under both trees (`v1`, `v2`, the segment in any case), every failure HTTP 200 with the envelope
 * (clients drop non-2xx bodies), an unknown path HTTP 404 with the envelope, permissive CORS (its
 * clients are apps and servers; tokens travel in headers, not cookies), the event stream, and the
 * generated OpenAPI and AsyncAPI documents. Every module of routes registers in MODULES; the
 * integrations' routes come in `contributed`.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../catalog/errors.ts';
import type { RouteDecl } from '../../core/route.ts';
import type { StreamWriter } from '../stream/writer.ts';
import { asyncApiDocument } from './asyncapi.ts';
import { fail, sendFailure } from './envelope.ts';
import { type OpenApiEvents, streamRoute } from './events.ts';
import { openApiDocument } from './openapi.ts';
import { type AnswerCheck, openApiRoute, type RouteSpec, registerRoutes } from './route.ts';
import { cameraRoutes } from './routes/cameras.ts';
import { debugLogRoutes } from './routes/debug-log.ts';
import { deviceRoutes } from './routes/devices.ts';
import { gatewayRoutes } from './routes/gateway.ts';
import { mediaRoutes } from './routes/media.ts';
import { screenRoutes } from './routes/screen.ts';
import { securityRoutes } from './routes/security.ts';
import { thirdPartyRoutes } from './routes/thirdparty.ts';
import { ttsRoutes } from './routes/tts.ts';
import { uiRoutes } from './routes/ui.ts';
import type { OpenApiServices } from './services.ts';
import { API_VERSIONS, VERSION_SEGMENT } from './versions.ts';

/** The modules of the Open API, in the order of the spec. A new module is one more line here. */
const MODULES: readonly ((s: OpenApiServices, onClose: (fn: () => void) => void) => RouteSpec[])[] = [
  gatewayRoutes,
  securityRoutes,
  deviceRoutes,
  thirdPartyRoutes,
  debugLogRoutes,
  ttsRoutes,
  mediaRoutes,
  cameraRoutes,
  uiRoutes,
  screenRoutes,
];

/** Every route declaration (also for the documents, with services that are never called). */
export function openApiRoutes(s: OpenApiServices, onClose: (fn: () => void) => void = () => {}): RouteSpec[] {
  return MODULES.flatMap((m) => m(s, onClose));
}

export interface OpenApiOptions {
  services: OpenApiServices;
  stream: StreamWriter;
  /** Tests: every success's `data` is checked against the declared answer schema. */
  answerCheck?: AnswerCheck;
  /** The routes the integrations add (read when the server starts listening). */
  contributed?: () => readonly RouteDecl[];
  /** The events the integrations add (for the AsyncAPI document). */
  contributedEvents?: () => OpenApiEvents;
}

/** The plugin; register it with `{ prefix: '/open-api' }`. */
export function openApiPlugin(opts: OpenApiOptions) {
  return async (scope: FastifyInstance) => {
    const closers: (() => void)[] = [];
    const routes = [
      ...openApiRoutes(opts.services, (fn) => closers.push(fn)),
      ...(opts.contributed?.() ?? []).map(openApiRoute),
    ];
    scope.addHook('preClose', (done) => {
      for (const fn of closers) fn();
      done();
    });

    // A callback hook, not an async one: it runs on every request, and a promise per request costs.
    scope.addHook('onRequest', (req, reply, done) => {
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

    scope.setErrorHandler((err: Error & { code?: string; validation?: unknown; statusCode?: number }, req, reply) => {
      // An unknown path is a 404 whatever its body, also one too large to read (found by npm run fuzz).
      if (req.is404) return reply.code(404).send(fail(404, `not found: ${req.method} ${req.url.split('?')[0]}`));
      if (err instanceof ApiError) return sendFailure(reply, err.failure.code, err.message);
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendFailure(reply, 400, 'body is larger than 1 MiB');
      // A client fault Fastify or Node reports (a 4xx status: e.g. a body cut off by the client) is no server fault.
      const status = err.statusCode;
      const clientFault = status !== undefined && status >= 400 && status < 500;
      if (err.validation || err.code?.startsWith('FST_ERR_CTP') || err.code === 'FST_ERR_BAD_URL' || clientFault)
        return sendFailure(reply, 400, err.message);
      opts.services.log.error({ err, url: req.url, method: req.method }, 'request failed');
      return sendFailure(reply, 500, 'server exception');
    });

    scope.setNotFoundHandler((req, reply) => {
      reply.code(404).send(fail(404, `not found: ${req.method} ${req.url.split('?')[0]}`));
    });

    // The REST routes once for every version: one tree whose version segment is a path parameter
    // that matches only a served version (registering each tree apart doubled the route work at
    // every start, docs/benchmarks.md). The handler reads the version from it.
    scope.register(
      async (tree) => {
        registerRoutes(tree, routes, {
          verify: (t) => opts.services.tokens.verify(t) ?? undefined,
          ...(opts.answerCheck ? { answerCheck: opts.answerCheck } : {}),
        });
      },
      { prefix: `/${VERSION_SEGMENT}/rest` },
    );
    for (const version of API_VERSIONS)
      scope.register(streamRoute(opts.services.tokens, opts.stream, version), { prefix: `/${version}/sse` });

    // The documents of this API, generated from the declarations (also in docs/) when first asked
    // for: a start does not pay for them.
    let openapi: string | undefined;
    let asyncapi: string | undefined;
    scope.get('/openapi.json', async (_req, reply) => {
      openapi ??= JSON.stringify(openApiDocument(routes));
      return reply.type('application/json; charset=utf-8').send(openapi);
    });
    scope.get('/asyncapi.json', async (_req, reply) => {
      asyncapi ??= JSON.stringify(asyncApiDocument(opts.contributedEvents?.()));
      return reply.type('application/json; charset=utf-8').send(asyncapi);
    });
  };
}
