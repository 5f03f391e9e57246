/**
 * A yes-or-no question at the terminal, for a command that destroys (`opencube reset`): asked only
 * when both standard input and standard error are a terminal. Elsewhere (a script, a pipe, a
 * service) there is nobody to ask, and the command needs `--yes` (src/main.ts).
 */
import { createInterface } from 'node:readline';

/** Whether a person at a terminal can be asked. */
export function canAsk(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/** Asks `question` (ending with `[y/N] `); true only for y or yes. Ctrl-C, Ctrl-D or anything else: no. */
export function confirm(question: string): Promise<boolean> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    let answered = false;
    const done = (yes: boolean) => {
      if (answered) return;
      answered = true;
      rl.close();
      resolve(yes);
    };
    rl.on('SIGINT', () => {
      process.stderr.write('\n');
      done(false);
    });
    rl.on('close', () => done(false));
    rl.question(question, (answer) => done(/^\s*y(es)?\s*$/i.test(answer)));
  });
}
