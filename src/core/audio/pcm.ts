/**
 * Audio inside the gateway is one format: mono, 16-bit signed samples at SAMPLE_RATE. Everything
 * that enters (sounds, synthesised speech, fetched WAV/MP3) is converted to it once, so the
 * arbiter, the volume scaling and every sink deal with one shape only.
 */

/** The one sample rate of the gateway: eSpeak NG's native rate, and ample for a small speaker. */
export const SAMPLE_RATE = 22050;

/** Mono 16-bit PCM. */
export interface Pcm {
  rate: number;
  samples: Int16Array;
}

/** Duration in milliseconds. */
export function durationMs(pcm: Pcm): number {
  return (pcm.samples.length * 1000) / pcm.rate;
}

/** Samples covering `ms` milliseconds at `rate`, rounded down. */
export function samplesFor(ms: number, rate = SAMPLE_RATE): number {
  return Math.max(0, Math.floor((ms * rate) / 1000));
}

/** The audio from `offset` samples on (a shared view, not a copy). */
export function sliceFrom(pcm: Pcm, offset: number): Pcm {
  return { rate: pcm.rate, samples: pcm.samples.subarray(Math.min(Math.max(0, offset), pcm.samples.length)) };
}

/** The same loop started `offset` samples in: what a loop sounds like when picked up mid-way. */
export function rotate(pcm: Pcm, offset: number): Pcm {
  const n = pcm.samples.length;
  if (n === 0) return pcm;
  const k = ((offset % n) + n) % n;
  if (k === 0) return pcm;
  const out = new Int16Array(n);
  out.set(pcm.samples.subarray(k), 0);
  out.set(pcm.samples.subarray(0, k), n - k);
  return { rate: pcm.rate, samples: out };
}

/** Float samples in -1..1 to 16-bit, clipped (rounding half away from zero, as the sounds were made). */
export function fromFloat(samples: ArrayLike<number>, rate: number): Pcm {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const v = Math.max(-1, Math.min(1, samples[i] as number)) * 32767;
    out[i] = v < 0 ? -Math.round(-v) : Math.round(v);
  }
  return { rate, samples: out };
}

/**
 * Resamples to `rate` by linear interpolation. Good enough for speech and alerts on a small
 * speaker; music loses a little of its top octave, which such speakers do not reproduce anyway.
 */
export function resample(pcm: Pcm, rate: number): Pcm {
  if (pcm.rate === rate || pcm.samples.length === 0) return { rate, samples: pcm.samples };
  const src = pcm.samples;
  const n = Math.max(1, Math.round((src.length * rate) / pcm.rate));
  const out = new Int16Array(n);
  const step = pcm.rate / rate;
  for (let i = 0; i < n; i++) {
    const x = i * step;
    const j = Math.floor(x);
    const f = x - j;
    const a = src[Math.min(j, src.length - 1)] as number;
    const b = src[Math.min(j + 1, src.length - 1)] as number;
    out[i] = Math.round(a + (b - a) * f);
  }
  return { rate, samples: out };
}

/** Averages channels of interleaved or planar float/int data into one mono float track. */
export function downmix(channels: readonly ArrayLike<number>[], length: number): Float32Array {
  const out = new Float32Array(length);
  if (channels.length === 0) return out;
  for (const ch of channels) for (let i = 0; i < length; i++) out[i] += (ch[i] as number) / channels.length;
  return out;
}
