/** The gateway module (spec 4.1): G1-G9. */
import type { IncomingMessage } from 'node:http';
import { normalizeBeepName } from '../../../catalog/index.ts';
import { any, obj, opt } from '../../../catalog/schema.ts';
import { isObject } from '../../../lib/object.ts';
import { wellFormed } from '../../../lib/text.ts';
import { ok } from '../envelope.ts';
import { done, failed, type RouteSpec, route } from '../route.ts';
import type { OpenApiServices } from '../services.ts';
import { body, gatewayInfo, runtime, speakerBody, volume } from '../wire.ts';

/**
 * Reads the JSON body of a GET (Fastify parses no bodies on GET) and returns its app_name.
 * Only a small body is read, and only for a short time: a poll must be answered at once.
 */
function appNameFromGetBody(raw: IncomingMessage): Promise<unknown> {
  const length = Number(raw.headers['content-length'] ?? 0);
  if (!(length > 0 && length <= 4096) || raw.readableEnded) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let text = '';
    const finish = (value: unknown) => {
      clearTimeout(timer);
      raw.removeAllListeners('data');
      resolve(value);
    };
    const timer = setTimeout(() => finish(undefined), 1000);
    raw.setEncoding('utf8');
    raw.on('data', (chunk: string) => {
      text += chunk;
    });
    raw.once('end', () => {
      try {
        const parsed = JSON.parse(text);
        finish(isObject(parsed) ? parsed.app_name : undefined);
      } catch {
        finish(undefined);
      }
    });
    raw.once('error', () => finish(undefined));
  });
}

/** G1-G9. */
export function gatewayRoutes(s: OpenApiServices): RouteSpec[] {
  // G4 needs no token and is polled by dashboards: its bytes change only when the info does.
  let g4: { info: object; bytes: string } | undefined;
  return [
    route({
      id: 'G1',
      method: 'GET',
      path: '/bridge/access_token',
      summary: 'Obtain a token (polled until the link button is pressed)',
      description:
        'Answers 401 `link button not pressed` until the user approves (the link button); then, for 5 minutes at most, a token (the same one for repeated polls of one app_name). `app_name` is read from the query or from a JSON body of the GET.',
      auth: 'none',
      query: obj({ app_name: opt(any('string; other types are ignored')) }),
      answer: obj({ token: { kind: 'string' }, app_name: opt({ kind: 'string' }) }),
      async handle({ query, req, reply }) {
        // A token must never reach a web page: no CORS on this answer (browsers keep it from a
        // page of another origin), a request sent by a page (it carries an Origin) is refused, and
        // so is a request under a name that is not the gateway's (a DNS-rebinding page). Native
        // clients and servers send no Origin and reach the gateway by its address (docs/security.md).
        reply.removeHeader('Access-Control-Allow-Origin');
        const asked = typeof query.app_name === 'string' ? wellFormed(query.app_name.slice(0, 200)) : undefined;
        if (req.headers.origin !== undefined) {
          s.tokens.refusedPoll(asked, `the request came from a web page (${String(req.headers.origin).slice(0, 200)})`);
          return failed(401, 'link button not pressed: token requests from web pages are not answered');
        }
        if (!s.ownHost(req.headers.host)) {
          s.tokens.refusedPoll(asked, `the request named another host (${String(req.headers.host).slice(0, 200)})`);
          return failed(
            401,
            `link button not pressed: this gateway does not answer token requests for host ${JSON.stringify(req.headers.host)} (add it to allowed_hosts)`,
          );
        }
        const raw = query.app_name ?? (await appNameFromGetBody(req.raw));
        // Well-formed, so that the app_name answered is the one stored (a cut can split a surrogate pair).
        const appName = typeof raw === 'string' && raw.length > 0 ? wellFormed(raw.slice(0, 200)) : undefined;
        const grant = s.tokens.poll(appName);
        if (!grant.ok) return failed(401, 'link button not pressed');
        return done(
          grant.app_name === undefined ? { token: grant.token } : { token: grant.token, app_name: grant.app_name },
        );
      },
    }),
    route({
      id: 'G2',
      method: 'GET',
      path: '/bridge/runtime',
      summary: "The host's runtime readings",
      auth: 'token',
      answer: runtime,
      handle: () => done(s.runtime.read()),
    }),
    route({
      id: 'G3',
      method: 'PUT',
      path: '/bridge/config',
      summary: 'Set the speaker volume',
      auth: 'token',
      body: body({ volume: opt(volume) }),
      handle({ body }) {
        if (body.volume !== undefined) s.speaker.setVolume(body.volume);
        return done();
      },
    }),
    route({
      id: 'G4',
      method: 'GET',
      path: '/bridge',
      summary: 'Gateway info (no token)',
      auth: 'none',
      answer: gatewayInfo,
      handle({ reply }) {
        const info = s.info();
        if (g4?.info !== info) g4 = { info, bytes: JSON.stringify(ok(info)) };
        reply.type('application/json; charset=utf-8').send(g4.bytes);
        return { sent: true };
      },
    }),
    route({
      id: 'G5',
      method: 'PUT',
      path: '/bridge/mute',
      summary: 'Mute the speaker',
      auth: 'token',
      handle() {
        s.speaker.mute();
        return done();
      },
    }),
    route({
      id: 'G6',
      method: 'PUT',
      path: '/bridge/unmute',
      summary: 'Unmute the speaker',
      auth: 'token',
      handle() {
        s.speaker.unmute();
        return done();
      },
    }),
    route({
      id: 'G7',
      method: 'PUT',
      path: '/bridge/cancel_alarm',
      summary: 'Silence a sounding alarm (and a G9 sound)',
      auth: 'token',
      handle({ actor }) {
        s.alarm.cancel(actor);
        s.speaker.cancelSound();
        return done();
      },
    }),
    route({
      id: 'G8',
      method: 'POST',
      path: '/hardware/reboot',
      summary: 'Restart the gateway (after the answer is sent)',
      auth: 'token',
      handle({ reply }) {
        reply.raw.once('finish', () => s.restart());
        return done();
      },
    }),
    route({
      id: 'G9',
      method: 'POST',
      path: '/hardware/speaker',
      summary: 'Play a sound (for `countdown` seconds) or a beep',
      auth: 'token',
      body: speakerBody,
      handle({ body }) {
        if (body.type === 'play_sound') {
          const { name, volume, countdown } = body.sound;
          s.speaker.play({ kind: 'sound', name, volume, countdown });
        } else {
          const name = normalizeBeepName(body.beep.name) as string;
          s.speaker.play({ kind: 'beep', name, volume: body.beep.volume, countdown: 0 });
        }
        return done();
      },
    }),
  ];
}
