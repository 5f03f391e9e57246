/**
 * A small deterministic synthesiser for the gateway's sounds and beeps: notes (sine, square,
 * triangle, bell), sweeps and rests, rendered sample by sample with plain Math functions and no
 * randomness, so that scripts/gen-sounds.ts reproduces the committed WAV files byte for byte.
 */
import { fromFloat, type Pcm, SAMPLE_RATE, samplesFor } from './pcm.ts';

export type Wave = 'sine' | 'square' | 'triangle' | 'bell';

/** One note: a fixed pitch, or a sweep `[from, to]` (exponential, as the ear hears pitch). */
export interface Note {
  hz: number | readonly [number, number];
  ms: number;
  wave?: Wave;
  /** Peak amplitude, 0..1 of full scale (default 0.6). */
  amp?: number;
  /** Fade in and out, in ms (default 5: no clicks); 0 joins a note to its neighbour. */
  attackMs?: number;
  releaseMs?: number;
  /** Amplitude wobble in Hz (depth one half). */
  tremoloHz?: number;
}

export interface Rest {
  rest: number;
}

export type Step = Note | Rest;

/** Harmonics of the band-limited waves: [multiple, relative amplitude]. */
const HARMONICS: Record<Exclude<Wave, 'bell'>, readonly (readonly [number, number])[]> = {
  sine: [[1, 1]],
  // Odd harmonics only; kept below the Nyquist frequency of the tones used, so no aliasing.
  square: [
    [1, 1],
    [3, 1 / 3],
    [5, 1 / 5],
    [7, 1 / 7],
  ],
  triangle: [
    [1, 1],
    [3, -1 / 9],
    [5, 1 / 25],
  ],
};

/** A struck bell: slightly inharmonic partials, the higher ones dying faster. */
const BELL_PARTIALS: readonly (readonly [number, number])[] = [
  [1, 1],
  [2, 0.45],
  [3, 0.2],
  [4.2, 0.1],
];

function renderNote(note: Note, out: Float64Array, at: number, rate: number): void {
  const n = samplesFor(note.ms, rate);
  const amp = note.amp ?? 0.6;
  const wave = note.wave ?? 'sine';
  const [from, to] = typeof note.hz === 'number' ? [note.hz, note.hz] : note.hz;
  const attack = samplesFor(note.attackMs ?? (wave === 'bell' ? 3 : 5), rate);
  const release = samplesFor(note.releaseMs ?? 5, rate);
  const partials = wave === 'bell' ? BELL_PARTIALS : HARMONICS[wave];
  const norm = partials.reduce((s, [, a]) => s + Math.abs(a), 0);
  let phase = 0;
  for (let i = 0; i < n && at + i < out.length; i++) {
    const t = i / rate;
    const hz = from === to ? from : from * (to / from) ** (i / n);
    phase += (2 * Math.PI * hz) / rate;
    let v = 0;
    for (let p = 0; p < partials.length; p++) {
      const [mult, a] = partials[p] as readonly [number, number];
      let partial = a * Math.sin(phase * mult);
      if (wave === 'bell') partial *= Math.exp((-t * (1 + p * 1.5) * 4000) / (note.ms + 1));
      v += partial;
    }
    let env = 1;
    if (i < attack) env = i / attack;
    if (wave !== 'bell' && i >= n - release) env = Math.min(env, (n - 1 - i) / release);
    if (note.tremoloHz) env *= 0.75 + 0.25 * Math.cos(2 * Math.PI * note.tremoloHz * t);
    out[at + i] = (out[at + i] as number) + (amp * env * v) / norm;
  }
}

/** Renders steps one after another into mono PCM at `rate`. */
export function render(steps: readonly Step[], rate = SAMPLE_RATE): Pcm {
  const total = steps.reduce((s, step) => s + samplesFor('rest' in step ? step.rest : step.ms, rate), 0);
  const out = new Float64Array(total);
  let at = 0;
  for (const step of steps) {
    if ('rest' in step) {
      at += samplesFor(step.rest, rate);
      continue;
    }
    renderNote(step, out, at, rate);
    at += samplesFor(step.ms, rate);
  }
  return fromFloat(out, rate);
}
