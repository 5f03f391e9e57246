/**
 * The gateway's logger: pino, JSON lines on stderr (journald and log shippers read them) or, for
 * people at a terminal, pino-pretty's single lines (`auto`, the default, picks by whether stderr is
 * a terminal: journald's stderr is not, so a service logs JSON). Every line passes through redact.ts first,
 * so a token, a password or a URL's credentials never reach the log whatever a caller passes.
 * The level can change while the gateway runs (`logger.level = ...`).
 */
import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import { redactText, redactValue } from './redact.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The `log_format` setting: `auto` is `pretty` at a terminal and `json` anywhere else. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/** The format `auto` stands for, given whether stderr is a terminal. */
export function resolveLogFormat(format: LogFormat, stderrIsTTY: boolean): 'json' | 'pretty' {
  if (format !== 'auto') return format;
  return stderrIsTTY ? 'pretty' : 'json';
}

export interface LoggerOptions {
  level: string;
  format: LogFormat;
  /** Whether stderr is a terminal (for `auto`); process.stderr's by default, tests say. */
  isTTY?: boolean;
  /** Where lines go: stderr (fd 2) by default; tests pass a stream. */
  destination?: DestinationStream;
}

/** Whether `level` is a level name the logger takes. */
export function isLogLevel(level: unknown): level is LogLevel {
  return typeof level === 'string' && (LOG_LEVELS as readonly string[]).includes(level);
}

function prettyStream(): DestinationStream {
  // Loaded only for the pretty format: a service that logs JSON never loads it. pino-pretty is
  // CommonJS, so it is required synchronously (the logger exists before anything is awaited).
  const pretty = createRequire(import.meta.url)('pino-pretty') as (o: object) => DestinationStream;
  return pretty({
    destination: 2,
    sync: true,
    colorize: process.stderr.isTTY === true,
    // Local time, level, message and the entry's own fields on one line; the pid and the host
    // name are the same on every line.
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
}

/** Builds the logger of a gateway. */
export function createLogger(opts: LoggerOptions): Logger {
  const format = resolveLogFormat(opts.format, opts.isTTY ?? process.stderr.isTTY === true);
  const destination = opts.destination ?? (format === 'pretty' ? prettyStream() : pino.destination(2));
  return pino(
    {
      level: opts.level,
      // Runs on the merged object before pino serializes it: a copy with every secret replaced.
      formatters: { log: (obj) => redactValue(obj) as Record<string, unknown> },
      // Errors were already turned into plain objects (redactValue); pino's own serializer would
      // read the original's message and stack again.
      serializers: { err: (e: unknown) => redactValue(e) },
      hooks: {
        // The message and its interpolation arguments are strings the formatter never sees.
        logMethod(args, method) {
          const clean = args.map((a) => (typeof a === 'string' ? redactText(a) : a)) as typeof args;
          return method.apply(this, clean);
        },
      },
    },
    destination,
  );
}

/** Changes a logger's level while running (logs the change); returns the level there was. */
export function changeLevel(log: { level: string; info(obj: object, msg?: string): void }, level: unknown): string {
  if (!isLogLevel(level)) throw new Error(`unknown log level ${String(level)}`);
  const was = log.level;
  log.level = level;
  log.info({ level, was }, 'log level changed');
  return was;
}
