import { normalizeBeepName, soundNames } from '../../catalog/index.ts';
import type { RestModule } from '../app.ts';
import { bodyObject } from '../body.ts';
import type { HttpContext } from '../context.ts';
import { badRequest, ok } from '../envelope.ts';
import { intField, objectField, stringField } from '../fields.ts';

/** Hardware module: G8 reboot and G9 speaker. */
export function hardwareRoutes(ctx: HttpContext): RestModule {
  return (app, auth) => {
    app.post('/hardware/reboot', { preHandler: auth }, async (_req, reply) => {
      // The reply goes out first; the restart starts once it is on the wire.
      reply.raw.once('finish', () => ctx.restart());
      return ok();
    });

    app.post('/hardware/speaker', { preHandler: auth }, async (req) => {
      const body = bodyObject(req.body);
      const type = stringField(body, 'type', { required: true, values: ['play_sound', 'play_beep'] });
      if (type === 'play_sound') {
        const sound = objectField(body, 'sound', { required: true }) as Record<string, unknown>;
        const name = stringField(sound, 'name', { required: true, path: 'sound', values: soundNames });
        const volume = intField(sound, 'volume', { required: true, min: 0, max: 100, path: 'sound' }) as number;
        // -1 is "ring until cancelled" (COMPAT.md); the spec's range is 0-1799 s.
        const countdown = intField(sound, 'countdown', { required: true, min: -1, max: 1799, path: 'sound' }) as number;
        ctx.speaker.play({ kind: 'sound', name: name as string, volume, countdown });
      } else {
        const beep = objectField(body, 'beep', { required: true }) as Record<string, unknown>;
        const raw = stringField(beep, 'name', { required: true, path: 'beep' });
        const name = normalizeBeepName(raw);
        if (!name) badRequest(`beep.name: ${JSON.stringify(raw)} is not a beep name`);
        const volume = intField(beep, 'volume', { required: true, min: 0, max: 100, path: 'beep' }) as number;
        ctx.speaker.play({ kind: 'beep', name, volume, countdown: 0 });
      }
      return ok();
    });
  };
}
