/**
 * zigbee-herdsman's and zigbee-herdsman-converters' log lines into the gateway's log: their debug
 * lines (every frame) only at `debug`, their info lines at debug too (the driver logs what a user
 * needs at info), warnings and errors as such. Every line passes a filter that removes the
 * network key in any of the forms it could be printed in (hex, a list of numbers).
 */
import type { Log } from '../../lib/log.ts';

/** The logger interface both packages take (`setLogger`). */
export interface PackageLogger {
  debug(message: string | (() => string), namespace: string): void;
  info(message: string | (() => string), namespace: string): void;
  warning(message: string | (() => string), namespace: string): void;
  error(message: string | (() => string), namespace: string): void;
}

/** A function that removes every form of the network key from a text. */
export type Redact = (text: string) => string;

/** The redaction of one network key: as hex (either case), and as a list of decimal or hex numbers. */
export function keyRedactor(key: readonly number[]): Redact {
  if (key.length === 0) return (t) => t;
  const hex = key.map((b) => b.toString(16).padStart(2, '0')).join('');
  const dec = key.map(String).join('\\s*,\\s*');
  const hexList = key.map((b) => `0x0*${b.toString(16)}`).join('\\s*,\\s*');
  const forms = new RegExp(`${hex}|(?<![\\d.])${dec}(?![\\d.])|${hexList}(?![\\da-f])`, 'gi');
  return (t) => t.replace(forms, '[network key]');
}

/** The gateway's log as the packages' logger. `debug`: whether their debug and info lines are wanted at all (they are costly to build). */
export function packageLogger(log: Log, redact: Redact, debug: boolean): PackageLogger {
  const text = (m: string | (() => string)) => redact(typeof m === 'function' ? m() : m);
  return {
    debug: (m, namespace) => {
      if (debug) log.debug({ namespace }, text(m));
    },
    info: (m, namespace) => {
      if (debug) log.debug({ namespace }, text(m));
    },
    warning: (m, namespace) => log.warn({ namespace }, text(m)),
    error: (m, namespace) => log.error({ namespace }, text(m)),
  };
}
