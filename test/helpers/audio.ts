/**
 * Helpers of the audio tests: a clock driven by hand (playback countdowns run on it, so no test
 * waits real seconds), a gateway whose speaker is a recording sink on that clock, and the
 * measures used to compare what the sink received.
 */

import { type Pcm, SAMPLE_RATE } from '../../src/core/audio/pcm.ts';
import { ManualClock } from './clock.ts';

export { ManualClock } from './clock.ts';

import { RecordingSink } from '../../src/drivers/audio/recording-sink.ts';
import { type StartOptions, startGateway, type TestGateway } from './foundation.ts';

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
  const g = await startGateway({ ...opts, gatewayOptions: { ...opts.gatewayOptions, audio: { sink }, clock } });
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
