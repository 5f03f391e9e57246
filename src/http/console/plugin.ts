/**
 * The console's API as one Fastify plugin under `/console/api`, beside the Open API and never
 * mixed with it: a session cookie instead of tokens, ordinary HTTP statuses, `{error}` bodies in
 * words, no CORS (only the console's own page uses it), and its own event stream. Every module
 * of routes registers in MODULES; the integrations' routes come in `contributed`.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../catalog/errors.ts';
import type { RouteDecl } from '../../core/route.ts';
import type { StreamWriter } from '../stream/writer.ts';
import { consoleStreamRoute } from './events.ts';
import { type ConsoleRoute, consoleRouteOf, registerConsoleRoutes } from './route.ts';
import { authRoutes } from './routes/auth.ts';
import { cardRoutes } from './routes/cards.ts';
import { deviceRoutes } from './routes/devices.ts';
import { gatewayRoutes, RESTORE_LIMIT } from './routes/gateway.ts';
import { linkRoutes } from './routes/link.ts';
import { securityRoutes } from './routes/security.ts';
import type { ConsoleServices } from './services.ts';

const MODULES: readonly ((s: ConsoleServices, onClose: (fn: () => void) => void) => ConsoleRoute[])[] = [
  authRoutes,
  linkRoutes,
  deviceRoutes,
  securityRoutes,
  gatewayRoutes,
  cardRoutes,
];

export interface ConsoleApiOptions {
  services: ConsoleServices;
  stream: StreamWriter;
  /** The routes the integrations add (read when the server starts listening). */
  contributed?: () => readonly RouteDecl[];
}

/** The plugin; register it with `{ prefix: '/console/api' }`. */
export function consoleApiPlugin(opts: ConsoleApiOptions) {
  return async (scope: FastifyInstance) => {
    const closers: (() => void)[] = [];
    const routes = [
      ...MODULES.flatMap((m) => m(opts.services, (fn) => closers.push(fn))),
      ...(opts.contributed?.() ?? []).map(consoleRouteOf),
    ];
    scope.addHook('preClose', (done) => {
      for (const fn of closers) fn();
      done();
    });
    scope.addHook('onRequest', (req, reply, done) => {
      reply.header('x-content-type-options', 'nosniff');
      reply.header('x-frame-options', 'DENY');
      // A DNS-rebinding page reaches the gateway under a name of its own, and is then "same
      // origin" to itself: the Host must be one of the gateway's, as for token requests (G1).
      if (!opts.services.ownHost(req.headers.host)) {
        reply
          .code(403)
          .header('cache-control', 'no-store')
          .send({
            error: `this gateway does not answer the console for host ${JSON.stringify(req.headers.host)} (add it to allowed_hosts)`,
          });
        return;
      }
      done();
    });
    // A backup comes back as the file it was (restore); every other body is JSON.
    scope.addContentTypeParser(
      'application/octet-stream',
      { parseAs: 'buffer', bodyLimit: RESTORE_LIMIT },
      (_req, body, done) => done(null, body),
    );
    scope.setErrorHandler((err: Error & { code?: string; statusCode?: number }, req, reply) => {
      // The shared body parser's refusals (not JSON, nested too deep) are the client's fault.
      if (err instanceof ApiError) return reply.code(400).send({ error: err.message });
      const status = err.statusCode;
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send({ error: 'the request is too large' });
      if (status !== undefined && status >= 400 && status < 500) return reply.code(status).send({ error: err.message });
      opts.services.log.error({ err, url: req.url, method: req.method }, 'console request failed');
      return reply.code(500).send({ error: 'the gateway failed to do this; its log says why' });
    });
    scope.setNotFoundHandler((req, reply) => {
      reply.code(404).send({ error: `no such console request: ${req.method} ${req.url.split('?')[0]}` });
    });
    registerConsoleRoutes(scope, routes, { verify: (c) => opts.services.access.verify(c) });
    consoleStreamRoute(scope, opts.services.access, opts.stream);
  };
}
