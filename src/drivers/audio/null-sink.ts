import type { AudioSink, SinkClip, SinkEnd, SinkPlayback } from '../../core/audio/sink.ts';

/**
 * The sink of a machine without a sound card: it plays nothing. What plays, at which volume and
 * until when is kept by the arbiter, not the sink, so the API answers the same without speakers.
 */
export class NullSink implements AudioSink {
  readonly kind = 'null';
  private stopCurrent: (() => void) | undefined;

  play(clip: SinkClip): SinkPlayback {
    this.stopCurrent?.();
    let settle: (end: SinkEnd) => void = () => {};
    const ended = new Promise<SinkEnd>((resolve) => {
      settle = resolve;
    });
    // Nothing to wait for: a clip played once is done at once; a loop until it is stopped.
    if (!clip.loop) settle({ kind: 'finished' });
    const stop = () => settle({ kind: 'stopped' });
    this.stopCurrent = stop;
    return { stop, ended };
  }

  async close(): Promise<void> {
    this.stopCurrent?.();
  }
}
