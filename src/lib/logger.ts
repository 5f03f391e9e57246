/**
 * The gateway's logger: pino, JSON lines on stderr (journald and log shippers read them) or, for
 * people at a terminal, pino-pretty's coloured lines. Every line passes through redact.ts first,
 * so a token, a password or a URL's credentials never reach the log whatever a caller passes.
 * The level can change while the gateway runs (`logger.level = ...`).
 */
import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import { redactText, redactValue } from './redact.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LoggerOptions {
  level: string;
  format: 'json' | 'pretty';
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
    translateTime: 'SYS:HH:MM:ss.l',
  });
}

/** Builds the logger of a gateway. */
export function createLogger(opts: LoggerOptions): Logger {
  const destination = opts.destination ?? (opts.format === 'pretty' ? prettyStream() : pino.destination(2));
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
