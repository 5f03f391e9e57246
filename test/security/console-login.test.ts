/**
 * Issue 24, findings 1 and 2: the console's login as an attacker on the home network and a
 * DNS-rebinding page would try it. Logins sent all at once are counted before they are checked
 * (at most the address's budget is checked, the right password among them included); checks in
 * flight are capped; many source addresses (127.0.0.x: all of 127/8 is loopback) share one
 * budget for addresses the gateway does not know, which never locks out a browser that logged in
 * before; a Host that is not the gateway's is refused on every console request; and the info log
 * says who logged in, who failed, and who changed the password.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { ManualClock } from '../helpers/clock.ts';
import { startGateway } from '../helpers/foundation.ts';
import { recordingLog } from '../helpers/log.ts';

const PASSWORD = 'correct horse battery';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/**
 * One console request from the source address `from`, as the console page sends it (its Origin
 * and Host are the gateway's unless `host` is given).
 */
function consoleCall(
  url: string,
  method: string,
  path: string,
  opts: { from?: string; body?: unknown; cookie?: string; host?: string } = {},
): Promise<Answer> {
  const u = new URL(url);
  const host = opts.host ?? u.host;
  const text = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = { host };
  if (method !== 'GET') headers.origin = `http://${host}`;
  if (text !== undefined) headers['content-type'] = 'application/json';
  if (opts.cookie) headers.cookie = opts.cookie;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path: `/console/api${path}`,
        headers,
        localAddress: opts.from ?? '127.0.0.1',
        agent: false,
      },
      (res) => {
        let raw = '';
        res.setEncoding('utf8').on('data', (c: string) => {
          raw += c;
        });
        res.on('end', () => {
          let body: unknown = raw;
          try {
            body = JSON.parse(raw);
          } catch {
            // kept as text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')));
    req.end(text);
  });
}

const login = (url: string, password: string, from = '127.0.0.1', cookie?: string) =>
  consoleCall(url, 'POST', '/auth/login', { from, body: { password }, ...(cookie ? { cookie } : {}) });

/** The cookies an answer sets, as one Cookie header. */
function cookiesOf(a: Answer): string {
  const set = a.headers['set-cookie'];
  const list = Array.isArray(set) ? set : set ? [set] : [];
  return list.map((c) => c.split(';')[0]).join('; ');
}

async function withPassword(overrides: Record<string, unknown> = {}) {
  const clock = new ManualClock();
  const rec = recordingLog('info');
  const g = await startGateway({ overrides, gatewayOptions: { clock, log: rec.log } });
  await g.gateway.setConsolePassword(PASSWORD);
  return { g, clock, rec };
}

describe('the console login under a parallel flood', () => {
  test('eighty logins sent at once from one address: at most five are checked, the rest refused with 429, and the right password among them does not get in', async (t) => {
    const { g } = await withPassword();
    t.after(() => g.stop());
    const tries = Array.from({ length: 80 }, (_, i) => (i === 40 ? PASSWORD : `guess ${i}`));
    const answers = await Promise.all(tries.map((p) => login(g.url, p)));
    const statuses = answers.map((a) => a.status);
    const checked = statuses.filter((s) => s !== 429).length;
    assert.ok(checked <= 5, `${checked} checked: ${statuses.join(' ')}`);
    assert.notEqual(statuses[40], 200, 'the right password sent in the flood did not log in');
    assert.ok(
      answers.filter((a) => a.status === 429).every((a) => Number(a.headers['retry-after']) >= 1),
      'every refusal says when to try again',
    );
  });

  test('the same flood from forty addresses checks at most the budget of addresses the gateway does not know, and then refuses them all', async (t) => {
    const { g, clock } = await withPassword();
    t.after(() => g.stop());
    const addresses = Array.from({ length: 40 }, (_, i) => `127.0.0.${i + 2}`);
    const answers = await Promise.all(
      addresses.flatMap((from) => Array.from({ length: 6 }, (_, i) => login(g.url, `guess ${from} ${i}`, from))),
    );
    const checked = answers.filter((a) => a.status === 401).length;
    assert.ok(checked <= 20, `${checked} passwords checked in all`);
    // Sent one after the other now, so that no check is in flight: every one is refused unchecked.
    for (const from of ['127.0.0.60', '127.0.0.61', '127.0.0.62']) {
      const r = await login(g.url, PASSWORD, from);
      assert.equal(r.status, 429, JSON.stringify(r.body));
      assert.match(r.body.error, /too many failed logins on this gateway/);
    }
    clock.advance(15 * 60_000);
    assert.equal((await login(g.url, PASSWORD, '127.0.0.63')).status, 200, 'once the window is over, logins work');
  });

  test('a browser that logged in before still logs in during a flood from many addresses and from its own', async (t) => {
    const { g } = await withPassword();
    t.after(() => g.stop());
    const first = await login(g.url, PASSWORD, '127.0.0.9');
    assert.equal(first.status, 200);
    const known = cookiesOf(first);
    assert.match(known, /opencube_device=/, 'a login leaves a device cookie');
    // The attack: many addresses, the user's own among them.
    await Promise.all(
      ['127.0.0.9', ...Array.from({ length: 30 }, (_, i) => `127.0.0.${i + 100}`)].flatMap((from) =>
        Array.from({ length: 8 }, (_, i) => login(g.url, `guess ${i}`, from)),
      ),
    );
    assert.equal((await login(g.url, 'not it', '127.0.0.9')).status, 429, 'the address itself is locked out');
    // The user's browser, with its cookies (its session ended meanwhile: a logout).
    const device = known
      .split('; ')
      .filter((c) => c.startsWith('opencube_device='))
      .join('; ');
    const again = await login(g.url, PASSWORD, '127.0.0.9', device);
    assert.equal(again.status, 200, JSON.stringify(again.body));
  });

  test('a known browser has a budget of its own: five wrong passwords lock out that browser, not the others', async (t) => {
    const { g, clock } = await withPassword();
    t.after(() => g.stop());
    const device = cookiesOf(await login(g.url, PASSWORD, '127.0.0.20'))
      .split('; ')
      .filter((c) => c.startsWith('opencube_device='))
      .join('; ');
    for (let i = 0; i < 5; i++) assert.equal((await login(g.url, `wrong ${i}`, '127.0.0.20', device)).status, 401);
    const limited = await login(g.url, PASSWORD, '127.0.0.20', device);
    assert.equal(limited.status, 429);
    assert.match(limited.body.error, /too many failed attempts from this browser/);
    assert.equal((await login(g.url, PASSWORD, '127.0.0.21')).status, 200, 'another address is not locked out');
    clock.advance(15 * 60_000);
    assert.equal((await login(g.url, PASSWORD, '127.0.0.20', device)).status, 200);
  });

  test('a device cookie that is not the gateway’s own counts as none', async (t) => {
    const { g } = await withPassword();
    t.after(() => g.stop());
    for (let i = 0; i < 5; i++) await login(g.url, `wrong ${i}`, '127.0.0.30');
    const forged = await login(g.url, PASSWORD, '127.0.0.30', 'opencube_device=abc.def');
    assert.equal(forged.status, 429);
    assert.match(forged.body.error, /too many failed attempts from this address/);
  });

  test('the setup code and the password change are counted before they are checked too', async (t) => {
    const clock = new ManualClock();
    const g = await startGateway({ gatewayOptions: { clock } });
    t.after(() => g.stop());
    const code = g.gateway.console.access.pendingSetupCode() as string;
    const guesses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        consoleCall(g.url, 'POST', '/auth/setup', {
          body: { code: i === 20 ? code : `AAAAA-AAA${String(i).padStart(2, '2')}`, password: PASSWORD },
        }),
      ),
    );
    assert.ok(guesses.filter((a) => a.status !== 429).length <= 5);
    assert.notEqual(guesses[20]?.status, 200, 'the right code sent in the flood did not set the password');
  });
});

describe('the console and the Host header (DNS rebinding)', () => {
  test('a login with a Host that is not the gateway’s is refused before the password is looked at', async (t) => {
    const { g } = await withPassword({ allowed_hosts: 'gateway.home.lan' });
    t.after(() => g.stop());
    const port = new URL(g.url).port;
    for (const [method, path, body] of [
      ['POST', '/auth/login', { password: PASSWORD }],
      ['GET', '/auth', undefined],
      ['GET', '/devices', undefined],
      ['GET', '/events', undefined],
      ['POST', '/auth/setup', { code: 'AAAAA-AAAAA', password: PASSWORD }],
    ] as const) {
      const r = await consoleCall(g.url, method, path, { host: `rebind.example:${port}`, body });
      assert.equal(r.status, 403, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.equal(
        r.body.error,
        `this gateway does not answer the console for host "rebind.example:${port}" (add it to allowed_hosts)`,
      );
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `gateway.home.lan:${port}`, `[::1]:${port}`]) {
      const r = await consoleCall(g.url, 'POST', '/auth/login', { host, body: { password: PASSWORD } });
      assert.equal(r.status, 200, `${host}: ${JSON.stringify(r.body)}`);
    }
  });
});

describe('the info log of the console and of tokens', () => {
  test('logins ok and failed with the address, a lockout, a password change, and tokens granted, denied and revoked are logged at info', async (t) => {
    const { g, rec } = await withPassword();
    t.after(() => g.stop());
    const messages = () => rec.lines.map((l) => JSON.parse(l) as { msg: string; address?: string; level: number });
    assert.equal((await login(g.url, 'wrong one', '127.0.0.44')).status, 401);
    const ok = await login(g.url, PASSWORD, '127.0.0.45');
    assert.equal(ok.status, 200);
    const session = cookiesOf(ok);
    const changed = await consoleCall(g.url, 'PUT', '/auth/password', {
      from: '127.0.0.45',
      cookie: session,
      body: { current: PASSWORD, password: 'a new password here' },
    });
    assert.equal(changed.status, 200);
    for (let i = 0; i < 6; i++) await login(g.url, `wrong ${i}`, '127.0.0.46');
    await g.gateway.setConsolePassword('set by the command line');

    // Tokens: one granted by a press, one denied in the console, one revoked.
    g.gateway.tokens.press();
    const granted = await fetch(`${g.url}/open-api/v2/rest/bridge/access_token?app_name=Kitchen`);
    assert.equal(((await granted.json()) as any).error, 0);
    g.gateway.tokens.closeWindow();
    await fetch(`${g.url}/open-api/v2/rest/bridge/access_token?app_name=Stranger`);
    g.gateway.tokens.deny('Stranger');
    g.gateway.tokens.press();
    const page = await fetch(`${g.url}/open-api/v2/rest/bridge/access_token?app_name=Page`, {
      headers: { origin: 'http://evil.example' },
    });
    assert.equal(((await page.json()) as any).error, 401);
    g.gateway.tokens.closeWindow();
    const id = g.gateway.tokens.list()[0]?.id as string;
    g.gateway.tokens.revoke(id);

    const info = messages().filter((m) => m.level === 30);
    const has = (re: RegExp, address?: string) =>
      assert.ok(
        info.some((m) => re.test(m.msg) && (address === undefined || m.address === address)),
        `${re} ${address ?? ''}:\n${info.map((m) => `${m.msg} ${m.address ?? ''}`).join('\n')}`,
      );
    has(/^console login failed: wrong password$/, '127.0.0.44');
    has(/^console login$/, '127.0.0.45');
    has(/^console password changed$/, '127.0.0.45');
    has(/^console logins refused for 15 minutes: too many failed attempts from this address$/, '127.0.0.46');
    has(/^console password set by opencube passwd$/);
    has(/^token issued to Kitchen$/);
    has(/^token denied to Stranger \(in the console\)$/);
    has(/^token denied to Page: the request came from a web page \(http:\/\/evil\.example\)$/);
    has(/^token revoked$/);
    assert.ok(!rec.text().includes(PASSWORD), 'no password in the log');
  });
});
