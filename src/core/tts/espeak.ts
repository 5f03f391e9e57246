/**
 * The built-in TTS engine: eSpeak NG. It works on a fresh machine with nothing else installed,
 * through the `espeak-ng` npm package (eSpeak NG compiled to WebAssembly, with its voice data),
 * run in a child process by espeak-worker.mjs; or through Debian's `espeak-ng` program when that
 * is installed and chosen (setting `audio.tts_builtin`). Either way each synthesis is one short
 * process with a time limit: a stuck synthesis is killed, never left holding the gateway.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fromPackageRoot } from '../../lib/package-root.ts';
import { type Pcm, resample, SAMPLE_RATE } from '../audio/pcm.ts';
import { AudioFormatError, decodeWav } from '../audio/wav.ts';
import { type ClipStore, clipPath } from './clip-store.ts';
import type { AudioRef, SpeechEngine, Synthesis, SynthesisRequest, TtsContext, TtsOutcome, Voice } from './engine.ts';

export type EspeakBackend = 'wasm' | 'system';

/** The id the built-in engine is listed with (stable across restarts). */
export const BUILTIN_ENGINE_ID = 'espeak-ng';

/** Longest text synthesised in one go. */
export const MAX_TEXT = 2000;

// Plain JavaScript, run by node as it is: from src/ both under tsx and for the bundle in dist/.
const WORKER = fromPackageRoot('src', 'core', 'tts', 'espeak-worker.mjs');
const DEFAULT_VOICE = 'en-us';

/** Which eSpeak NG can run here for `mode` (`auto` prefers the npm package). */
export function detectEspeak(
  mode: 'auto' | 'wasm' | 'system' | 'off',
  onPath: (cmd: string) => boolean,
): EspeakBackend | undefined {
  const wasm = () => {
    try {
      createRequire(import.meta.url).resolve('espeak-ng');
      return true;
    } catch {
      return false;
    }
  };
  if (mode === 'off') return undefined;
  if (mode === 'wasm') return wasm() ? 'wasm' : undefined;
  if (mode === 'system') return onPath('espeak-ng') ? 'system' : undefined;
  return wasm() ? 'wasm' : onPath('espeak-ng') ? 'system' : undefined;
}

/** Parses the table of `espeak-ng --voices`. */
export function parseVoices(table: string): Voice[] {
  const out: Voice[] = [];
  for (const line of table.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 5) continue;
    const [, language, , name] = cols as [string, string, string, string];
    out.push({ id: language.toLowerCase(), name: name.replace(/_/g, ' '), language });
  }
  return out;
}

interface RunResult {
  ok: boolean;
  stdout: Buffer;
  reason: string;
}

export interface EspeakOptions {
  backend: EspeakBackend;
  store: ClipStore;
  /** Longest one synthesis may run, ms. */
  timeoutMs?: number;
  now?: () => number;
}

export class EspeakEngine implements SpeechEngine {
  readonly id = BUILTIN_ENGINE_ID;
  readonly name = 'eSpeak NG (built-in)';
  private voiceList: Promise<Voice[]> | undefined;

  constructor(private readonly opts: EspeakOptions) {}

  get backend(): EspeakBackend {
    return this.opts.backend;
  }

  async voices(): Promise<Voice[]> {
    this.voiceList ??= this.run({ op: 'voices' }, 10_000).then((r) => {
      if (!r.ok) {
        this.voiceList = undefined;
        return [];
      }
      return parseVoices(r.stdout.toString('utf8'));
    });
    return this.voiceList;
  }

  /** Lists what this engine synthesised and still keeps. */
  async audioList(ctx: TtsContext): Promise<TtsOutcome<AudioRef[]>> {
    return {
      ok: true,
      value: this.opts.store.list().map((c) => ({ url: ctx.baseUrl + clipPath(c.file), label: c.label })),
    };
  }

  async synthesize(req: SynthesisRequest, ctx: TtsContext): Promise<TtsOutcome<Synthesis>> {
    const speech = await this.speak(req.text, req.language, ctx.deadline - (this.opts.now ?? Date.now)());
    if (!speech.ok) return speech;
    const label = req.label ?? req.text.slice(0, 60);
    const clip = this.opts.store.put(speech.value, label);
    return { ok: true, value: { url: ctx.baseUrl + clipPath(clip.file), label, pcm: speech.value } };
  }

  /** Synthesises `text` to PCM at the gateway's rate. */
  async speak(
    text: string,
    language: string | undefined,
    waitMs = this.opts.timeoutMs ?? 8000,
  ): Promise<TtsOutcome<Pcm>> {
    // Control characters (other than tab and newline) are noise to a speech engine.
    const clean = Array.from(text, (c) => {
      const code = c.charCodeAt(0);
      return (code < 32 && c !== '\t' && c !== '\n') || code === 127 ? ' ' : c;
    })
      .join('')
      .trim();
    if (clean === '') return { ok: false, kind: 'invalid', message: 'text: nothing to say' };
    if (clean.length > MAX_TEXT)
      return { ok: false, kind: 'invalid', message: `text: longer than ${MAX_TEXT} characters` };
    const voice = await this.voiceFor(language);
    if (!voice.ok) return voice;
    const limit = Math.min(waitMs, this.opts.timeoutMs ?? 8000);
    if (limit <= 0) return { ok: false, kind: 'failed', message: 'no time was left to synthesise' };
    const r = await this.run({ op: 'speak', voice: voice.value, text: clean }, limit);
    if (!r.ok) return { ok: false, kind: 'failed', message: `eSpeak NG: ${r.reason}` };
    try {
      return { ok: true, value: resample(decodeWav(r.stdout), SAMPLE_RATE) };
    } catch (err) {
      if (err instanceof AudioFormatError) return { ok: false, kind: 'failed', message: `eSpeak NG: ${err.message}` };
      throw err;
    }
  }

  /** The voice for a language tag (`en-US` → `en-us`, `de-AT` → `de` when there is no `de-at`). */
  private async voiceFor(language: string | undefined): Promise<TtsOutcome<string>> {
    const voices = await this.voices();
    if (language === undefined)
      return {
        ok: true,
        value:
          voices.some((v) => v.id === DEFAULT_VOICE) || voices.length === 0 ? DEFAULT_VOICE : (voices[0] as Voice).id,
      };
    const want = language.trim().toLowerCase().replace(/_/g, '-');
    const exact = voices.find((v) => v.id === want);
    if (exact) return { ok: true, value: exact.id };
    const primary = want.split('-')[0] as string;
    const near = voices.find((v) => v.id === primary) ?? voices.find((v) => v.id.startsWith(`${primary}-`));
    if (near) return { ok: true, value: near.id };
    return { ok: false, kind: 'invalid', message: `language: eSpeak NG has no voice for ${JSON.stringify(language)}` };
  }

  private run(
    input: { op: 'voices' } | { op: 'speak'; voice: string; text: string },
    timeoutMs: number,
  ): Promise<RunResult> {
    const system = this.opts.backend === 'system';
    const [cmd, args] = system
      ? input.op === 'voices'
        ? ['espeak-ng', ['--voices']]
        : ['espeak-ng', ['--stdout', '-v', input.voice, '--stdin']]
      : [process.execPath, [WORKER]];
    return new Promise((resolve) => {
      const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      let err = '';
      let settled = false;
      const done = (r: RunResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        done({ ok: false, stdout: Buffer.alloc(0), reason: `no audio within ${timeoutMs} ms` });
      }, timeoutMs);
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (c: string) => {
        err = (err + c).slice(-1000);
      });
      child.on('error', (e) => done({ ok: false, stdout: Buffer.alloc(0), reason: e.message }));
      child.on('close', (code) =>
        done(
          code === 0
            ? { ok: true, stdout: Buffer.concat(out), reason: '' }
            : { ok: false, stdout: Buffer.alloc(0), reason: `exited with ${code}: ${err.trim()}` },
        ),
      );
      child.stdin.on('error', () => {});
      child.stdin.end(system ? (input.op === 'speak' ? input.text : '') : JSON.stringify(input));
    });
  }
}
