/**
 * Reads a secret for the CLI (`opencube passwd`): from a terminal, prompted without echo and
 * asked twice; from a pipe, the first line of standard input (so scripts and tests can set it).
 */
import type { ReadStream } from 'node:tty';

/** The first line of a non-terminal stream. */
function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => {
      text += chunk;
    });
    input.on('end', () => resolve(text.split(/\r?\n/, 1)[0] ?? ''));
    input.on('error', reject);
  });
}

/** One line typed at the terminal, not shown. */
function hidden(input: ReadStream, output: NodeJS.WritableStream, prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    output.write(prompt);
    let text = '';
    input.setRawMode(true);
    input.setEncoding('utf8');
    input.resume();
    const done = (err?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      output.write('\n');
      if (err) reject(err);
      else resolve(text);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new Error('cancelled'));
        if (ch === '\u007f' || ch === '\b') text = text.slice(0, -1);
        else if (ch >= ' ') text += ch;
      }
    };
    input.on('data', onData);
  });
}

/** A new secret: typed twice at a terminal (they must match), or the first line of piped input. */
export async function readNewSecret(what: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) return firstLine(input);
  const first = await hidden(input as ReadStream, process.stderr, `New ${what}: `);
  const again = await hidden(input as ReadStream, process.stderr, `The same ${what} again: `);
  if (first !== again) throw new Error(`the two ${what}s differ; nothing changed`);
  return first;
}
