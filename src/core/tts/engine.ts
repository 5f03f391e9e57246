/**
 * What every TTS engine offers the gateway, whether a service registered with RegisterTTSEngine
 * (remote-engine.ts, over directives) or the built-in eSpeak NG (espeak.ts): its voices, its
 * audio list, and synthesis of a text to an audio URL.
 */
import type { Pcm } from '../audio/pcm.ts';

export interface Voice {
  /** What `language` may name to pick it (eSpeak's voice id, e.g. `en-us`). */
  id: string;
  name: string;
  language: string;
}

/** An audio file of an engine, as the directives carry it. */
export interface AudioRef {
  url: string;
  label: string;
}

export interface SynthesisRequest {
  text: string;
  label?: string;
  language?: string;
}

/** Where and until when: the base URL clients reach the gateway at, and the caller's deadline (clock ms). */
export interface TtsContext {
  baseUrl: string;
  deadline: number;
}

/** Why a TTS call did not succeed. */
export type TtsFailureKind =
  /** The engine's service did not answer usably (refused, timed out, HTTP error). */
  | 'unreachable'
  /** The engine answered ErrorResponse. */
  | 'engine_error'
  /** The engine answered something that is not the documented reply. */
  | 'bad_reply'
  /** The request cannot be served by this engine (e.g. no voice for the language). */
  | 'invalid'
  /** The engine failed (the built-in one crashed or timed out). */
  | 'failed';

export type TtsOutcome<T> = { ok: true; value: T } | { ok: false; kind: TtsFailureKind; message: string };

/** A synthesised text: where to fetch it, and its audio when the engine is in-process. */
export interface Synthesis extends AudioRef {
  pcm?: Pcm;
}

export interface SpeechEngine {
  readonly id: string;
  readonly name: string;
  /** The voices the engine lists (remote engines list none: the directives have no voice list). */
  voices(): Promise<Voice[]>;
  audioList(ctx: TtsContext): Promise<TtsOutcome<AudioRef[]>>;
  synthesize(req: SynthesisRequest, ctx: TtsContext): Promise<TtsOutcome<Synthesis>>;
}
