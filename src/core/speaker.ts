import type { KvStore } from '../store/db.ts';
import type { AudioArbiter } from './audio/arbiter.ts';

/** The speaker's persisted state. The alarm state belongs to the alarm (core/alarm). */
export interface SpeakerState {
  volume: number;
  muted: boolean;
}

/** A sound or beep request of G9. countdown -1 rings until cancel_alarm. */
export interface PlayRequest {
  kind: 'sound' | 'beep';
  name: string;
  volume: number;
  countdown: number;
}

/** What the speaker is playing now, if anything. */
export interface Playback extends PlayRequest {
  started_at: string;
  /** When playback stops by itself; null rings until cancelled. */
  until: string | null;
  /** Heard now: false while muted, or while something of higher priority (an alarm, speech) plays. */
  audible: boolean;
}

const KEY = 'speaker';
const DEFAULT: SpeakerState = { volume: 50, muted: false };

/**
 * The gateway speaker's settings (G3, G5, G6) and its G9 sounds and beeps. Every change is
 * written to the store before the method returns. What is heard is decided by the audio arbiter
 * (core/audio/arbiter.ts): sounds and beeps are two of its layers, muting and the volume apply to
 * all of them.
 */
export class SpeakerService {
  private state: SpeakerState;
  /** The last G9 request and the arbiter's id for it. */
  private g9: { id: number; request: PlayRequest } | null = null;

  constructor(
    private readonly kv: KvStore,
    private readonly output: AudioArbiter,
  ) {
    const stored = kv.get<Partial<SpeakerState>>(KEY, {});
    this.state = { volume: stored.volume ?? DEFAULT.volume, muted: stored.muted ?? DEFAULT.muted };
    output.setVolume(this.state.volume);
    output.setMuted(this.state.muted);
  }

  get(): SpeakerState {
    return { ...this.state };
  }

  setVolume(volume: number): void {
    this.save({ volume });
    this.output.setVolume(volume);
  }

  /** Silences everything; what plays keeps its place and its countdown (G5). */
  mute(): void {
    this.save({ muted: true });
    this.output.setMuted(true);
  }

  /** Lets what is still playing be heard again (G6). */
  unmute(): void {
    this.save({ muted: false });
    this.output.setMuted(false);
  }

  /** The G9 sound or beep playing now (heard or not), if any. */
  nowPlaying(): Playback | null {
    if (!this.g9) return null;
    const id = this.g9.id;
    const held = this.output.entries().find((e) => e.id === id);
    if (!held) return null;
    return {
      ...this.g9.request,
      started_at: new Date(held.startedAt).toISOString(),
      until: held.endsAt === null ? null : new Date(held.endsAt).toISOString(),
      audible: held.audible,
    };
  }

  /**
   * Plays a sound or beep (G9). A sound repeats for `countdown` seconds (-1: until cancel_alarm;
   * 0: once through); a beep plays once. A new sound replaces the playing one. A beep refused by
   * the arbiter (something above it plays) is simply not heard, as on the hardware.
   */
  play(request: PlayRequest): void {
    const repeat =
      request.kind === 'beep' || request.countdown === 0
        ? undefined
        : request.countdown < 0
          ? { until: null }
          : { forMs: request.countdown * 1000 };
    const r = this.output.play({ layer: request.kind, name: request.name, volume: request.volume, repeat });
    if (r.ok) this.g9 = { id: r.playing.id, request: { ...request } };
  }

  /** Stops everything that plays. */
  stopPlayback(): void {
    this.output.stop();
  }

  /** cancel_alarm (G7) also stops a G9 sound: one client rings `countdown: -1` until it (COMPAT.md). */
  cancelSound(): void {
    this.output.stop('sound');
  }

  private save(patch: Partial<SpeakerState>): void {
    const next = { ...this.state, ...patch };
    this.kv.set(KEY, next);
    this.state = next;
  }
}
