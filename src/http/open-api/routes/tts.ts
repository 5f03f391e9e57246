/**
 * TTS (spec 4.6 and COMPAT.md). T3 `GET tts/engines`, then the gateway's side of the engine
 * directives at the paths of the hardware gateways' documentation as far as it is known:
 * `GET tts/engine/{id}/audio-list` (SyncTTSAudioList) and `POST tts/engine/{id}/synthesize`
 * (SynthesizeSpeech); the result plays through `POST media/audio-player`. Of this gateway's own:
 * `GET tts/engine/{id}/voices`, `POST tts/speak` (one call from text to sound) and
 * `GET tts/audio/{file}`, the built-in engine's audio, served without a token as add-ons serve theirs.
 */
import { ErrorCode } from '../../../catalog/errors.ts';
import { arr, int, obj, opt, str } from '../../../catalog/schema.ts';
import type { TtsOutcome } from '../../../core/tts/engine.ts';
import { fail } from '../envelope.ts';
import { done, failed, type RouteResult, type RouteSpec, route } from '../route.ts';
import type { OpenApiServices } from '../services.ts';
import { audioRef, body, engineList, synthesisFields, volume } from '../wire.ts';

/** A TTS outcome as an answer: its value, or the failure that says why not. */
function answer<T>(r: TtsOutcome<T>, data: (v: T) => object): RouteResult {
  if (r.ok) return done(data(r.value));
  switch (r.kind) {
    case 'invalid':
      return failed(ErrorCode.INVALID_PARAMETERS, r.message);
    case 'unreachable':
      return failed(
        ErrorCode.THIRD_PARTY_UNREACHABLE,
        `failed to access the TTS engine's service address: ${r.message}`,
      );
    // The engine's service answered, but not usably: its fault, not the gateway's, so the same
    // 110019 as a service that does not answer (the message says which), never a 500.
    case 'engine_error':
    case 'bad_reply':
      return failed(ErrorCode.THIRD_PARTY_UNREACHABLE, r.message);
    default:
      return failed(ErrorCode.SERVER_ERROR, r.message);
  }
}

const engine = { id: str({ maxLength: 200 }) };
const errors = [ErrorCode.THIRD_PARTY_UNREACHABLE, ErrorCode.SERVER_ERROR];

export function ttsRoutes(s: OpenApiServices): RouteSpec[] {
  return [
    route({
      id: 'T3',
      method: 'GET',
      path: '/tts/engines',
      summary: 'The TTS engines (registered ones, then the built-in one)',
      auth: 'token',
      answer: engineList,
      handle: () => done({ engines: s.speech.list() }),
    }),
    route({
      id: 'X-tts-audio-list',
      method: 'GET',
      path: '/tts/engine/{id}/audio-list',
      summary: "An engine's audio files (SyncTTSAudioList)",
      auth: 'token',
      params: engine,
      answer: obj({ audio_list: arr(audioRef) }),
      errors,
      handle: async ({ params, baseUrl }) =>
        answer(await s.speech.audioList(params.id, baseUrl), (audio_list) => ({ audio_list })),
    }),
    route({
      id: 'X-tts-synthesize',
      method: 'POST',
      path: '/tts/engine/{id}/synthesize',
      summary: 'Synthesise speech (SynthesizeSpeech); play it with media/audio-player',
      auth: 'token',
      params: engine,
      body: body(synthesisFields),
      answer: obj({ audio: audioRef }),
      errors,
      handle: async ({ params, body, baseUrl }) =>
        answer(
          await s.speech.synthesize(
            params.id,
            { text: body.text, label: body.label, language: body.language },
            baseUrl,
          ),
          ({ url, label }) => ({ audio: { url, label } }),
        ),
    }),
    route({
      id: 'X-tts-voices',
      method: 'GET',
      path: '/tts/engine/{id}/voices',
      summary: "An engine's voices",
      auth: 'token',
      params: engine,
      answer: obj({ voices: arr(obj({ id: str(), name: str(), language: str() })) }),
      errors,
      handle: async ({ params }) => answer(await s.speech.voices(params.id), (voices) => ({ voices })),
    }),
    route({
      id: 'X-tts-speak',
      method: 'POST',
      path: '/tts/speak',
      summary: 'Speak a text in one call',
      auth: 'token',
      body: body({
        text: synthesisFields.text,
        language: synthesisFields.language,
        engine: opt(str({ maxLength: 200, doc: 'an engine id; default: the built-in engine' })),
        volume: opt(volume),
      }),
      answer: obj({ engine: str(), audio: audioRef, duration_ms: int({ min: 0 }) }),
      errors,
      handle: async ({ body, baseUrl }) =>
        answer(
          await s.speech.speak(
            { text: body.text, engine: body.engine, language: body.language, volume: body.volume },
            baseUrl,
          ),
          (spoken) => spoken,
        ),
    }),
    route({
      id: 'X-tts-audio',
      method: 'GET',
      path: '/tts/audio/{file}',
      summary: "The built-in engine's synthesised audio (no token: unguessable names, kept a while)",
      auth: 'none',
      params: { file: str({ maxLength: 200 }) },
      produces: 'audio/wav',
      handle({ params, reply }) {
        const clip = s.clips.get(params.file);
        if (!clip) reply.code(404).send(fail(404, `not found: no audio ${params.file}`));
        else reply.type('audio/wav').header('cache-control', 'no-store').send(clip.wav);
        return { sent: true };
      },
    }),
  ];
}
