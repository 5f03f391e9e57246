/**
 * Helpers of the audio tests: a clock driven by hand (playback countdowns run on it, so no test
 * waits real seconds), a gateway whose speaker is a recording sink on that clock, and the
 * measures used to compare what the sink received.
 */
import type { Clock } from '../../src/core/audio/clock.ts';
import { type Pcm, SAMPLE_RATE } from '../../src/core/audio/pcm.ts';
import { RecordingSink } from '../../src/drivers/audio/recording-sink.ts';
import { type StartOptions, startGateway, type TestGateway } from './foundation.ts';

/** A clock that moves only when told; timers fire in order as it passes them. */
export class ManualClock implements Clock {
  private timers: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;

  constructor(private t = Date.UTC(2025, 0, 1)) {}

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }

  /** Moves time forward by `ms`, firing each timer due on the way at its own time. */
  advance(ms: number): void {
    const target = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = target;
  }

  /** Timers not yet fired. */
  pending(): number {
    return this.timers.length;
  }
}

export interface AudioGateway extends TestGateway {
  clock: ManualClock;
  sink: RecordingSink;
  /** Restarts on the same data folder, with the same sink and clock. */
  restart(): Promise<AudioGateway>;
}

/** A test gateway whose speaker is a recording sink on a manual clock. */
export async function startAudioGateway(opts: StartOptions = {}): Promise<AudioGateway> {
  const clock = new ManualClock();
  const sink = new RecordingSink(clock);
  const g = await startGateway({ ...opts, gatewayOptions: { ...opts.gatewayOptions, audio: { sink, clock } } });
  const withAudio = (t: TestGateway): AudioGateway => {
    const restart = t.restart.bind(t);
    return Object.assign(t, { clock, sink, restart: async () => withAudio(await restart()) });
  };
  return withAudio(g);
}

/** A pure sine of `hz`, `ms` long, at `amp` of full scale. */
export function sine(hz: number, ms: number, amp = 0.5, rate = SAMPLE_RATE): Pcm {
  const n = Math.round((ms * rate) / 1000);
  const samples = new Int16Array(n);
  for (let i = 0; i < n; i++) samples[i] = Math.round(amp * 32767 * Math.sin((2 * Math.PI * hz * i) / rate));
  return { rate, samples };
}
