/**
 * Who may use the console: the first-run setup code, the password (scrypt), the session cookie
 * (HttpOnly, SameSite=Strict) that survives a restart and can be revoked, the Origin check, the
 * login rate limit per address and session expiry on a clock moved by hand, and `opencube passwd`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { storedPasswordHash } from '../../src/http/console/password.ts';
import { ManualClock } from '../helpers/clock.ts';
import { openStream, startGateway } from '../helpers/foundation.ts';
import { consoleClient } from './client.ts';
import { setPasswordCli } from './rig.ts';

const PASSWORD = 'correct horse battery';

async function withPassword(clock = new ManualClock()) {
  const g = await startGateway({ gatewayOptions: { clock } });
  await g.gateway.setConsolePassword(PASSWORD);
  return { g, clock };
}

describe('first run', () => {
  test('with no password the console asks for the setup code printed in the log; the code sets the password once', async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    const c = consoleClient(g.url);
    // Until a password is set, the page also says how to set one on the gateway's machine.
    assert.deepEqual((await c.call('GET', '/auth')).body, {
      password_set: false,
      logged_in: false,
      name: 'opencube',
      restored_at: null,
      passwd_command: 'opencube passwd',
    });
    const code = g.gateway.console.access.pendingSetupCode() as string;
    assert.match(code, /^[A-Z2-9]{5}-[A-Z2-9]{5}$/);
    assert.equal((await c.login(PASSWORD)).status, 409, 'no password to log in with yet');
    const wrong = await c.call('POST', '/auth/setup', { code: 'AAAAA-AAAAA', password: PASSWORD });
    assert.equal(wrong.status, 401);
    assert.match(wrong.body.error, /wrong setup code/);
    const short = await c.call('POST', '/auth/setup', { code, password: 'short' });
    assert.deepEqual([short.status, short.body.error], [400, 'password: at least 8 characters']);
    // Typed in lower case with spaces: still the code.
    const ok = await c.call('POST', '/auth/setup', {
      code: ` ${code.toLowerCase().replace('-', ' - ')} `,
      password: PASSWORD,
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal((await c.call('GET', '/auth')).body.logged_in, true);
    const again = await consoleClient(g.url).call('POST', '/auth/setup', { code, password: 'another password' });
    assert.equal(again.status, 409, 'the code works once');
    assert.equal(g.gateway.console.access.pendingSetupCode(), undefined);
  });
});

describe('logging in', () => {
  test('the session cookie is HttpOnly and SameSite=Strict, and opens the console API', async (t) => {
    const { g } = await withPassword();
    t.after(() => g.stop());
    const c = consoleClient(g.url);
    assert.equal((await c.call('GET', '/devices')).status, 401);
    const r = await c.login(PASSWORD);
    assert.equal(r.status, 200);
    const [session, device] = r.headers.getSetCookie();
    assert.match(session as string, /^opencube_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    // The browser is known from now on (the login limit: test/security/console-login.test.ts).
    assert.match(
      device as string,
      /^opencube_device=[\w-]{22}\.[\w-]{43}; Path=\/console\/api\/auth; HttpOnly; SameSite=Strict; Max-Age=34560000$/,
    );
    assert.equal((await c.call('GET', '/devices')).status, 200);
  });

  test('the password is kept as an scrypt hash, never as itself', async (t) => {
    const { g } = await withPassword();
    t.after(() => g.stop());
    const hash = storedPasswordHash(g.gateway.db) as string;
    assert.match(hash, /^scrypt\$32768\$8\$1\$[\w-]+\$[\w-]+$/);
    assert.ok(!hash.includes(PASSWORD));
  });

  test('five wrong passwords from one address lock it out for 15 minutes, even with the right one; then it may log in', async (t) => {
    const { g, clock } = await withPassword();
    t.after(() => g.stop());
    const c = consoleClient(g.url);
    for (let i = 0; i < 5; i++) {
      const r = await c.login(`wrong ${i}`);
      assert.deepEqual([r.status, r.body.error], [401, 'wrong password']);
    }
    const limited = await c.login(PASSWORD);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '900');
    assert.match(limited.body.error, /too many failed attempts from this address: try again in 15 minutes/);
    clock.advance(14 * 60_000);
    assert.equal((await c.login(PASSWORD)).status, 429);
    clock.advance(60_000);
    assert.equal((await c.login(PASSWORD)).status, 200);
  });

  test('a right password resets the count of failures', async (t) => {
    const { g } = await withPassword();
    t.after(() => g.stop());
    const c = consoleClient(g.url);
    for (let i = 0; i < 4; i++) await c.login('wrong');
    assert.equal((await c.login(PASSWORD)).status, 200);
    for (let i = 0; i < 4; i++) await c.login('wrong');
    assert.equal((await c.login(PASSWORD)).status, 200);
  });

  test('a request that changes state from another site (Origin) or with no Origin is refused with 403', async (t) => {
    const { g } = await withPassword();
    t.after(() => g.stop());
    const c = consoleClient(g.url);
    const foreign = await c.call('POST', '/auth/login', { password: PASSWORD }, { origin: 'http://evil.example' });
    assert.equal(foreign.status, 403);
    assert.match(foreign.body.error, /Origin check/);
    const res = await fetch(`${g.url}/console/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: PASSWORD }),
    });
    assert.equal(res.status, 403);
    const sameSite = await fetch(`${g.url}/console/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ password: PASSWORD }),
    });
    assert.equal(sameSite.status, 200);
    await c.login(PASSWORD);
    const cross = await c.call('PUT', '/speaker', { volume: 10 }, { origin: 'http://192.168.1.66:8081' });
    assert.equal(cross.status, 403, 'a logged-in session is no help to another site');
  });
});

describe('sessions', () => {
  test('a session survives a restart of the gateway', async (t) => {
    const { g } = await withPassword();
    let current = g;
    t.after(() => current.stop());
    const c = consoleClient(g.url);
    await c.login(PASSWORD);
    current = await g.restart();
    const again = consoleClient(current.url);
    again.cookie = c.cookie;
    assert.equal((await again.call('GET', '/devices')).status, 200);
  });

  test('logging out ends the session and its event stream; the cookie is cleared', async (t) => {
    const { g } = await withPassword();
    t.after(() => g.stop());
    const c = consoleClient(g.url);
    await c.login(PASSWORD);
    const cookie = c.cookie as string;
    const stream = await openStream(g.url, '/console/api/events', { cookie: `opencube_session=${cookie}` });
    t.after(() => stream.close());
    assert.equal(stream.status, 200);
    const out = await c.call('POST', '/auth/logout');
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie') as string, /opencube_session=; .*Max-Age=0/);
    await stream.closed;
    const old = consoleClient(g.url);
    old.cookie = cookie;
    assert.equal((await old.call('GET', '/devices')).status, 401);
  });

  test('one console can end another session: its stream ends and its requests get 401', async (t) => {
    const { g } = await withPassword();
    t.after(() => g.stop());
    const mine = consoleClient(g.url);
    const other = consoleClient(g.url);
    await mine.login(PASSWORD);
    await other.login(PASSWORD);
    const stream = await openStream(g.url, '/console/api/events', { cookie: `opencube_session=${other.cookie}` });
    t.after(() => stream.close());
    const list = (await mine.call('GET', '/sessions')).body.sessions as { id: string; current: boolean }[];
    assert.equal(list.length, 2);
    const target = list.find((s) => !s.current) as { id: string };
    assert.equal((await mine.call('DELETE', `/sessions/${target.id}`)).status, 200);
    await stream.closed;
    assert.equal((await other.call('GET', '/devices')).status, 401);
    assert.equal((await mine.call('GET', '/devices')).status, 200);
    assert.equal((await mine.call('DELETE', `/sessions/${target.id}`)).status, 404);
  });

  test('a session unused for 30 days ends; one in use stays', async (t) => {
    const { g, clock } = await withPassword();
    t.after(() => g.stop());
    const idle = consoleClient(g.url);
    const busy = consoleClient(g.url);
    await idle.login(PASSWORD);
    await busy.login(PASSWORD);
    for (let day = 0; day < 30; day++) {
      clock.advance(24 * 60 * 60 * 1000);
      assert.equal((await busy.call('GET', '/auth')).body.logged_in, true);
    }
    assert.equal((await idle.call('GET', '/devices')).status, 401);
    assert.equal((await busy.call('GET', '/devices')).status, 200);
  });

  test('changing the password checks the current one and ends every other session', async (t) => {
    const { g } = await withPassword();
    t.after(() => g.stop());
    const mine = consoleClient(g.url);
    const other = consoleClient(g.url);
    await mine.login(PASSWORD);
    await other.login(PASSWORD);
    const wrong = await mine.call('PUT', '/auth/password', { current: 'nope', password: 'a new password' });
    assert.deepEqual([wrong.status, wrong.body.error], [401, 'current password: wrong password']);
    const ok = await mine.call('PUT', '/auth/password', { current: PASSWORD, password: 'a new password' });
    assert.equal(ok.status, 200);
    assert.equal((await mine.call('GET', '/devices')).status, 200, 'the changer gets a new session');
    assert.equal((await other.call('GET', '/devices')).status, 401);
    assert.equal((await consoleClient(g.url).login('a new password')).status, 200);
  });

  test('opencube passwd sets the password of a running gateway through its control socket and ends every session', async (t) => {
    const { g } = await withPassword();
    t.after(() => g.stop());
    const c = consoleClient(g.url);
    await c.login(PASSWORD);
    const r = await setPasswordCli(g.dataDir, 'set by the command line');
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /console password set/);
    assert.equal((await c.call('GET', '/devices')).status, 401);
    assert.equal((await consoleClient(g.url).login('set by the command line')).status, 200);
  });

  test('opencube passwd refuses a short password and sets one in the store of a stopped gateway', async (t) => {
    const g = await startGateway();
    const dir = g.dataDir;
    await g.gateway.stop();
    t.after(() => g.stop());
    const short = await setPasswordCli(dir, 'short');
    assert.equal(short.code, 1);
    assert.match(short.out, /password: at least 8 characters/);
    const r = await setPasswordCli(dir, 'stored directly');
    assert.equal(r.code, 0, r.out);
    const again = await g.restart();
    t.after(() => again.stop());
    assert.equal((await consoleClient(again.url).login('stored directly')).status, 200);
  });
});
