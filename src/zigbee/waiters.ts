/**
 * Commands in flight to one Zigbee device, confirmed by the state the device is seen in
 * afterwards, shared by the Zigbee drivers: a command waits for the expected state, for the
 * failure its backend reports, or for its deadline, whichever comes first.
 */
import type { Clock } from '../lib/clock.ts';
import { type Expectation, meets } from './mapping.ts';

export type Verb = 'set' | 'get';
export type Confirmation = { ok: true } | { ok: false; message: string };

/** How a driver words a command that was not confirmed in time. */
export type TimeoutWording = (verb: Verb, waitMs: number) => string;

interface Waiter {
  verb: Verb;
  expect: Expectation[];
  met: Set<string>;
  done(r: Confirmation): void;
}

/** The commands in flight to one device. */
export class DeviceWaiters {
  private readonly waiters = new Set<Waiter>();

  constructor(private readonly timedOut: TimeoutWording) {}

  /**
   * Sends with `send` and resolves once every expectation is met by a state seen, or with the
   * failure `send` resolves with, a failure reported meanwhile, or the timeout. No expectation:
   * done once sent.
   */
  run(
    verb: Verb,
    expect: Expectation[],
    waitMs: number,
    clock: Clock,
    send: () => Promise<Confirmation>,
  ): Promise<Confirmation> {
    return new Promise((resolve) => {
      let cancel: (() => void) | undefined;
      const waiter: Waiter = {
        verb,
        expect,
        met: new Set(),
        done: (r) => {
          cancel?.();
          this.waiters.delete(waiter);
          resolve(r);
        },
      };
      if (expect.length > 0) {
        this.waiters.add(waiter);
        cancel = clock.setTimer(waitMs, () => waiter.done({ ok: false, message: this.timedOut(verb, waitMs) }));
      }
      void send().then((r) => {
        if (!r.ok) waiter.done(r);
        else if (expect.length === 0) waiter.done(r);
      });
    });
  }

  /** A state of the device (a message, or a command's result): settles the commands it confirms. */
  stateSeen(msg: Record<string, unknown>): void {
    for (const w of [...this.waiters]) {
      for (const x of w.expect) if (!w.met.has(x.property) && meets(x, msg[x.property])) w.met.add(x.property);
      if (w.met.size >= w.expect.length) w.done({ ok: true });
    }
  }

  /** A `verb` to the device failed: every such command in flight fails with `message`. */
  failed(verb: Verb, message: string): void {
    for (const w of [...this.waiters]) if (w.verb === verb) w.done({ ok: false, message });
  }

  /** Fails every command in flight (the gateway stops, the device is removed). */
  failAll(message: string): void {
    for (const w of [...this.waiters]) w.done({ ok: false, message });
  }
}
