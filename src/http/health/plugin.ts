/**
 * The operations surface beside the Open API, with ordinary HTTP statuses (for service managers,
 * load balancers, container probes and Prometheus, none of which read the envelope):
 * - `GET /health`: liveness, 200 whenever the process answers;
 * - `GET /ready`: 200 when the store is open and every configured driver is connected, else 503
 *   with the reasons;
 * - `GET /metrics`: the Prometheus text format, when the `metrics` setting turns it on (with a
 *   token of the Open API, or open); 404 saying how to turn it on otherwise.
 */
import type { FastifyInstance } from 'fastify';
import type { TokenService } from '../../core/tokens.ts';
import { bearerToken } from '../open-api/auth.ts';

/** One check of readiness. */
export interface ReadyCheck {
  name: string;
  ok: boolean;
  reason?: string;
}

export interface HealthOptions {
  /** The checks of readiness, run at each request (each is cheap). */
  checks(): ReadyCheck[];
  /** Who may read the metrics when they are not open: a token of the Open API. */
  tokens: Pick<TokenService, 'verify'>;
  /** The metrics, when the `metrics` setting turns them on (the metrics integration's status). */
  metrics(): { open: boolean; text(): Promise<string>; contentType: string } | undefined;
}

/** The plugin; register it at the root (prefix ''). */
export function healthPlugin(opts: HealthOptions) {
  return async (scope: FastifyInstance) => {
    scope.get('/health', async (_req, reply) => reply.code(200).send({ status: 'ok' }));

    scope.get('/ready', async (_req, reply) => {
      const checks = opts.checks();
      const ready = checks.every((c) => c.ok);
      const reasons = checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.reason ?? 'not ready'}`);
      return reply.code(ready ? 200 : 503).send({ ready, checks, ...(ready ? {} : { reasons }) });
    });

    scope.get('/metrics', async (req, reply) => {
      const m = opts.metrics();
      if (!m)
        return reply
          .code(404)
          .type('text/plain; charset=utf-8')
          .send('metrics are off: start the gateway with --metrics token (or open); see docs/operations.md\n');
      if (!m.open && opts.tokens.verify(bearerToken(req.headers.authorization)) === null)
        return reply
          .code(401)
          .header('WWW-Authenticate', 'Bearer')
          .type('text/plain; charset=utf-8')
          .send('metrics need an access token of the Open API: Authorization: Bearer <token>\n');
      return reply
        .code(200)
        .type(m.contentType)
        .send(await m.text());
    });
  };
}
