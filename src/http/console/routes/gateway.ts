/**
 * The gateway in the console: name, address and version, runtime readings, the speaker (volume,
 * mute, test sounds and beeps), speech, the Open API's tokens, restart, backup and restore, the
 * log level, the settings in force, and the ones that change while it runs (src/settings/live.ts).
 */
import { beepNames, limits, normalizeBeepName, soundNames } from '../../../catalog/index.ts';
import { any, bool, int, obj, oneOf, opt, str } from '../../../catalog/schema.ts';
import { LOG_LEVELS } from '../../../lib/logger.ts';
import { checkLive, isLive } from '../../../settings/live.ts';
import { type ConsoleRoute, consoleRoute, ok, refuse } from '../route.ts';
import type { ConsoleServices } from '../services.ts';

const volume = int({ min: 0, max: 100 });
/** Largest backup the console takes back (a store of thousands of devices is a few MB). */
export const RESTORE_LIMIT = 64 * 1024 * 1024;

export function gatewayRoutes(s: ConsoleServices): ConsoleRoute[] {
  const speaker = () => ({ ...s.speaker.get(), playing: s.speaker.nowPlaying() });
  // The host's boot is G2's power_up_time; a console shows how long the gateway itself has run.
  const runtime = () => ({ ...s.runtime.read(), started_at: new Date(s.startedAt()).toISOString() });
  return [
    consoleRoute({
      method: 'GET',
      path: '/gateway',
      auth: 'session',
      handle: () =>
        ok({
          info: s.info(),
          version: s.version,
          runtime: runtime(),
          speaker: speaker(),
          sounds: soundNames,
          beeps: beepNames,
          countdown_max: limits.countdown.max,
          engines: s.speech.list(),
          link: s.tokens.windowState(),
          settings: s.settings(),
          log_level: s.logLevel.get(),
          log_levels: LOG_LEVELS,
        }),
    }),
    consoleRoute({
      method: 'PUT',
      path: '/log-level',
      auth: 'session',
      body: obj({ level: oneOf(...LOG_LEVELS) }),
      // Until the next start, as `opencube log-level` (the setting log_level is the start's level).
      handle: ({ body }) => ok({ log_level: body.level, was: s.logLevel.set(body.level) }),
    }),
    consoleRoute({
      method: 'PUT',
      path: '/settings/{key}',
      auth: 'session',
      params: { key: str({ maxLength: 100 }) },
      body: obj({ value: any() }),
      // Applied at once and kept in the store; the others are read at start only (a restart).
      handle({ params, body, actor }) {
        const known = s.settings().find((r) => r.key === params.key);
        if (!known) return refuse(404, `there is no setting ${params.key}`);
        if (!isLive(params.key))
          return refuse(
            409,
            `${params.key} is read at start only: set it with its flag or environment variable and restart the gateway`,
          );
        const r = checkLive(params.key, body.value);
        if (!r.ok) return refuse(400, r.message);
        const was = s.setSetting(params.key, r.value, actor);
        return ok({ key: params.key, value: r.value, was, info: s.info() });
      },
    }),
    consoleRoute({ method: 'GET', path: '/runtime', auth: 'session', handle: () => ok(runtime()) }),
    consoleRoute({
      method: 'PUT',
      path: '/speaker',
      auth: 'session',
      body: obj({ volume: opt(volume), muted: opt(bool()) }, { open: true }),
      handle({ body }) {
        if (body.volume !== undefined) s.speaker.setVolume(body.volume);
        if (body.muted === true) s.speaker.mute();
        if (body.muted === false) s.speaker.unmute();
        return ok(speaker());
      },
    }),
    consoleRoute({
      method: 'POST',
      path: '/speaker/play',
      auth: 'session',
      body: obj(
        {
          type: oneOf('sound', 'beep'),
          name: str({ maxLength: 64 }),
          volume: opt(volume),
          countdown: opt(int({ min: -1, max: limits.countdown.max, unit: 's' })),
        },
        { open: true },
      ),
      handle({ body }) {
        const level = body.volume ?? s.speaker.get().volume;
        if (body.type === 'sound') {
          if (!soundNames.includes(body.name)) return refuse(400, `name: ${body.name} is not a sound`);
          s.speaker.play({ kind: 'sound', name: body.name, volume: level, countdown: body.countdown ?? 5 });
        } else {
          const name = normalizeBeepName(body.name);
          if (!name) return refuse(400, `name: ${body.name} is not a beep`);
          s.speaker.play({ kind: 'beep', name, volume: level, countdown: 0 });
        }
        return ok(speaker());
      },
    }),
    consoleRoute({
      method: 'POST',
      path: '/speaker/stop',
      auth: 'session',
      handle() {
        s.speaker.stopPlayback();
        return ok(speaker());
      },
    }),
    consoleRoute({
      method: 'POST',
      path: '/tts/speak',
      auth: 'session',
      body: obj(
        {
          text: str({ maxLength: 1000, pattern: /\S/, patternDoc: 'a text to say' }),
          engine: opt(str({ maxLength: 200 })),
          volume: opt(volume),
        },
        { open: true },
      ),
      async handle({ body, req }) {
        const r = await s.speech.speak(
          { text: body.text, engine: body.engine, volume: body.volume },
          `${req.protocol}://${req.host}`,
        );
        if (r.ok) return ok({ engine: r.value.engine, duration_ms: r.value.duration_ms });
        const status = r.kind === 'invalid' ? 400 : r.kind === 'unreachable' ? 502 : 500;
        return refuse(status, r.message);
      },
    }),
    consoleRoute({ method: 'GET', path: '/tokens', auth: 'session', handle: () => ok({ tokens: s.tokens.list() }) }),
    consoleRoute({
      method: 'DELETE',
      path: '/tokens/{id}',
      auth: 'session',
      params: { id: str({ maxLength: 64 }) },
      handle: ({ params, actor }) =>
        s.tokens.revoke(params.id, actor)
          ? ok({ tokens: s.tokens.list() })
          : refuse(404, `there is no token ${params.id}`),
    }),
    consoleRoute({
      method: 'POST',
      path: '/restart',
      auth: 'session',
      handle({ reply }) {
        reply.raw.once('finish', () => s.restart());
        return ok({ restarting: true });
      },
    }),
    consoleRoute({
      method: 'GET',
      path: '/backup',
      auth: 'session',
      async handle({ reply }) {
        const bytes = await s.maintenance.backup();
        const day = new Date(s.clock.now()).toISOString().slice(0, 10);
        reply
          .code(200)
          .type('application/vnd.sqlite3')
          .header('cache-control', 'no-store')
          .header('content-disposition', `attachment; filename="opencube-backup-${day}.db"`)
          .send(bytes);
        return { sent: true };
      },
    }),
    consoleRoute({
      method: 'POST',
      path: '/restore',
      auth: 'session',
      async handle({ req, reply }) {
        if (!Buffer.isBuffer(req.body)) return refuse(415, 'send the backup file as application/octet-stream');
        const r = await s.maintenance.restore(req.body);
        if (!r.ok) return refuse(400, r.message);
        reply.raw.once('finish', () => s.restart());
        // The page says which backup comes back: its password is the console's from then on.
        return ok({ restarting: true, backup_created_at: r.meta?.created_at ?? null });
      },
    }),
  ];
}
