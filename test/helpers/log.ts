/** A pino logger whose every line is kept, for tests that read what the gateway logged. */
import { Writable } from 'node:stream';
import pino from 'pino';

export interface RecordingLog {
  log: pino.Logger;
  /** The JSON lines written so far, one string each (with its newline). */
  lines: string[];
  /** Everything written so far, as one text. */
  text(): string;
}

/** A logger at `level` (debug by default) that keeps its lines in memory. */
export function recordingLog(level: pino.LevelWithSilent = 'debug'): RecordingLog {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: pino({ level }, sink), lines, text: () => lines.join('') };
}
