/** Text to speech: registered engines (directives), the built-in eSpeak NG, synthesis and speaking. */
export { ClipStore, clipPath, type StoredClip } from './clip-store.ts';
export type {
  AudioRef,
  SpeechEngine,
  Synthesis,
  SynthesisRequest,
  TtsContext,
  TtsFailureKind,
  TtsOutcome,
  Voice,
} from './engine.ts';
export { clearTtsEngines, type TtsEngine, TtsEngines } from './engines.ts';
export { BUILTIN_ENGINE_ID, detectEspeak, type EspeakBackend, EspeakEngine, MAX_TEXT, parseVoices } from './espeak.ts';
export { type DirectiveResult, type DirectiveSender, RemoteEngine } from './remote-engine.ts';
export { type SpeakRequest, type Spoken, TtsService, type TtsServiceDeps } from './service.ts';
