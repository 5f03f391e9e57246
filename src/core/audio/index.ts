/** Audio of the gateway: one PCM format, the sink contract, the arbiter, sounds, volume, media by URL. */

export { type Clock, systemClock } from '../../lib/clock.ts';
export {
  type ArbiterOptions,
  AudioArbiter,
  type ClipSource,
  LAYER_RANK,
  type Layer,
  type Playing,
  type PlayRequest,
  type PlayResult,
} from './arbiter.ts';
export { decodeAudio, decodeMp3, sniffAudio } from './decode.ts';
export { AudioDecoder, INLINE_BYTES } from './decoder.ts';
export { type BeepSwitches, EventBeeps } from './event-beeps.ts';
export { SOUNDS_DIR, SoundLibrary } from './library.ts';
export { type AudioMeasure, dominantHz, envelopeOf, measure, peakOf, rmsOf } from './measure.ts';
export {
  type AudioFetcher,
  checkAudioUrl,
  type FetchOutcome,
  type LoadOutcome,
  type MediaLimits,
  type MediaOutcome,
  MediaPlayer,
} from './media.ts';
export { durationMs, type Pcm, resample, SAMPLE_RATE } from './pcm.ts';
export type { AudioSink, ClipInfo, SinkClip, SinkEnd, SinkPlayback } from './sink.ts';
export { type SoundDesign, soundDesigns, soundFile } from './sound-designs.ts';
export { render, type Step } from './synth.ts';
export { gainOf, scalePcm } from './volume.ts';
export { AudioFormatError, decodeWav, encodeWav, wavHeader } from './wav.ts';
