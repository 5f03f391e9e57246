/**
 * Beeps on gateway events, as their names say: boot complete, device discovered, system armed,
 * system disarmed, factory reset. Each can be switched off (settings `audio.beeps.*`). Armed and
 * disarmed are told by the alarm (core/alarm), not read from arm_state events: `arming` is sent
 * when a mode is asked to arm, and "system Armed" must wait for the end of its exit delay.
 */
import type { EventBus } from '../event-bus.ts';

export interface BeepSwitches {
  boot_complete: boolean;
  device_discovered: boolean;
  armed: boolean;
  disarmed: boolean;
  factory_reset: boolean;
}

export class EventBeeps {
  private off: (() => void) | undefined;

  /** `beep` plays a beep by its spec name. */
  constructor(
    private readonly bus: EventBus,
    private readonly beep: (name: string) => void,
    private readonly on: BeepSwitches,
  ) {}

  /** Starts beeping on bus events (device discovered). */
  start(): void {
    this.off ??= this.bus.subscribe((e) => {
      if (e.name === 'device#addDevice' && this.on.device_discovered) this.beep('deviceDiscovered');
    });
  }

  stop(): void {
    this.off?.();
    this.off = undefined;
  }

  /** The gateway has started and listens. */
  bootComplete(): void {
    if (this.on.boot_complete) this.beep('bootComplete');
  }

  /** A security mode is armed (its exit delay is over). */
  armed(): void {
    if (this.on.armed) this.beep('system Armed');
  }

  /** A security mode is disarmed. */
  disarmed(): void {
    if (this.on.disarmed) this.beep('system Disarmed');
  }

  /** A factory reset has been done. */
  factoryReset(): void {
    if (this.on.factory_reset) this.beep('factoryReset');
  }
}
