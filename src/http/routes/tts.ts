import type { TtsEngines } from '../../core/tts/engines.ts';
import type { RestModule } from '../app.ts';
import { ok } from '../envelope.ts';

/** TTS module: T3 (engines registered by RegisterTTSEngine on T1). Synthesis comes with a later issue. */
export function ttsRoutes(engines: TtsEngines): RestModule {
  return (app, auth) => {
    app.get('/tts/engines', { preHandler: auth }, async () =>
      ok({ engines: engines.list().map((e) => ({ id: e.id, name: e.name })) }),
    );
  };
}
