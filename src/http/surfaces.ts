/**
 * The HTTP side of one gateway, built from the core services: the server with its surfaces (the
 * Open API, the console's API, health, the console's page), the two event streams (each its own
 * audience with the same bounds), and what the integrations add to both APIs and both streams.
 */
import type { FastifyInstance } from 'fastify';
import type { EventName } from '../core/event-bus.ts';
import type { RouteDecl } from '../core/route.ts';
import type { CoreServices } from '../core/services.ts';
import type { Clock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';
import type { Settings } from '../settings/index.ts';
import type { Db } from '../store/db.ts';
import { fitToOpenFileLimit } from './connection-guard.ts';
import { ConsoleAccess } from './console/access.ts';
import { consoleProjectionOf } from './console/events.ts';
import { consoleApiPlugin } from './console/plugin.ts';
import type { ConsoleServices } from './console/services.ts';
import { consoleStaticPlugin } from './console/static.ts';
import { type HealthOptions, healthPlugin } from './health/plugin.ts';
import { type OpenApiEvents, openApiProjectionOf, rawStreamRoute } from './open-api/events.ts';
import { openApiPlugin } from './open-api/plugin.ts';
import type { AnswerCheck } from './open-api/route.ts';
import type { OpenApiServices } from './open-api/services.ts';
import { buildServer, limitConnections } from './server.ts';
import { StreamWriter } from './stream/writer.ts';

/** Bounds of the streams and connections (settings `sse.*` and `http.*`). */
export interface WebLimits {
  heartbeatSeconds: number;
  clientQueue: number;
  clientQueueBytes: number;
  maxStreams: number;
  maxConnections: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/** The bounds of the settings. */
export function webLimits(s: Settings): WebLimits {
  return {
    heartbeatSeconds: s.sse.heartbeat_seconds,
    clientQueue: s.sse.client_queue,
    clientQueueBytes: s.sse.client_queue_bytes,
    maxStreams: s.sse.max_streams,
    maxConnections: s.http.max_connections,
    headersTimeoutMs: s.http.headers_timeout_ms,
    requestTimeoutMs: s.http.request_timeout_ms,
  };
}

export interface WebOptions {
  core: CoreServices;
  db: Db;
  log: Log;
  clock: Clock;
  limits: WebLimits;
  /** What only the Open API has beside the core services. */
  openApi: Omit<OpenApiServices, keyof CoreServices>;
  /** What only the console has beside the core services (its sessions are built here). */
  console: Omit<ConsoleServices, keyof CoreServices | 'access'>;
  health: Omit<HealthOptions, 'tokens'>;
  /** The routes and events the integrations add (known once they are loaded, before listening). */
  contributed: {
    routes: { openApi: readonly RouteDecl[]; console: readonly RouteDecl[] };
    events: { openApi: OpenApiEvents; console: readonly EventName[] };
  };
  answerCheck?: AnswerCheck | undefined;
  consoleDir?: string | undefined;
  /** Who is told of each request answered, if anyone (metrics). */
  onAnswered(): ((route: string, method: string, outcome: string) => void) | undefined;
}

export interface Web {
  app: FastifyInstance;
  /** The Open API's event stream. */
  sse: StreamWriter;
  console: { access: ConsoleAccess; stream: StreamWriter };
}

export function buildWeb(o: WebOptions): Web {
  const { core, log, clock, limits, contributed } = o;
  const streamLimits = {
    heartbeatMs: limits.heartbeatSeconds * 1000,
    queueLimit: limits.clientQueue,
    queueBytes: limits.clientQueueBytes,
    maxStreams: limits.maxStreams,
    clock,
    log,
  };
  const sse = new StreamWriter(
    core.bus,
    openApiProjectionOf(() => contributed.events.openApi),
    {
      ...streamLimits,
      allowOrigin: '*',
    },
  );
  const access = new ConsoleAccess({ db: o.db, clock, bus: core.bus, log });
  const stream = new StreamWriter(
    core.bus,
    consoleProjectionOf(() => contributed.events.console),
    streamLimits,
  );
  const app = buildServer(
    log,
    [
      {
        prefix: '/open-api',
        plugin: openApiPlugin({
          services: { ...core, ...o.openApi },
          stream: sse,
          contributed: () => contributed.routes.openApi,
          contributedEvents: () => contributed.events.openApi,
          ...(o.answerCheck ? { answerCheck: o.answerCheck } : {}),
        }),
      },
      {
        prefix: '/console/api',
        plugin: consoleApiPlugin({
          services: { ...core, ...o.console, access },
          stream,
          contributed: () => contributed.routes.console,
        }),
      },
      { prefix: '', plugin: healthPlugin({ ...o.health, tokens: core.tokens }) },
      { prefix: '', plugin: consoleStaticPlugin(o.consoleDir) },
    ],
    { onAnswered: o.onAnswered, rawRoutes: [rawStreamRoute(core.tokens, sse)] },
  );
  limitConnections(app, {
    maxConnections: fitToOpenFileLimit(limits.maxConnections, log),
    headersTimeoutMs: limits.headersTimeoutMs,
    requestTimeoutMs: limits.requestTimeoutMs,
    clock,
  });
  return { app, sse, console: { access, stream } };
}
