/**
 * `POST media/audio-player {audio_url}` (COMPAT.md) plays the audio at a URL once, at media
 * priority. The answer comes once the audio is fetched and decoded, so a URL that does not lead to
 * playable audio gets an error saying why; limits are the settings `audio.media_*`.
 */
import { ErrorCode } from '../../../catalog/errors.ts';
import { opt, str } from '../../../catalog/schema.ts';
import { checkAudioUrl } from '../../../core/audio/media.ts';
import { done, failed, type RouteSpec, route } from '../route.ts';
import type { OpenApiServices } from '../services.ts';
import { body, volume } from '../wire.ts';

export function mediaRoutes(s: OpenApiServices): RouteSpec[] {
  return [
    route({
      id: 'X-audio-player',
      method: 'POST',
      path: '/media/audio-player',
      summary: 'Play the audio (WAV, MP3) at a URL once',
      auth: 'token',
      body: body({ audio_url: str({ doc: 'http or https' }), volume: opt(volume) }),
      errors: [ErrorCode.SERVER_ERROR],
      async handle({ body }) {
        const url = checkAudioUrl(body.audio_url);
        if (typeof url === 'string') return failed(400, `audio_url: ${url}`);
        const r = await s.media.play(url, { volume: body.volume });
        if (!r.ok && r.refused) return failed(ErrorCode.SERVER_ERROR, `not played: ${r.reason}`);
        if (!r.ok) return failed(400, `audio_url: ${r.reason}`);
        return done();
      },
    }),
  ];
}
