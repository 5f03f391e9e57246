/**
 * The audio sink contract: where the gateway's sound goes. A sink receives finished audio,
 * already mixed down, resampled and scaled by the volume; it decides nothing. The arbiter
 * (arbiter.ts) tells it what to play and when to stop; a sink plays one clip at a time, and a new
 * `play` cuts whatever the sink still plays.
 *
 * Implementations live in src/drivers/audio/: aplay (ALSA), a configured command, null, recording.
 */
import type { Pcm } from './pcm.ts';

/** Who asked for a clip, for logs and the recording sink. */
export interface ClipInfo {
  name: string;
  layer: string;
  /** The gain the samples were scaled by (0..1). */
  gain: number;
}

export interface SinkClip {
  pcm: Pcm;
  /** Repeat the clip until stopped. */
  loop: boolean;
  info: ClipInfo;
}

/** How a clip ended at the sink. */
export type SinkEnd = { kind: 'finished' } | { kind: 'stopped' } | { kind: 'failed'; reason: string };

/** One clip being played. */
export interface SinkPlayback {
  /** Stops at once. Stopping twice, or after the end, does nothing. */
  stop(): void;
  /** Settles when the output finished, was stopped, or failed; never rejects. */
  readonly ended: Promise<SinkEnd>;
}

export interface AudioSink {
  /** `aplay`, `command`, `null`, `recording`. */
  readonly kind: string;
  /** Starts a clip, cutting the one still playing. Never throws for output errors: `ended` reports them. */
  play(clip: SinkClip): SinkPlayback;
  /** Stops what plays and releases the output. */
  close(): Promise<void>;
}
