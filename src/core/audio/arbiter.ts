import type { Clock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { durationMs, type Pcm, rotate, samplesFor, sliceFrom } from './pcm.ts';
import type { AudioSink, SinkPlayback } from './sink.ts';
import { gainOf, scalePcm } from './volume.ts';

/** What a request is, which decides what it may interrupt. */
export type Layer = 'alarm' | 'speech' | 'media' | 'sound' | 'beep';

/** Priority of each layer: alarm above speech and media (equal) above sounds above beeps. */
export const LAYER_RANK: Readonly<Record<Layer, number>> = Object.freeze({
  alarm: 4,
  speech: 3,
  media: 3,
  sound: 2,
  beep: 1,
});

/** Looks up a named sound or beep (the SoundLibrary). */
export interface ClipSource {
  get(kind: 'sound' | 'beep', name: string): Pcm | undefined;
}

export interface PlayRequest {
  layer: Layer;
  /** A sound or beep name (looked up when `clip` is absent), or a label for `clip`. */
  name: string;
  /** The audio to play; by default the library's sound (beep for the beep layer) called `name`. */
  clip?: Pcm;
  /** The request's own volume 0-100 (default 100), under the gateway volume. */
  volume?: number;
  /**
   * Absent: the clip plays once. `until`: it repeats until that clock time (ms), or until stopped
   * when null. `forMs`: it repeats for that long from now (a G9 countdown).
   */
  repeat?: { until: number | null } | { forMs: number };
}

/** A request the arbiter holds, as callers see it. */
export interface Playing {
  id: number;
  layer: Layer;
  name: string;
  volume: number;
  /** Clock time (ms) it was accepted. */
  startedAt: number;
  /** Clock time it ends by itself; null: only when stopped. */
  endsAt: number | null;
  loop: boolean;
  /** Length of one pass of the clip, ms. */
  clipMs: number;
  /** Heard now: the highest request held, and the speaker not muted. */
  audible: boolean;
}

export type PlayResult = { ok: true; playing: Playing } | { ok: false; reason: string };

export interface ArbiterOptions {
  sink: AudioSink;
  clock: Clock;
  library?: ClipSource;
  /** Gateway volume 0-100 (G3); default 50. */
  volume?: number;
  muted?: boolean;
  log?: Log;
}

interface Entry {
  id: number;
  layer: Layer;
  rank: number;
  name: string;
  clip: Pcm;
  volume: number;
  startedAt: number;
  endsAt: number | null;
  loop: boolean;
  cancelTimer?: () => void;
}

interface Output {
  id: number;
  gain: number;
  handle: SinkPlayback;
}

/**
 * Decides what the speaker plays. It holds at most one request per priority (speech and media
 * share one); the highest one held is heard, unless the speaker is muted.
 *
 * - A request replaces the one of its own priority (a new sound replaces the playing sound).
 * - A higher request cuts lower clips that play once (a beep, a sentence): heard later they would
 *   be stale. Lower repeating requests wait beneath it and are heard again, at the point their
 *   loop has reached, when it ends, if their own time has not run out meanwhile.
 * - A request below what is held is refused when it plays once, and held beneath when it repeats.
 * - Mute silences the sink but keeps every request and its timers; unmute resumes the highest one
 *   where it would be now. The gateway volume and each request's volume scale the samples
 *   (volume.ts); a volume change re-sends the rest of the clip at the new gain.
 * - Countdowns and clip lengths run on the injected Clock.
 *
 * For the alarm service, one call each way:
 *   `arbiter.play({ layer: 'alarm', name: 'alarm1', repeat: { until: null } })` rings above
 *   everything until `arbiter.stop('alarm')`; `repeat: { until: <clock ms> }` (or `{ forMs }`)
 *   ends it by itself then. `stop(playing.id)` stops only that request, not a newer one.
 */
export class AudioArbiter {
  private readonly slots = new Map<number, Entry>();
  private output: Output | null = null;
  private nextId = 1;
  private volume: number;
  private muted: boolean;

  constructor(private readonly opts: ArbiterOptions) {
    this.volume = opts.volume ?? 50;
    this.muted = opts.muted ?? false;
  }

  /** The clock time of the arbiter (ms). */
  now(): number {
    return this.opts.clock.now();
  }

  /** Accepts a request (see the class comment for who wins); refusals are values with a reason. */
  play(req: PlayRequest): PlayResult {
    const rank = LAYER_RANK[req.layer];
    if (rank === undefined) return { ok: false, reason: `layer ${JSON.stringify(req.layer)} is unknown` };
    let clip: Pcm | undefined;
    try {
      clip = req.clip ?? this.opts.library?.get(req.layer === 'beep' ? 'beep' : 'sound', req.name);
    } catch (err) {
      // A sound file damaged since the start: this sound is refused with the reason, the others play.
      return { ok: false, reason: (err as Error).message };
    }
    if (!clip)
      return {
        ok: false,
        reason: `no ${req.layer === 'beep' ? 'beep' : 'sound'} is named ${JSON.stringify(req.name)}`,
      };
    if (clip.samples.length === 0) return { ok: false, reason: `${JSON.stringify(req.name)} has no audio` };
    const now = this.now();
    const repeat = req.repeat;
    let until = repeat === undefined ? undefined : 'forMs' in repeat ? now + repeat.forMs : repeat.until;
    if (typeof until === 'number' && !(until > now))
      return {
        ok: false,
        reason: repeat && 'forMs' in repeat ? 'repeat.forMs is not above 0' : 'repeat.until is not in the future',
      };
    // "Forever" given as a number means until stopped.
    if (until === Number.POSITIVE_INFINITY) until = null;
    const loop = req.repeat !== undefined;
    const top = this.top();
    if (!loop && top && top.rank > rank)
      return { ok: false, reason: `${top.layer} ${JSON.stringify(top.name)} is playing, above ${req.layer}` };

    const old = this.slots.get(rank);
    if (old) this.remove(old);
    for (const e of [...this.slots.values()]) if (e.rank < rank && !e.loop) this.remove(e);
    const entry: Entry = {
      id: this.nextId++,
      layer: req.layer,
      rank,
      name: req.name,
      clip,
      volume: Math.min(100, Math.max(0, req.volume ?? 100)),
      startedAt: now,
      // Whole milliseconds: clock times stay exact integers (a fraction is lost next to an epoch time).
      endsAt: loop ? (until ?? null) : now + Math.ceil(durationMs(clip)),
      loop,
    };
    this.slots.set(rank, entry);
    if (entry.endsAt !== null) entry.cancelTimer = this.opts.clock.setTimer(entry.endsAt - now, () => this.end(entry));
    // The same `now`: a clock that ticks in between must not start a new clip a millisecond in.
    this.refresh(now);
    return { ok: true, playing: this.view(entry) };
  }

  /**
   * Stops requests: all of them, those of some layers, or one by its id. Returns how many stopped.
   * Whatever was beneath them is heard again.
   */
  stop(target?: Layer | readonly Layer[] | number): number {
    const match = (e: Entry) =>
      target === undefined ||
      (typeof target === 'number'
        ? e.id === target
        : typeof target === 'string'
          ? e.layer === target
          : target.includes(e.layer));
    const hit = [...this.slots.values()].filter(match);
    for (const e of hit) this.remove(e);
    if (hit.length > 0) this.refresh();
    return hit.length;
  }

  /** Mutes or unmutes; requests and their countdowns go on either way. */
  setMuted(muted: boolean): void {
    this.muted = muted;
    this.refresh();
  }

  /** Sets the gateway volume (0-100); what plays is re-sent at the new gain. */
  setVolume(volume: number): void {
    this.volume = Math.min(100, Math.max(0, volume));
    this.refresh();
  }

  /** The request heard now (or that would be, when muted), if any. */
  current(): Playing | null {
    const top = this.top();
    return top ? this.view(top) : null;
  }

  /** Every request held, highest first. */
  entries(): Playing[] {
    return [...this.slots.values()].sort((a, b) => b.rank - a.rank).map((e) => this.view(e));
  }

  /** Stops everything and closes the sink. */
  async close(): Promise<void> {
    this.stop();
    await this.opts.sink.close();
  }

  private top(): Entry | undefined {
    let best: Entry | undefined;
    for (const e of this.slots.values()) if (!best || e.rank > best.rank) best = e;
    return best;
  }

  private view(e: Entry): Playing {
    return {
      id: e.id,
      layer: e.layer,
      name: e.name,
      volume: e.volume,
      startedAt: e.startedAt,
      endsAt: e.endsAt,
      loop: e.loop,
      clipMs: durationMs(e.clip),
      audible: !this.muted && this.top() === e,
    };
  }

  /** A request's own time is up: a clip played once has finished; a repeat's countdown ran out. */
  private end(e: Entry): void {
    if (this.slots.get(e.rank) !== e) return;
    // A clip that played through finishes at the sink by itself; cutting it would clip its tail.
    if (!e.loop && this.output?.id === e.id) this.output = null;
    this.remove(e);
    this.refresh();
  }

  private remove(e: Entry): void {
    e.cancelTimer?.();
    if (this.slots.get(e.rank) === e) this.slots.delete(e.rank);
    if (this.output?.id === e.id) {
      this.output.handle.stop();
      this.output = null;
    }
  }

  /** Makes the sink play what should be heard now. */
  private refresh(now = this.now()): void {
    const want = this.muted ? undefined : this.top();
    const gain = want ? gainOf(this.volume, want.volume) : 0;
    if (this.output && want && this.output.id === want.id && this.output.gain === gain) return;
    if (this.output) {
      this.output.handle.stop();
      this.output = null;
    }
    if (!want) return;
    const offset = samplesFor(now - want.startedAt, want.clip.rate);
    if (!want.loop && offset >= want.clip.samples.length) return;
    const pcm = want.loop ? rotate(want.clip, offset) : sliceFrom(want.clip, offset);
    try {
      const handle = this.opts.sink.play({
        pcm: scalePcm(pcm, gain),
        loop: want.loop,
        info: { name: want.name, layer: want.layer, gain },
      });
      const { name, layer } = want;
      void handle.ended.then((end) => {
        if (end.kind === 'failed') this.opts.log?.warn({ name, layer, reason: end.reason }, 'audio output failed');
      });
      this.output = { id: want.id, gain, handle };
    } catch (err) {
      // A sink must not throw; if one does, the request stays held (state is what clients see).
      this.opts.log?.warn({ err, name: want.name }, 'audio sink failed to start');
    }
  }
}
