/**
 * Measurements of audio: loudness (RMS, peak), duration, the dominant frequency and the loudness
 * envelope. The tests use them to show that each sound is audible and unlike the others, and
 * that volume scales the samples; the console may show them too.
 */
import { durationMs, type Pcm } from './pcm.ts';

export interface AudioMeasure {
  durationMs: number;
  /** Root mean square of the samples, 0..1 of full scale. */
  rms: number;
  /** Largest absolute sample, 0..1 of full scale. */
  peak: number;
  /** Frequency with the most energy over the whole clip, in Hz (0 for silence). */
  dominantHz: number;
  /** RMS per 20 ms frame, 0..1 of full scale. */
  envelope: number[];
}

/** RMS of the samples, 0..1 of full scale. */
export function rmsOf(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length) / 32768;
}

/** Largest absolute sample, 0..1 of full scale. */
export function peakOf(samples: Int16Array): number {
  let max = 0;
  for (const s of samples) max = Math.max(max, Math.abs(s));
  return max / 32768;
}

/** In-place iterative radix-2 FFT of (re, im); the length must be a power of two. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j] as number, re[i] as number];
      [im[i], im[j]] = [im[j] as number, im[i] as number];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    const wr = Math.cos(ang);
    const wi = Math.sin(ang);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = i + k;
        const b = a + len / 2;
        const xr = (re[b] as number) * cr - (im[b] as number) * ci;
        const xi = (re[b] as number) * ci + (im[b] as number) * cr;
        re[b] = (re[a] as number) - xr;
        im[b] = (im[a] as number) - xi;
        re[a] = (re[a] as number) + xr;
        im[a] = (im[a] as number) + xi;
        const t = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = t;
      }
    }
  }
}

const FRAME = 4096;

/** Power spectrum averaged over Hann-windowed frames (Welch), FRAME/2 bins of rate/FRAME Hz. */
export function spectrum(pcm: Pcm): Float64Array {
  const power = new Float64Array(FRAME / 2);
  const s = pcm.samples;
  const window = new Float64Array(FRAME);
  for (let i = 0; i < FRAME; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (FRAME - 1));
  for (let start = 0; start < Math.max(1, s.length - FRAME / 2); start += FRAME / 2) {
    const re = new Float64Array(FRAME);
    const im = new Float64Array(FRAME);
    for (let i = 0; i < FRAME && start + i < s.length; i++)
      re[i] = ((s[start + i] as number) / 32768) * (window[i] as number);
    fft(re, im);
    for (let k = 0; k < FRAME / 2; k++)
      power[k] = (power[k] as number) + (re[k] as number) ** 2 + (im[k] as number) ** 2;
  }
  return power;
}

/** The frequency with the most energy above 40 Hz, refined between bins; 0 for silence. */
export function dominantHz(pcm: Pcm): number {
  const p = spectrum(pcm);
  const binHz = pcm.rate / FRAME;
  let best = -1;
  for (let k = Math.ceil(40 / binHz); k < p.length - 1; k++)
    if (best < 0 || (p[k] as number) > (p[best] as number)) best = k;
  if (best < 1 || (p[best] as number) === 0) return 0;
  // Parabolic interpolation on the log power of the peak and its neighbours.
  const a = Math.log((p[best - 1] as number) + 1e-30);
  const b = Math.log((p[best] as number) + 1e-30);
  const c = Math.log((p[best + 1] as number) + 1e-30);
  const d = a - 2 * b + c;
  const shift = d === 0 ? 0 : (0.5 * (a - c)) / d;
  return (best + shift) * binHz;
}

/** RMS of each `frameMs` frame. */
export function envelopeOf(pcm: Pcm, frameMs = 20): number[] {
  const n = Math.max(1, Math.round((pcm.rate * frameMs) / 1000));
  const out: number[] = [];
  for (let i = 0; i < pcm.samples.length; i += n) out.push(rmsOf(pcm.samples.subarray(i, i + n)));
  return out;
}

/** Every measure of a clip at once. */
export function measure(pcm: Pcm): AudioMeasure {
  return {
    durationMs: durationMs(pcm),
    rms: rmsOf(pcm.samples),
    peak: peakOf(pcm.samples),
    dominantHz: dominantHz(pcm),
    envelope: envelopeOf(pcm),
  };
}
