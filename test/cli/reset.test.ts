/**
 * `opencube reset` clears every token, device and TTS engine: at a terminal it asks first (the
 * terminal here is a pty made by `script`), elsewhere it needs `--yes` (issue 23). The gateway is a
 * running one; the CLI reaches it through its control socket, as a user's would.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { ROOT, runCli } from '../helpers/cli.ts';
import { startGateway } from '../helpers/foundation.ts';

const canScript = spawnSync('script', ['-qec', 'true', '/dev/null']).status === 0;

/** `opencube reset` at a terminal (a pty), answering `answer` once the question is shown. */
function resetAtTerminal(dataDir: string, answer: string): Promise<{ code: number | null; out: string }> {
  const command = `${JSON.stringify(process.execPath)} --import tsx src/main.ts reset --data-dir ${JSON.stringify(dataDir)}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let answered = false;
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    if (!answered && out.includes('[y/N]')) {
      answered = true;
      child.stdin.write(`${answer}\n`);
    }
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, out });
    });
  });
}

describe('opencube reset', () => {
  it('without a terminal refuses without --yes, in one line, and clears nothing; with --yes it resets', async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    g.token('kept');
    const refused = await runCli(['reset', '--data-dir', g.dataDir]);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      `opencube: reset clears every token, device and TTS engine of the gateway on ${g.dataDir}: add --yes to do it (there is no terminal to ask)\n`,
    );
    assert.equal(g.gateway.tokens.list().length, 1, 'nothing cleared');
    const done = await runCli(['reset', '--yes', '--data-dir', g.dataDir]);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /^factory reset done/);
    assert.equal(g.gateway.tokens.list().length, 0);
  });

  it('at a terminal asks first: anything but yes keeps everything, yes resets', {
    skip: canScript ? false : 'no script(1) here to make a terminal',
  }, async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    g.token('kept');
    for (const answer of ['', 'n', 'no way']) {
      const r = await resetAtTerminal(g.dataDir, answer);
      assert.match(
        r.out,
        new RegExp(
          `Factory reset of the gateway on ${g.dataDir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: every token, device and TTS engine is cleared\\. Go on\\? \\[y/N\\]`,
        ),
      );
      assert.match(r.out, /not reset: nothing changed/, JSON.stringify(answer));
      assert.equal(r.code, 1);
      assert.equal(g.gateway.tokens.list().length, 1, `answered ${JSON.stringify(answer)}: nothing cleared`);
    }
    const yes = await resetAtTerminal(g.dataDir, 'y');
    assert.equal(yes.code, 0, yes.out);
    assert.match(yes.out, /factory reset done/);
    assert.equal(g.gateway.tokens.list().length, 0);
  });
});
