/** Logging in and out, the first-run setup, the password, and the sessions. */

import type { FastifyReply, FastifyRequest } from 'fastify';
import { obj, str } from '../../../catalog/schema.ts';
import type { LoginClient, LoginOutcome } from '../access.ts';
import { DEVICE_COOKIE } from '../device-cookie.ts';
import {
  COOKIE,
  type ConsoleResult,
  type ConsoleRoute,
  consoleRoute,
  cookieValue,
  ok,
  refusal,
  refuse,
} from '../route.ts';
import type { ConsoleServices } from '../services.ts';

const secret = str({ maxLength: 1024 });

function cookie(value: string, maxAgeSeconds: number): string {
  // HttpOnly: page scripts never see it; SameSite=Strict: no other site's page makes the browser send it.
  return `${COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}`;
}

function client(req: FastifyRequest): LoginClient {
  const agent = req.headers['user-agent'];
  const device = cookieValue(req.headers.cookie, DEVICE_COOKIE);
  return {
    address: req.socket.remoteAddress ?? '',
    userAgent: typeof agent === 'string' ? agent : '',
    ...(device ? { deviceCookie: device } : {}),
  };
}

/** A login outcome as an answer: the cookie on success, else the refusal as every console route writes it. */
function answer(r: LoginOutcome, reply: FastifyReply, maxAgeSeconds: number): ConsoleResult {
  if (r.ok) {
    reply.header('set-cookie', [cookie(r.cookie, maxAgeSeconds), r.deviceCookie]);
    return ok({ session: r.session });
  }
  if (r.retryAfterSeconds !== undefined) reply.header('retry-after', String(r.retryAfterSeconds));
  return refusal(r);
}

/** Session cookies live as long as a session may stay unused. */
const MAX_AGE = 30 * 24 * 60 * 60;
/**
 * How long after a restore the login page says that the password is now the backup's: the day
 * in which the people whose sessions the restore ended come back to the console.
 */
export const RESTORE_NOTICE_MS = 24 * 60 * 60 * 1000;

export function authRoutes(s: ConsoleServices): ConsoleRoute[] {
  return [
    consoleRoute({
      method: 'GET',
      path: '/auth',
      auth: 'none',
      handle({ req }) {
        const session = s.access.verify(cookieValue(req.headers.cookie, COOKIE));
        const restored = s.restoredAt();
        const recent = restored !== null && s.clock.now() - restored < RESTORE_NOTICE_MS;
        const passwordSet = s.access.hasPassword();
        return ok({
          password_set: passwordSet,
          logged_in: session !== undefined,
          name: s.info().name,
          restored_at: recent ? new Date(restored).toISOString() : null,
          // Until a password is set, the setup page says how to set one on the gateway's machine.
          ...(passwordSet ? {} : { passwd_command: s.cliCommand('passwd') }),
        });
      },
    }),
    consoleRoute({
      method: 'POST',
      path: '/auth/login',
      auth: 'none',
      body: obj({ password: secret }, { open: true }),
      async handle({ body, req, reply }) {
        return answer(await s.access.login(body.password, client(req)), reply, MAX_AGE);
      },
    }),
    consoleRoute({
      method: 'POST',
      path: '/auth/setup',
      auth: 'none',
      body: obj({ code: str({ maxLength: 100 }), password: secret }, { open: true }),
      async handle({ body, req, reply }) {
        return answer(await s.access.setup(body.code, body.password, client(req)), reply, MAX_AGE);
      },
    }),
    consoleRoute({
      method: 'POST',
      path: '/auth/logout',
      auth: 'session',
      handle({ session, reply }) {
        if (session) s.access.revoke(session.id);
        reply.header('set-cookie', cookie('', 0));
        return ok();
      },
    }),
    consoleRoute({
      method: 'PUT',
      path: '/auth/password',
      auth: 'session',
      body: obj({ current: secret, password: secret }, { open: true }),
      async handle({ body, req, reply }) {
        return answer(await s.access.changePassword(body.current, body.password, client(req)), reply, MAX_AGE);
      },
    }),
    consoleRoute({
      method: 'GET',
      path: '/sessions',
      auth: 'session',
      handle: ({ session }) => ok({ sessions: s.access.list().map((x) => ({ ...x, current: x.id === session?.id })) }),
    }),
    consoleRoute({
      method: 'DELETE',
      path: '/sessions/{id}',
      auth: 'session',
      params: { id: str({ maxLength: 64 }) },
      handle: ({ params }) =>
        s.access.revoke(params.id) ? ok() : refuse(404, `no session ${params.id} (it may have ended already)`),
    }),
  ];
}
