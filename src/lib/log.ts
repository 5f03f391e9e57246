/** The logger every part is given (pino's Logger fits): one definition for the whole gateway. */
export interface Log {
  trace?(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  /** Whether a line at `level` would be written (pino's); absent: assume it would. */
  isLevelEnabled?(level: string): boolean;
}

/** A logger that drops everything. */
export const silentLog: Log = { debug() {}, info() {}, warn() {}, error() {} };
