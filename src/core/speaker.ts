import type { KvStore } from '../store/db.ts';
import type { EventBus } from './event-bus.ts';

/** The speaker's persisted state. */
export interface SpeakerState {
  volume: number;
  muted: boolean;
  /** Whether alarm sounds are allowed; cancel_alarm turns this off until the next arming. */
  alarm_sound: boolean;
  /** The gateway's alarm state as reported by bridge#updateAlarmState. */
  alarm_state: 'normal' | 'alarming' | 'cancelled';
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
}

/** Where sound goes; the audio backend is supplied by the composition root. */
export interface AudioOutput {
  play(request: PlayRequest): void;
  stop(): void;
}

const KEY = 'speaker';
const DEFAULT: SpeakerState = { volume: 50, muted: false, alarm_sound: true, alarm_state: 'normal' };

/**
 * The gateway speaker's settings (G3, G5, G6, G7). Every change is written to the store before
 * the method returns. The audio output itself is driven by the speaker issue.
 */
export class SpeakerService {
  private state: SpeakerState;
  private playback: Playback | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly kv: KvStore,
    private readonly bus: EventBus,
    private readonly output?: AudioOutput,
  ) {
    this.state = { ...DEFAULT, ...kv.get<Partial<SpeakerState>>(KEY, {}) };
  }

  get(): SpeakerState {
    return { ...this.state };
  }

  setVolume(volume: number): void {
    this.save({ volume });
  }

  mute(): void {
    this.stopPlayback();
    this.save({ muted: true });
  }

  unmute(): void {
    this.save({ muted: false });
  }

  /** What is playing now. */
  nowPlaying(): Playback | null {
    return this.playback ? { ...this.playback } : null;
  }

  /** Plays a sound or beep (G9). Muted speakers play nothing; a new request replaces the current one. */
  play(request: PlayRequest): void {
    this.stopPlayback();
    if (this.state.muted) return;
    const now = Date.now();
    const seconds = request.kind === 'beep' ? 1 : request.countdown;
    this.playback = {
      ...request,
      started_at: new Date(now).toISOString(),
      until: seconds < 0 ? null : new Date(now + seconds * 1000).toISOString(),
    };
    this.output?.play(request);
    if (seconds >= 0) {
      this.timer = setTimeout(() => this.stopPlayback(), seconds * 1000);
      this.timer.unref();
    }
  }

  /** Stops whatever is playing. */
  stopPlayback(): void {
    clearTimeout(this.timer);
    if (this.playback) this.output?.stop();
    this.playback = null;
  }

  /** Silences a sounding alarm (G7) and tells stream clients the alarm state changed. */
  cancelAlarm(): void {
    this.stopPlayback();
    const changed = this.state.alarm_state !== 'cancelled';
    this.save({ alarm_sound: false, alarm_state: 'cancelled' });
    if (changed) this.bus.publish('bridge#updateAlarmState', { payload: { alarm_state: 'cancelled' } });
  }

  /** Re-allows alarm sounds, e.g. when a security mode is armed again. */
  rearm(): void {
    if (this.state.alarm_sound && this.state.alarm_state === 'normal') return;
    this.save({ alarm_sound: true, alarm_state: 'normal' });
    this.bus.publish('bridge#updateAlarmState', { payload: { alarm_state: 'normal' } });
  }

  private save(patch: Partial<SpeakerState>): void {
    const next = { ...this.state, ...patch };
    this.kv.set(KEY, next);
    this.state = next;
  }
}
