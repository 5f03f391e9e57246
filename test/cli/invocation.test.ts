/**
 * Commands that work as printed (issue 23): `opencube` is on the PATH only after a global
 * install, so every command the gateway and the CLI print is written in the form the user started
 * it with. A clone (`npm start`), a global install (`opencube`, also under `--supervise`) and a
 * service (`node /opt/opencube/bin/opencube.js`) each start a real gateway here; the command its
 * banner prints is then run, as printed, from another folder, and must press the link button.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { asInvoked, commandLine, type InvocationFacts, invocationOf } from '../../src/cli/invocation.ts';
import { freePort, ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/foundation.ts';
import { spawnGroup } from '../helpers/process-group.ts';

const BIN = join(ROOT, 'bin', 'opencube.js');

function facts(over: Partial<InvocationFacts> = {}): InvocationFacts {
  return {
    env: { PATH: '/usr/bin:/bin' },
    script: BIN,
    execArgv: [],
    cwd: ROOT,
    packageRoot: ROOT,
    user: 'alice',
    uid: 1000,
    ...over,
  };
}

describe('the form of opencube a user runs', () => {
  it('is npm run opencube -- in a clone started by npm (start, or the opencube script), npm run dev -- in development', () => {
    for (const script of ['start', 'opencube'])
      assert.equal(
        invocationOf(facts({ env: { npm_package_name: 'opencube', npm_lifecycle_event: script } })).prefix,
        'npm run opencube --',
      );
    assert.equal(
      invocationOf(facts({ env: { npm_package_name: 'opencube', npm_lifecycle_event: 'dev' } })).prefix,
      'npm run dev --',
    );
    // npm test runs the gateway in its tests: not a form a user types.
    assert.notEqual(
      invocationOf(facts({ env: { npm_package_name: 'opencube', npm_lifecycle_event: 'test' } })).prefix,
      'npm run opencube --',
    );
  });

  it('is opencube when the opencube on the PATH is this package (a global install)', (t) => {
    const dir = tempDir('opencube-path-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    symlinkSync(BIN, join(dir, 'opencube'));
    assert.equal(invocationOf(facts({ env: { PATH: `/nowhere:${dir}` } })).prefix, 'opencube');
    // Another program of that name is not this one.
    const other = tempDir('opencube-other-');
    t.after(() => rmSync(other, { recursive: true, force: true }));
    symlinkSync('/bin/true', join(other, 'opencube'));
    assert.equal(invocationOf(facts({ env: { PATH: other } })).prefix, 'node bin/opencube.js');
  });

  it('is the script node ran (relative under the working folder), with its loader, and sudo -u its user under systemd', () => {
    assert.equal(invocationOf(facts()).prefix, 'node bin/opencube.js');
    assert.equal(invocationOf(facts({ cwd: '/' })).prefix, `node ${BIN}`);
    assert.equal(
      invocationOf(facts({ script: join(ROOT, 'src', 'main.ts'), execArgv: ['--import', 'tsx', '--v8-pool-size=2'] }))
        .prefix,
      'node --import tsx src/main.ts',
    );
    const unit = facts({ cwd: '/', user: 'opencube', uid: 998, env: { INVOCATION_ID: 'f00', PATH: '/usr/bin' } });
    assert.equal(invocationOf(unit).prefix, `sudo -u opencube node ${BIN}`);
    assert.equal(invocationOf({ ...unit, uid: 0, user: 'root' }).prefix, `node ${BIN}`);
    // A supervised gateway is told the form of its supervisor.
    assert.equal(invocationOf(facts({ env: { OPENCUBE_COMMAND: 'opencube' } })).prefix, 'opencube');
  });

  it('adds --data-dir unless the form finds the data folder by itself', () => {
    const npm = invocationOf(facts({ env: { npm_package_name: 'opencube', npm_lifecycle_event: 'start' } }));
    assert.equal(commandLine(npm, 'link', './data'), 'npm run opencube -- link');
    assert.equal(commandLine(npm, 'link', '/srv/my data'), "npm run opencube -- link --data-dir '/srv/my data'");
    const global = { prefix: 'opencube', packageCwd: false, cwd: '/home/alice' };
    assert.equal(commandLine(global, 'matter', '/home/alice/data'), 'opencube matter --data-dir /home/alice/data');
  });

  it('rewrites each opencube COMMAND of a text, and nothing else', () => {
    assert.equal(
      asInvoked('opencube: unknown flag; run "opencube --help" for usage', 'npm run opencube --'),
      'opencube: unknown flag; run "npm run opencube -- --help" for usage',
    );
    assert.equal(
      asInvoked('e.g. opencube link --data-dir ./data; opencube 0.1.0 is running; an opencube gateway', 'X'),
      'e.g. X link --data-dir ./data; opencube 0.1.0 is running; an opencube gateway',
    );
    assert.equal(
      asInvoked('run `opencube matter` again', 'node bin/opencube.js'),
      'run `node bin/opencube.js matter` again',
    );
  });
});

/** A started gateway: the approve line of its banner, and a stop. */
interface Started {
  approve: string;
  stop(): Promise<void>;
}

/** Starts `command args` in its own process group; resolves with the banner's approve field (JSON log). */
async function startAs(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Started> {
  const g = spawnGroup(command, args, { cwd, env });
  const until = Date.now() + 120_000;
  for (;;) {
    const line = g
      .stderr()
      .split('\n')
      .find((l) => l.includes('"opencube is running"'));
    if (line) return { approve: JSON.parse(line).approve as string, stop: g.stop };
    if (g.exited() || Date.now() > until) {
      await g.stop();
      throw new Error(
        `${command} ${args.join(' ')} did not start\nstdout:\n${g.stdout()}\nstderr:\n${g.stderr().slice(-3000)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The command inside the banner's `run "..."`. */
function printed(approve: string): string {
  const m = /run "([^"]+)"/.exec(approve);
  assert.ok(m, approve);
  return m[1] as string;
}

/** Runs a printed command in a shell, from `cwd`. */
function runPrinted(command: string, env: NodeJS.ProcessEnv, cwd: string) {
  return spawnSync('sh', ['-c', command], { cwd, env, encoding: 'utf8', timeout: 60_000 });
}

/** The environment of a user's shell: nothing of npm or of opencube's settings from this test's own run. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('OPENCUBE_') && !k.startsWith('npm_') && k !== 'INVOCATION_ID') env[k] = v;
  return { ...env, ...extra };
}

/** Settings of a quick gateway on loopback, as environment variables (the start command stays as typed). */
async function quickGateway(dataDir: string): Promise<Record<string, string>> {
  return {
    OPENCUBE_PORT: String(await freePort()),
    OPENCUBE_HOST: '127.0.0.1',
    OPENCUBE_DATA_DIR: dataDir,
    OPENCUBE_MDNS: 'false',
    OPENCUBE_ZIGBEE_MODE: 'off',
    OPENCUBE_AUDIO_SINK: 'null',
  };
}

describe('the link command the banner prints works as printed', () => {
  it('in a clone started with npm start: npm run opencube -- link, run from another folder of the clone', async (t) => {
    const dir = tempDir('opencube-clone-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const env = userEnv(await quickGateway(join(dir, 'data')));
    const g = await startAs('npm', ['start'], env, ROOT);
    t.after(() => g.stop());
    const command = printed(g.approve);
    assert.equal(command, `npm run opencube -- link --data-dir ${join(dir, 'data')}`);
    const r = runPrinted(command, userEnv(), join(ROOT, 'docs'));
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /link window open until /);
    // The console's first-run page says how to set its password, in the same form: it works too.
    const auth = (await (await fetch(`http://127.0.0.1:${env.OPENCUBE_PORT}/console/api/auth`)).json()) as {
      passwd_command: string;
    };
    assert.equal(auth.passwd_command, `npm run opencube -- passwd --data-dir ${join(dir, 'data')}`);
    const passwd = runPrinted(`echo 'a long enough password' | ${auth.passwd_command}`, userEnv(), ROOT);
    assert.equal(passwd.status, 0, passwd.stderr);
    assert.match(passwd.stdout, /console password set/);
  });

  it('after a global install, also under --supervise: opencube link', async (t) => {
    const dir = tempDir('opencube-global-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'bin'));
    symlinkSync(BIN, join(dir, 'bin', 'opencube'));
    const path = `${join(dir, 'bin')}:${process.env.PATH}`;
    const env = userEnv({ ...(await quickGateway(join(dir, 'data'))), PATH: path });
    const g = await startAs('opencube', ['start', '--supervise'], env, dir);
    t.after(() => g.stop());
    const command = printed(g.approve);
    assert.equal(command, `opencube link --data-dir ${join(dir, 'data')}`);
    const r = runPrinted(command, userEnv({ PATH: path }), '/');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /link window open until /);
  });

  it('as a service runs it (node and the absolute path, working folder /): that command, from anywhere', async (t) => {
    const dir = tempDir('opencube-service-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const env = userEnv(await quickGateway(join(dir, 'data')));
    const g = await startAs(process.execPath, ['--v8-pool-size=2', BIN, 'start', '--no-supervise'], env, '/');
    t.after(() => g.stop());
    const command = printed(g.approve);
    assert.equal(command, `node ${BIN} link --data-dir ${join(dir, 'data')}`);
    const r = runPrinted(command, userEnv(), dir);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /link window open until /);
  });
});

describe('help and errors in a clone', () => {
  it('--help shows the usage and every example as npm run opencube --, and an example runs as shown', () => {
    const help = runPrinted('npm run --silent opencube -- --help', userEnv(), ROOT);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: npm run opencube -- \[COMMAND\] \[WORDS\] \[FLAGS\]$/m);
    assert.match(help.stdout, /e\.g\. npm run opencube -- link --data-dir \.\/data/);
    assert.match(help.stdout, /Run "npm run opencube -- help COMMAND" for one command\./);
    assert.doesNotMatch(help.stdout, /e\.g\. opencube /, 'no example in a form that does not run here');
    const example = /e\.g\. (npm run opencube -- settings)\s*$/m.exec(help.stdout)?.[1];
    assert.ok(example, 'the settings example');
    const r = runPrinted(example.replace('npm run', 'npm run --silent'), userEnv(), ROOT);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /--data-dir TEXT/);
    const wrong = runPrinted('npm run --silent opencube -- frobnicate', userEnv(), ROOT);
    assert.match(wrong.stderr, /run "npm run opencube -- --help"/);
  });
});
