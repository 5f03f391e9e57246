/**
 * `/set` and `/get` of one device, confirmed by what Zigbee2MQTT republishes: a command waits for
 * the expected state message, for Zigbee2MQTT's failure line on bridge/logging, or for its
 * deadline, whichever comes first.
 */
import type { Clock } from '../../lib/clock.ts';
import { type Expectation, meets } from '../../zigbee/index.ts';

export type Verb = 'set' | 'get';
export type Confirmation = { ok: true } | { ok: false; message: string };

interface Waiter {
  verb: Verb;
  expect: Expectation[];
  met: Set<string>;
  done(r: Confirmation): void;
}

/** The commands in flight to one device. */
export class DeviceWaiters {
  private readonly waiters = new Set<Waiter>();

  /**
   * Sends with `send` and resolves once every expectation is met by a state message, or with the
   * failure Zigbee2MQTT logs, the send error, or the timeout. No expectation: done once sent.
   */
  run(
    verb: Verb,
    expect: Expectation[],
    waitMs: number,
    clock: Clock,
    send: () => Promise<Error | undefined>,
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
        cancel = clock.setTimer(waitMs, () =>
          waiter.done({
            ok: false,
            message: `Zigbee2MQTT did not ${verb === 'set' ? 'confirm the new state' : 'answer'} within ${waitMs} ms`,
          }),
        );
      }
      void send().then((err) => {
        if (err) waiter.done({ ok: false, message: `publish failed: ${err.message}` });
        else if (expect.length === 0) waiter.done({ ok: true });
      });
    });
  }

  /** A state message of the device: settles the commands it confirms. */
  stateSeen(msg: Record<string, unknown>): void {
    for (const w of [...this.waiters]) {
      for (const x of w.expect) if (!w.met.has(x.property) && meets(x, msg[x.property])) w.met.add(x.property);
      if (w.met.size >= w.expect.length) w.done({ ok: true });
    }
  }

  /** Zigbee2MQTT logged that a `verb` to the device failed: every such command in flight fails with its reason. */
  failed(verb: Verb, reason: string): void {
    for (const w of [...this.waiters]) if (w.verb === verb) w.done({ ok: false, message: `Zigbee2MQTT: ${reason}` });
  }

  /** Fails every command in flight (the gateway stops, the device is removed). */
  failAll(message: string): void {
    for (const w of [...this.waiters]) w.done({ ok: false, message });
  }
}

/**
 * Reads Zigbee2MQTT's failure line for a command: `Publish 'set' 'state' to 'Kitchen light' failed: ...`.
 * Zigbee2MQTT 2.x puts its namespace as a prefix inside the message (`z2m: Publish ...`); 1.x has
 * a separate `namespace` field. The key named is the converter's (`state` for a `state_left` set),
 * so the failure applies to every command of that verb in flight to the device.
 */
export function parseFailure(message: string): { verb: Verb; friendly: string; reason: string } | undefined {
  const m = /^(?:[\w.-]+: )?Publish '(set|get)' '[^']*' to '(.+?)' failed: (.*)$/s.exec(message);
  if (!m) return undefined;
  return { verb: m[1] as Verb, friendly: m[2] as string, reason: m[3] as string };
}
