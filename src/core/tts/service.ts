/**
 * The TTS engines of the gateway in one place: those registered by third parties (engines.ts,
 * spoken to with directives) and the built-in eSpeak NG, listed alike; synthesis through any of
 * them; and speaking a text in one call (synthesise, fetch the audio, play it as speech).
 */

import type { Clock } from '../../lib/clock.ts';
import type { AudioArbiter } from '../audio/arbiter.ts';
import type { MediaPlayer } from '../audio/media.ts';
import { durationMs } from '../audio/pcm.ts';
import type { AudioRef, SpeechEngine, Synthesis, SynthesisRequest, TtsOutcome, Voice } from './engine.ts';
import type { TtsEngines } from './engines.ts';
import { type DirectiveSender, RemoteEngine } from './remote-engine.ts';

export interface TtsServiceDeps {
  engines: TtsEngines;
  directives: DirectiveSender;
  /** The built-in engine, when one can run here. */
  builtin?: SpeechEngine;
  media: MediaPlayer;
  arbiter: AudioArbiter;
  clock: Clock;
  /** How long one API call may take in all (clients give up after 5 s). Default 4500 ms. */
  budgetMs?: number;
}

export interface SpeakRequest {
  text: string;
  engine?: string;
  language?: string;
  /** 0-100, under the gateway volume; default 100. */
  volume?: number;
}

export interface Spoken {
  engine: string;
  audio: AudioRef;
  duration_ms: number;
}

export class TtsService {
  constructor(private readonly deps: TtsServiceDeps) {}

  /** Every engine as `{id, name}`: registered ones in the order they registered, then the built-in one. */
  list(): { id: string; name: string }[] {
    const out = this.deps.engines.list().map((e) => ({ id: e.id, name: e.name }));
    if (this.deps.builtin) out.push({ id: this.deps.builtin.id, name: this.deps.builtin.name });
    return out;
  }

  /** The engine with this id. */
  engine(id: string): SpeechEngine | undefined {
    if (this.deps.builtin && id === this.deps.builtin.id) return this.deps.builtin;
    const record = this.deps.engines.get(id);
    return record ? new RemoteEngine(record, this.deps.directives, () => this.deps.clock.now()) : undefined;
  }

  async voices(id: string): Promise<TtsOutcome<Voice[]>> {
    const engine = this.engine(id);
    return engine ? { ok: true, value: await engine.voices() } : unknown(id);
  }

  async audioList(id: string, baseUrl: string): Promise<TtsOutcome<AudioRef[]>> {
    const engine = this.engine(id);
    return engine ? engine.audioList({ baseUrl, deadline: this.deadline() }) : unknown(id);
  }

  async synthesize(id: string, req: SynthesisRequest, baseUrl: string): Promise<TtsOutcome<Synthesis>> {
    const engine = this.engine(id);
    return engine ? engine.synthesize(req, { baseUrl, deadline: this.deadline() }) : unknown(id);
  }

  /** Speaks a text: the named engine (default: the built-in one), its audio played at speech priority. */
  async speak(req: SpeakRequest, baseUrl: string): Promise<TtsOutcome<Spoken>> {
    const deadline = this.deadline();
    const id = req.engine ?? this.deps.builtin?.id ?? this.deps.engines.list()[0]?.id;
    if (id === undefined) return { ok: false, kind: 'invalid', message: 'engine: no TTS engine is available' };
    const engine = this.engine(id);
    if (!engine) return unknown(id);
    const synth = await engine.synthesize({ text: req.text, language: req.language }, { baseUrl, deadline });
    if (!synth.ok) return synth;
    let pcm = synth.value.pcm;
    if (!pcm) {
      const loaded = await this.deps.media.load(new URL(synth.value.url), deadline - this.deps.clock.now());
      if (!loaded.ok)
        return {
          ok: false,
          kind: 'unreachable',
          message: `engine ${engine.name}: audio ${synth.value.url}: ${loaded.reason}`,
        };
      pcm = loaded.pcm;
    }
    const played = this.deps.arbiter.play({ layer: 'speech', name: `tts:${engine.id}`, clip: pcm, volume: req.volume });
    if (!played.ok) return { ok: false, kind: 'failed', message: `not played: ${played.reason}` };
    const { url, label } = synth.value;
    return { ok: true, value: { engine: engine.id, audio: { url, label }, duration_ms: Math.round(durationMs(pcm)) } };
  }

  private deadline(): number {
    return this.deps.clock.now() + (this.deps.budgetMs ?? 4500);
  }
}

function unknown<T>(id: string): TtsOutcome<T> {
  return { ok: false, kind: 'invalid', message: `engine: no TTS engine has id ${JSON.stringify(id)}` };
}
