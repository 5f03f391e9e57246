/**
 * Media module: `POST media/audio-player {audio_url}` (COMPAT.md) plays the audio at a URL once,
 * at media priority. The answer comes once the audio is fetched and decoded, so a URL that does
 * not lead to playable audio gets an error saying why; limits are the settings `audio.media_*`.
 */
import { ApiError, ErrorCode } from '../../catalog/errors.ts';
import { checkAudioUrl, type MediaPlayer } from '../../core/audio/media.ts';
import type { RestModule } from '../app.ts';
import { bodyObject } from '../body.ts';
import { badRequest, ok } from '../envelope.ts';
import { intField } from '../fields.ts';

export function mediaRoutes(media: MediaPlayer): RestModule {
  return (app, auth) => {
    app.post('/media/audio-player', { preHandler: auth }, async (req) => {
      const body = bodyObject(req.body);
      if (body.audio_url === undefined) badRequest('audio_url: required');
      const url = checkAudioUrl(body.audio_url);
      if (typeof url === 'string') badRequest(`audio_url: ${url}`);
      const volume = intField(body, 'volume', { min: 0, max: 100 });
      const r = await media.play(url, { volume });
      if (!r.ok && r.refused) throw new ApiError(ErrorCode.SERVER_ERROR, `not played: ${r.reason}`);
      if (!r.ok) badRequest(`audio_url: ${r.reason}`);
      return ok();
    });
  };
}
