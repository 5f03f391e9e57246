import { durationMs, type Pcm } from '../../core/audio/pcm.ts';
import type { AudioSink, SinkClip, SinkEnd, SinkPlayback } from '../../core/audio/sink.ts';
import type { Clock } from '../../lib/clock.ts';

/** One clip the recording sink was given. */
export interface Recorded {
  name: string;
  layer: string;
  gain: number;
  loop: boolean;
  /** The samples as received: already scaled by the volume. */
  pcm: Pcm;
  /** Clock time it started (ms). */
  startedAt: number;
  /** Clock time it was stopped or cut by the next clip; null while it plays or once it played through. */
  stoppedAt: number | null;
}

/**
 * A sink that keeps everything it is given, timed by the injected clock: what played, at which
 * gain, for how long, and what cut what. Tests use it in place of a speaker; it is a real sink, so
 * it can also be chosen for diagnostics.
 */
export class RecordingSink implements AudioSink {
  readonly kind = 'recording';
  readonly plays: Recorded[] = [];
  private current: { rec: Recorded; settle: (end: SinkEnd) => void } | undefined;

  constructor(private readonly clock: Clock) {}

  play(clip: SinkClip): SinkPlayback {
    this.cut();
    const rec: Recorded = {
      name: clip.info.name,
      layer: clip.info.layer,
      gain: clip.info.gain,
      loop: clip.loop,
      pcm: clip.pcm,
      startedAt: this.clock.now(),
      stoppedAt: null,
    };
    this.plays.push(rec);
    let settle: (end: SinkEnd) => void = () => {};
    const ended = new Promise<SinkEnd>((resolve) => {
      settle = resolve;
    });
    const entry = { rec, settle };
    this.current = entry;
    return {
      ended,
      stop: () => {
        if (this.current === entry) this.cut();
      },
    };
  }

  /** How long a recorded clip was heard, by the clock (up to now for one still playing). */
  heardMs(rec: Recorded): number {
    const end = rec.loop ? Number.POSITIVE_INFINITY : rec.startedAt + durationMs(rec.pcm);
    return Math.min(end, rec.stoppedAt ?? this.clock.now()) - rec.startedAt;
  }

  /** The clip heard now, if any. */
  playing(): Recorded | undefined {
    const rec = this.current?.rec;
    return rec && this.sounding(rec) ? rec : undefined;
  }

  private sounding(rec: Recorded): boolean {
    return rec.stoppedAt === null && (rec.loop || this.clock.now() < rec.startedAt + durationMs(rec.pcm));
  }

  async close(): Promise<void> {
    this.cut();
  }

  private cut(): void {
    const cur = this.current;
    if (!cur) return;
    this.current = undefined;
    if (this.sounding(cur.rec)) {
      cur.rec.stoppedAt = this.clock.now();
      cur.settle({ kind: 'stopped' });
    } else {
      cur.settle({ kind: 'finished' });
    }
  }
}
