/**
 * `opencube link`, `tokens [list|revoke ID]` and `reset`, run as real child processes: through
 * the control socket of a running gateway, and through the store when none runs.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TokenService } from '../../src/core/tokens.ts';
import { openDb } from '../../src/store/db.ts';
import { runCli } from '../helpers/cli.ts';
import { call, rest, startGateway, tempDir } from '../helpers/foundation.ts';

const REFUSED = { error: 401, data: {}, message: 'link button not pressed' };
const UNAUTHORISED = { error: 401, data: {}, message: 'headers.Authorization is invalid' };

function poll(url: string, appName: string) {
  return call(url, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=${encodeURIComponent(appName)}`);
}

describe('with a running gateway (control socket)', () => {
  it('link approves the waiting app, whose next poll gets a token; tokens list shows it; revoke ends it', async (t) => {
    const gw = await startGateway();
    t.after(() => gw.stop());
    assert.equal(statSync(gw.gateway.paths.socket).mode & 0o777, 0o600, 'only the user can reach the socket');

    assert.deepEqual((await poll(gw.url, 'Node-RED')).json, REFUSED);
    const link = await runCli(['link', '--data-dir', gw.dataDir]);
    assert.equal(link.code, 0, link.stderr);
    assert.match(
      link.stdout,
      /^approved: Node-RED; they get their token on their next poll \(window open until .*Z\)\n$/,
    );
    const grant = await poll(gw.url, 'Node-RED');
    assert.equal(grant.json.error, 0);
    const token = grant.json.data.token as string;

    const list = await runCli(['tokens', 'list', '--data-dir', gw.dataDir]);
    assert.equal(list.code, 0, list.stderr);
    const [id] = gw.gateway.tokens.list().map((x) => x.id);
    assert.match(list.stdout, new RegExp(`^${id}  app=Node-RED  created=\\S+Z  last_used=never\\n$`));
    assert.equal(list.stdout.includes(token), false, 'the CLI never shows a token');

    const revoke = await runCli(['tokens', 'revoke', id as string, '--data-dir', gw.dataDir]);
    assert.equal(revoke.code, 0, revoke.stderr);
    assert.equal(revoke.stdout, `revoked ${id}\n`);
    assert.deepEqual((await call(gw.url, 'GET', rest('v2', 'security'), { token })).json, UNAUTHORISED);

    const again = await runCli(['tokens', 'revoke', id as string, '--data-dir', gw.dataDir]);
    assert.equal(again.code, 1);
    assert.equal(again.stdout, `no token with id ${id}\n`);
  });

  it('link with nobody waiting opens the window; reset clears every token of the running gateway', async (t) => {
    const gw = await startGateway();
    t.after(() => gw.stop());
    const link = await runCli(['link', '--data-dir', gw.dataDir]);
    assert.equal(link.code, 0, link.stderr);
    assert.match(link.stdout, /^link window open until \S+Z: start the pairing in your app now\n$/);
    const token = (await poll(gw.url, 'later')).json.data.token as string;
    assert.equal((await call(gw.url, 'GET', rest('v1', 'security'), { token })).json.error, 0);

    const reset = await runCli(['reset', '--yes', '--data-dir', gw.dataDir]);
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(reset.stdout, /^factory reset done/);
    assert.deepEqual(gw.gateway.tokens.list(), []);
    assert.deepEqual((await call(gw.url, 'GET', rest('v1', 'security'), { token })).json, UNAUTHORISED);
    assert.deepEqual((await poll(gw.url, 'later')).json, REFUSED, 'the reset also closed the link window');
  });
});

describe('with no gateway running (the store directly)', () => {
  it('tokens list, revoke and reset work on the store; link says that no gateway runs', async (t) => {
    const dir = tempDir();
    t.after(() => rmSync(dir, { recursive: true, force: true }));

    // A folder without a store is most likely the wrong folder: say so, and do not create one there.
    const none = await runCli(['tokens', '--data-dir', dir]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no gateway runs on .* and it holds no store/);
    assert.equal(existsSync(join(dir, 'gateway.db')), false);

    const db = openDb(join(dir, 'gateway.db'));
    const tokens = new TokenService(db, 1000);
    tokens.create('one');
    tokens.create(null);
    const ids = tokens.list().map((x) => x.id);
    db.close();

    const [list, link] = await Promise.all([
      runCli(['tokens', 'list', '--data-dir', dir]),
      runCli(['link', '--data-dir', dir]),
    ]);
    assert.equal(list.code, 0, list.stderr);
    assert.equal(list.stdout.trim().split('\n').length, 2);
    assert.match(list.stdout, /app=one/);
    assert.match(list.stdout, /app=-/);
    assert.equal(link.code, 1);
    assert.match(link.stderr, /no gateway is running on this data folder/);

    const revoke = await runCli(['tokens', 'revoke', ids[0] as string, '--data-dir', dir]);
    assert.equal(revoke.code, 0, revoke.stderr);
    assert.equal(revoke.stdout, `revoked ${ids[0]}\n`);

    const reset = await runCli(['reset', '--yes', '--data-dir', dir]);
    assert.equal(reset.code, 0, reset.stderr);
    const after = await runCli(['tokens', 'list', '--data-dir', dir]);
    assert.equal(after.code, 0, after.stderr);
    assert.equal(after.stdout, 'no tokens\n');
  });

  it('takes the data folder from OPENCUBE_DATA_DIR too', async (t) => {
    const dir = tempDir();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const db = openDb(join(dir, 'gateway.db'));
    new TokenService(db, 1000).create('from-env');
    db.close();
    const list = await runCli(['tokens', 'list'], { env: { OPENCUBE_DATA_DIR: dir } });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /app=from-env/);
  });
});

describe('usage', () => {
  it('prints help with every setting, and refuses bad flags and values with a clear message', async (t) => {
    const dir = tempDir();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const [help, unknownFlag, badPort, badEnv, badCommand, badTokens] = await Promise.all([
      runCli(['--help']),
      runCli(['start', '--nope']),
      runCli(['start', '--port', '70000']),
      runCli(['start'], { env: { OPENCUBE_SSE_HEARTBEAT_SECONDS: 'often' } }),
      runCli(['frobnicate', '--data-dir', dir]),
      runCli(['tokens', 'revoke', '--data-dir', dir]),
    ]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /opencube link/);
    assert.match(help.stdout, /--port NUMBER .*\n.*\n\s+\[integer 0\.\.65535; default 8081; env OPENCUBE_PORT\]/);
    assert.equal(unknownFlag.code, 2);
    assert.match(unknownFlag.stderr, /nope/);
    assert.equal(badPort.code, 2);
    assert.match(badPort.stderr, /port \(from flag --port\): 70000 is above max 65535/);
    assert.equal(badEnv.code, 2);
    assert.match(
      badEnv.stderr,
      /sse\.heartbeat_seconds \(from environment OPENCUBE_SSE_HEARTBEAT_SECONDS\): "often" is not an integer/,
    );
    assert.equal(badCommand.code, 2);
    assert.match(badCommand.stderr, /unknown command "frobnicate"/);
    assert.equal(badTokens.code, 1);
    assert.match(badTokens.stderr, /usage: opencube tokens \[list\|revoke ID\]/);
  });
});
