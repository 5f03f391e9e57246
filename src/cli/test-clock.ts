/**
 * The clock of a gateway process under test: `OPENCUBE_TEST_CLOCK=<epoch ms> opencube start
 * --no-supervise` runs the gateway on a manual clock that starts at that instant and moves only
 * when a line `advance <ms>` arrives on standard input; each move is answered on standard output
 * with `opencube: clock <epoch ms>` once the timers due on the way have fired. So a test of the
 * real process (test/automations/process.test.ts) goes through minutes, days and DST changes
 * without waiting them out, and across a `kill -9` (the next process starts at a later instant).
 * Only the source tree has it: a build (dist/) refuses the variable (src/main.ts), and this file
 * is not in the bundle.
 */
import { createInterface } from 'node:readline';
import { ManualClock } from '../lib/manual-clock.ts';

/** The variable that turns it on. */
export const TEST_CLOCK_ENV = 'OPENCUBE_TEST_CLOCK';

/** Why the variable's value cannot start a clock, or undefined when it can. */
export function testClockProblem(value: string): string | undefined {
  return /^\d{1,15}$/.test(value) ? undefined : `${TEST_CLOCK_ENV}: ${JSON.stringify(value)} is not epoch milliseconds`;
}

/** A manual clock at `start`, moved by the lines of `input`, each move told on `output`. */
export function stdinClock(
  start: number,
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
): ManualClock {
  const clock = new ManualClock(start);
  createInterface({ input }).on('line', (line) => {
    const m = /^advance (\d{1,12})$/.exec(line.trim());
    if (!m) {
      output.write(`opencube: clock: not understood: ${JSON.stringify(line.slice(0, 80))} (advance <ms>)\n`);
      return;
    }
    clock.advance(Number(m[1]));
    output.write(`opencube: clock ${clock.now()}\n`);
  });
  return clock;
}
