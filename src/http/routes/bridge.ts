import type { IncomingMessage } from 'node:http';
import type { RestModule } from '../app.ts';
import { bodyObject, isObject, wellFormed } from '../body.ts';
import type { HttpContext } from '../context.ts';
import { ok } from '../envelope.ts';
import { intField } from '../fields.ts';

const LINK_REFUSED = '{"error":401,"data":{},"message":"link button not pressed"}';

/**
 * Reads the JSON body of a GET (Fastify parses no bodies on GET) and returns its app_name.
 * Only a small body is read, and only for a short time: a poll must be answered at once.
 */
function appNameFromGetBody(raw: IncomingMessage): Promise<unknown> {
  const length = Number(raw.headers['content-length'] ?? 0);
  if (!(length > 0 && length <= 4096) || raw.readableEnded) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let text = '';
    const done = (value: unknown) => {
      clearTimeout(timer);
      raw.removeAllListeners('data');
      resolve(value);
    };
    const timer = setTimeout(() => done(undefined), 1000);
    raw.setEncoding('utf8');
    raw.on('data', (chunk: string) => {
      text += chunk;
    });
    raw.once('end', () => {
      try {
        const body = JSON.parse(text);
        done(isObject(body) ? body.app_name : undefined);
      } catch {
        done(undefined);
      }
    });
    raw.once('error', () => done(undefined));
  });
}

/** Gateway module: G1-G7. */
export function bridgeRoutes(ctx: HttpContext): RestModule {
  return (app, auth) => {
    // G1: answered at once and cheaply; many clients poll it every 0.5 s.
    app.get('/bridge/access_token', async (req, reply) => {
      // app_name comes in the query string or, from some clients, in a JSON body of the GET.
      const query = req.query as Record<string, unknown>;
      const raw = query.app_name ?? (await appNameFromGetBody(req.raw));
      // Well-formed, so that the app_name answered is the one stored (a cut can split a surrogate pair).
      const appName = typeof raw === 'string' && raw.length > 0 ? wellFormed(raw.slice(0, 200)) : undefined;
      const grant = ctx.tokens.poll(appName);
      if (!grant.ok) return reply.type('application/json; charset=utf-8').send(LINK_REFUSED);
      return ok(
        grant.app_name === undefined ? { token: grant.token } : { token: grant.token, app_name: grant.app_name },
      );
    });

    app.get('/bridge/runtime', { preHandler: auth }, async () => ok(ctx.runtime.read()));

    app.put('/bridge/config', { preHandler: auth }, async (req) => {
      const body = bodyObject(req.body);
      const volume = intField(body, 'volume', { min: 0, max: 100 });
      if (volume !== undefined) ctx.speaker.setVolume(volume);
      return ok();
    });

    // G4 needs no token; its bytes only change when settings do, so they are built once.
    // ctx.info() returns the same object until something in it changes.
    let cached: { info: object; bytes: string } | undefined;
    app.get('/bridge', async (_req, reply) => {
      const info = ctx.info();
      if (cached?.info !== info) cached = { info, bytes: JSON.stringify(ok(info)) };
      return reply.type('application/json; charset=utf-8').send(cached.bytes);
    });

    app.put('/bridge/mute', { preHandler: auth }, async () => {
      ctx.speaker.mute();
      return ok();
    });
    app.put('/bridge/unmute', { preHandler: auth }, async () => {
      ctx.speaker.unmute();
      return ok();
    });
    app.put('/bridge/cancel_alarm', { preHandler: auth }, async () => {
      ctx.alarm.cancel();
      ctx.speaker.cancelSound();
      return ok();
    });
  };
}
