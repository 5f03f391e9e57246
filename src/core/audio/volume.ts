/**
 * Volume is applied to the samples themselves, not left to a mixer: every sink (a pipe to aplay,
 * a networked speaker, a file) then sounds the same, and what a sink received can be measured.
 *
 * The scale is linear in amplitude: volume 50 gives half the amplitude (and half the RMS) of
 * volume 100, i.e. -6 dB. The gateway volume (G3) and a request's own volume (G9, speak) multiply.
 */
import type { Pcm } from './pcm.ts';

/** The gain (0..1) of a request's volume under the gateway volume, both 0-100. */
export function gainOf(gatewayVolume: number, requestVolume = 100): number {
  const clamp = (v: number) => Math.min(100, Math.max(0, Number.isFinite(v) ? v : 0));
  return (clamp(gatewayVolume) / 100) * (clamp(requestVolume) / 100);
}

/** The samples multiplied by `gain`, rounded and clipped to 16 bits. A gain of 1 returns `pcm` itself. */
export function scalePcm(pcm: Pcm, gain: number): Pcm {
  if (gain === 1) return pcm;
  const src = pcm.samples;
  const out = new Int16Array(src.length);
  // A gain of at most 1 keeps every sample within 16 bits: no clipping to do.
  if (gain >= 0 && gain < 1) {
    for (let i = 0; i < src.length; i++) out[i] = Math.round((src[i] as number) * gain);
    return { rate: pcm.rate, samples: out };
  }
  for (let i = 0; i < src.length; i++) {
    const v = Math.round((src[i] as number) * gain);
    out[i] = Math.min(32767, Math.max(-32768, v));
  }
  return { rate: pcm.rate, samples: out };
}
