/**
 * Beeps on gateway events, as their names say: boot complete, device discovered, system armed,
 * system disarmed, factory reset. Each can be switched off (settings `audio.beeps.*`).
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

  /** Starts beeping on bus events (device discovered, armed, disarmed). */
  start(): void {
    this.off ??= this.bus.subscribe((e) => {
      if (e.name === 'device#addDevice' && this.on.device_discovered) this.beep('deviceDiscovered');
      else if (e.name === 'security#updateArmState') {
        const state = (e.data as { payload: { arm_state: string } }).payload.arm_state;
        if (state === 'arming' && this.on.armed) this.beep('system Armed');
        if (state === 'disarming' && this.on.disarmed) this.beep('system Disarmed');
      }
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

  /** A factory reset has been done. */
  factoryReset(): void {
    if (this.on.factory_reset) this.beep('factoryReset');
  }
}
