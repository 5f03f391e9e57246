/**
 * A request of zigbee-herdsman bounded in time on the gateway's clock: its value, or why it
 * failed (its error on one line), or that it was not answered in time (it may still settle later;
 * a caller that cares keeps the promise).
 */
import type { Clock } from '../../lib/clock.ts';
import { errorText } from './converters.ts';

export type Within<T> = { ok: true; value: T } | { ok: false; message: string; timedOut?: boolean };

/** Settles with the promise's value, or fails after `ms` of `clock`. */
export function within<T>(clock: Clock, p: Promise<T>, ms: number): Promise<Within<T>> {
  return new Promise((resolve) => {
    const cancel = clock.setTimer(ms, () =>
      resolve({ ok: false, message: `no answer within ${ms} ms`, timedOut: true }),
    );
    p.then(
      (value) => {
        cancel();
        resolve({ ok: true, value });
      },
      (err) => {
        cancel();
        resolve({ ok: false, message: errorText(err) });
      },
    );
  });
}
