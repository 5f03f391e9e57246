/**
 * TTS module. T3 `GET tts/engines` (spec), then the gateway's side of the engine directives
 * (COMPAT.md, at the paths of the hardware gateways' documentation as far as it is known):
 * `GET tts/engine/{id}/audio-list` (SyncTTSAudioList) and `POST tts/engine/{id}/synthesize`
 * (SynthesizeSpeech); the result plays through `POST media/audio-player`. Of this gateway's own:
 * `GET tts/engine/{id}/voices`, `POST tts/speak` (one call from text to sound) and
 * `GET tts/audio/{file}`, the built-in engine's audio, served without a token as add-ons serve theirs.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError, ErrorCode } from '../../catalog/errors.ts';
import type { ClipStore } from '../../core/tts/clip-store.ts';
import type { TtsOutcome } from '../../core/tts/engine.ts';
import { MAX_TEXT } from '../../core/tts/espeak.ts';
import type { TtsService } from '../../core/tts/service.ts';
import type { RestModule } from '../app.ts';
import { bodyObject } from '../body.ts';
import { badRequest, ok } from '../envelope.ts';
import { intField, stringField } from '../fields.ts';

/** Where clients reached the gateway: the base of the audio URLs it hands out. */
function baseUrl(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`;
}

/** The value of a TTS outcome, or the envelope failure that says why not. */
function answer<T>(r: TtsOutcome<T>): T {
  if (r.ok) return r.value;
  switch (r.kind) {
    case 'invalid':
      throw new ApiError(ErrorCode.INVALID_PARAMETERS, r.message);
    case 'unreachable':
      throw new ApiError(
        ErrorCode.THIRD_PARTY_UNREACHABLE,
        `failed to access the TTS engine's service address: ${r.message}`,
      );
    default:
      throw new ApiError(ErrorCode.SERVER_ERROR, r.message);
  }
}

/** `{text, label?, language?}` as the directives carry it, checked. */
function synthesisBody(body: Record<string, unknown>) {
  const text = stringField(body, 'text', { required: true, maxLength: MAX_TEXT }) as string;
  if (text.trim() === '') badRequest('text: must not be empty');
  const label = stringField(body, 'label', { maxLength: 256 });
  const language = stringField(body, 'language', { maxLength: 35 });
  if (language !== undefined && !/^[A-Za-z0-9_-]+$/.test(language))
    badRequest(`language: ${JSON.stringify(language)} is not a language tag (e.g. en-US)`);
  return { text, label, language };
}

export function ttsRoutes(tts: TtsService, clips: ClipStore): RestModule {
  return (app, auth) => {
    app.get('/tts/engines', { preHandler: auth }, async () => ok({ engines: tts.list() }));

    app.get('/tts/engine/:id/audio-list', { preHandler: auth }, async (req) => {
      const { id } = req.params as { id: string };
      return ok({ audio_list: answer(await tts.audioList(id, baseUrl(req))) });
    });

    app.post('/tts/engine/:id/synthesize', { preHandler: auth }, async (req) => {
      const { id } = req.params as { id: string };
      const { url, label } = answer(await tts.synthesize(id, synthesisBody(bodyObject(req.body)), baseUrl(req)));
      return ok({ audio: { url, label } });
    });

    app.get('/tts/engine/:id/voices', { preHandler: auth }, async (req) => {
      const { id } = req.params as { id: string };
      return ok({ voices: answer(await tts.voices(id)) });
    });

    app.post('/tts/speak', { preHandler: auth }, async (req) => {
      const body = bodyObject(req.body);
      const { text, language } = synthesisBody(body);
      const engine = stringField(body, 'engine', { maxLength: 200 });
      const volume = intField(body, 'volume', { min: 0, max: 100 });
      return ok(answer(await tts.speak({ text, engine, language, volume }, baseUrl(req))));
    });

    app.get('/tts/audio/:file', async (req, reply) => {
      const { file } = req.params as { file: string };
      const clip = clips.get(file);
      if (!clip) return reply.code(404).send({ error: 404, data: {}, message: `not found: no audio ${file}` });
      return reply.type('audio/wav').header('cache-control', 'no-store').send(clip.wav);
    });
  };
}
