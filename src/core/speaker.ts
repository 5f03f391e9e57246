import type { KvStore } from '../store/db.ts';
import type { AudioArbiter } from './audio/arbiter.ts';
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
  /** Heard now: false while muted, or while something of higher priority (an alarm, speech) plays. */
  audible: boolean;
}

const KEY = 'speaker';
const DEFAULT: SpeakerState = { volume: 50, muted: false, alarm_sound: true, alarm_state: 'normal' };

/**
 * The gateway speaker's settings (G3, G5, G6, G7) and its G9 sounds and beeps. Every change is
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
    private readonly bus: EventBus,
    private readonly output: AudioArbiter,
  ) {
    this.state = { ...DEFAULT, ...kv.get<Partial<SpeakerState>>(KEY, {}) };
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

  /** Silences a sounding alarm (G7): alarm and sounds stop; tells stream clients the alarm state changed. */
  cancelAlarm(): void {
    this.output.stop(['alarm', 'sound']);
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
