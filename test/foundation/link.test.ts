/**
 * The link flow (spec 3 and 5, COMPAT.md): refusal before a press, a token after it, the same
 * token for duplicate polls of one app, a new press for a new token, and many pollers at once.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EventBus } from '../../src/core/event-bus.ts';
import { TokenService } from '../../src/core/tokens.ts';
import { openDb } from '../../src/store/db.ts';
import { ManualClock } from '../helpers/clock.ts';
import { call, rest, startGateway } from '../helpers/foundation.ts';

const REFUSED = { error: 401, data: {}, message: 'link button not pressed' };

function poll(url: string, appName?: string, version = 'v2') {
  const q = appName === undefined ? '' : `?app_name=${encodeURIComponent(appName)}`;
  return call(url, 'GET', `${rest(version, 'bridge/access_token')}${q}`);
}

/** A GET with a JSON body (fetch cannot send one), as some clients send app_name. */
function pollWithBody(url: string, body: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${rest('v2', 'bridge/access_token')}`,
      { method: 'GET', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('link flow over HTTP', () => {
  it('reads app_name from a JSON body sent with the GET, and ignores a body that is not JSON', async (t) => {
    const gw = await startGateway();
    t.after(() => gw.stop());
    assert.deepEqual(await pollWithBody(gw.url, '{"app_name":"body-app"}'), REFUSED);
    assert.deepEqual(await pollWithBody(gw.url, 'not json'), REFUSED);
    assert.deepEqual(gw.gateway.tokens.press().waiting_apps, ['body-app', '']);
    const granted = await pollWithBody(gw.url, '{"app_name":"body-app"}');
    assert.equal(granted.error, 0);
    assert.equal(granted.data.app_name, 'body-app');
    const garbage = await pollWithBody(gw.url, 'not json');
    assert.equal(garbage.error, 0);
    assert.deepEqual(Object.keys(garbage.data), ['token']);
  });

  it('approves at most the 32 most recent of the apps waiting at a press, so a press cannot fill the store', async (t) => {
    const gw = await startGateway();
    t.after(() => gw.stop());
    for (let i = 0; i < 40; i++) assert.deepEqual((await poll(gw.url, `app-${i}`)).json, REFUSED);
    const press = gw.gateway.tokens.press();
    assert.deepEqual(
      press.waiting_apps,
      Array.from({ length: 32 }, (_, i) => `app-${i + 8}`),
    );
    for (let i = 8; i < 40; i++) assert.equal((await poll(gw.url, `app-${i}`)).json.error, 0);
    assert.deepEqual((await poll(gw.url, 'app-0')).json, REFUSED);
    assert.equal((await poll(gw.url, 'app-8')).json.error, 0, 'an app already granted still gets its token');
    assert.equal(gw.gateway.tokens.list().length, 32);
  });

  it('refuses before a press, grants after it, and the token then authorises', async (t) => {
    const gw = await startGateway();
    t.after(() => gw.stop());
    for (const v of ['v1', 'v2', 'V2']) {
      const res = await poll(gw.url, 'app', v);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, REFUSED);
    }
    gw.gateway.tokens.press();
    const granted = await poll(gw.url, 'app');
    assert.equal(granted.status, 200);
    assert.equal(granted.json.error, 0);
    assert.equal(granted.json.message, 'success');
    assert.equal(granted.json.data.app_name, 'app');
    assert.equal(typeof granted.json.data.token, 'string');
    assert.ok(granted.json.data.token.length >= 32);
    const runtime = await call(gw.url, 'GET', rest('v2', 'bridge/runtime'), { token: granted.json.data.token });
    assert.equal(runtime.json.error, 0);
  });

  it('gives duplicate polls of one app the same token, other apps other tokens, on v1 and v2', async (t) => {
    const gw = await startGateway();
    t.after(() => gw.stop());
    for (const app of ['A', 'B', undefined]) assert.deepEqual((await poll(gw.url, app)).json, REFUSED);
    assert.deepEqual(gw.gateway.tokens.press().waiting_apps, ['A', 'B', '']);
    const a1 = (await poll(gw.url, 'A', 'v1')).json.data.token;
    const a2 = (await poll(gw.url, 'A', 'v2')).json.data.token;
    const a3 = (await poll(gw.url, 'A', 'V2')).json.data.token;
    const b = (await poll(gw.url, 'B')).json.data.token;
    const anon1 = await poll(gw.url);
    const anon2 = await poll(gw.url);
    assert.equal(a1, a2);
    assert.equal(a1, a3);
    assert.notEqual(a1, b);
    assert.equal(anon1.json.error, 0);
    assert.deepEqual(Object.keys(anon1.json.data), ['token'], 'no app_name when none was given');
    assert.equal(anon1.json.data.token, anon2.json.data.token);
    assert.notEqual(anon1.json.data.token, a1);
    assert.equal(gw.gateway.tokens.list().length, 3);
  });

  it('refuses again once the window has expired, and a new token needs a new press', async (t) => {
    const gw = await startGateway({ overrides: { link_window_seconds: 1 } });
    t.after(() => gw.stop());
    gw.gateway.tokens.press();
    const first = (await poll(gw.url, 'A')).json.data.token as string;
    assert.ok(first);
    // Wait (bounded) for the one-second window to close; no assertion on how long it takes.
    let last = await poll(gw.url, 'A');
    const until = Date.now() + 10_000;
    while (last.json.error === 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      last = await poll(gw.url, 'A');
    }
    assert.deepEqual(last.json, REFUSED);
    gw.gateway.tokens.press();
    const second = (await poll(gw.url, 'A')).json.data.token as string;
    assert.ok(second);
    assert.notEqual(second, first, 'a new press gives a new token');
    for (const tok of [first, second]) {
      assert.equal((await call(gw.url, 'GET', rest('v2', 'security'), { token: tok })).json.error, 0);
    }
  });

  it('answers 50 concurrent pollers at once, before and after the press', async (t) => {
    const gw = await startGateway();
    t.after(() => gw.stop());
    const apps = Array.from({ length: 50 }, (_, i) => `app-${i % 10}`);
    const refused = await Promise.all(apps.map((a) => poll(gw.url, a)));
    for (const r of refused) assert.deepEqual(r.json, REFUSED);
    assert.equal(gw.gateway.tokens.waitingApps().length, 10);
    gw.gateway.tokens.press();
    const granted = await Promise.all(apps.map((a) => poll(gw.url, a)));
    const byApp = new Map<string, Set<string>>();
    for (const [i, r] of granted.entries()) {
      assert.equal(r.json.error, 0);
      assert.equal(r.json.data.app_name, apps[i]);
      const set = byApp.get(apps[i] as string) ?? new Set();
      set.add(r.json.data.token);
      byApp.set(apps[i] as string, set);
    }
    assert.equal(byApp.size, 10);
    for (const set of byApp.values()) assert.equal(set.size, 1, 'one token per app_name');
    assert.equal(new Set([...byApp.values()].map((s) => [...s][0])).size, 10, 'different apps, different tokens');
    assert.equal(gw.gateway.tokens.list().length, 10);
  });

  it('a reset clears every token, and a cleared token no longer authorises', async (t) => {
    const gw = await startGateway();
    t.after(() => gw.stop());
    gw.gateway.tokens.press();
    const tok = (await poll(gw.url, 'A')).json.data.token;
    await gw.gateway.reset();
    assert.deepEqual(gw.gateway.tokens.list(), []);
    assert.deepEqual((await poll(gw.url, 'A')).json, REFUSED, 'the reset closes the window');
    assert.deepEqual((await call(gw.url, 'GET', rest('v2', 'security'), { token: tok })).json, {
      error: 401,
      data: {},
      message: 'headers.Authorization is invalid',
    });
  });

  it('stores tokens hashed: the plaintext is in no file of the data folder', async (t) => {
    const gw = await startGateway();
    t.after(() => gw.stop());
    for (const app of ['A', 'B']) await poll(gw.url, app);
    gw.gateway.tokens.press();
    const tokens = [(await poll(gw.url, 'A')).json.data.token, (await poll(gw.url, 'B')).json.data.token];
    const check = () => {
      for (const file of readdirSync(gw.dataDir)) {
        if (file.endsWith('.sock')) continue;
        const bytes = readFileSync(join(gw.dataDir, file));
        for (const tok of tokens) {
          assert.equal(bytes.includes(Buffer.from(tok)), false, `${file} holds a plaintext token`);
          assert.equal(bytes.includes(Buffer.from(tok, 'base64url')), false, `${file} holds the raw token bytes`);
        }
      }
    };
    check(); // while running (WAL)
    const dir = gw.dataDir;
    await gw.gateway.stop();
    check(); // after the checkpoint on close
    const db = openDb(join(dir, 'gateway.db'));
    try {
      const rows = db.prepare('SELECT * FROM tokens').all() as Record<string, unknown>[];
      assert.equal(rows.length, 2);
      for (const row of rows) {
        assert.ok(Buffer.isBuffer(row.hash) && row.hash.length === 32, 'a SHA-256 hash');
        assert.ok(typeof row.created_at === 'string' && row.created_at.endsWith('Z'));
        assert.ok(['A', 'B'].includes(row.app_name as string));
      }
    } finally {
      db.close();
    }
  });
});

describe('TokenService with a fake clock', () => {
  function service(windowMs = 300_000) {
    const clock = new ManualClock(Date.parse('2024-01-01T00:00:00.000Z'));
    const db = openDb(':memory:');
    const bus = new EventBus(100);
    const tokens = new TokenService(db, windowMs, clock, bus);
    return { tokens, db, bus, tick: (ms: number) => clock.advance(ms) };
  }

  it('refuses before any press and tells the bus which app waits (once per app)', () => {
    const { tokens, bus } = service();
    const calls: string[][] = [];
    bus.subscribe((e) => {
      if (e.name === 'link#waiting') calls.push((e.data as { payload: { apps: string[] } }).payload.apps);
    });
    assert.deepEqual(tokens.poll('A'), { ok: false });
    assert.deepEqual(tokens.poll('A'), { ok: false });
    assert.deepEqual(tokens.poll('B'), { ok: false });
    assert.deepEqual(calls, [['A'], ['A', 'B']]);
    const press = tokens.press();
    assert.deepEqual(press.waiting_apps, ['A', 'B']);
    assert.equal(press.window_until, '2024-01-01T00:05:00.000Z');
  });

  it('grants within the window only; the last millisecond is outside', () => {
    const { tokens, tick } = service(1000);
    tokens.press();
    tick(999);
    const g = tokens.poll('A');
    assert.ok(g.ok);
    tick(1);
    assert.deepEqual(tokens.poll('A'), { ok: false });
    assert.deepEqual(tokens.poll('C'), { ok: false });
    assert.equal(tokens.windowState().open, false);
  });

  it('a second press gives the same app a new token; the old one stays valid', () => {
    const { tokens, tick } = service(1000);
    tokens.press();
    const a = tokens.poll('A');
    tick(5000);
    tokens.press();
    const b = tokens.poll('A');
    assert.ok(a.ok && b.ok);
    assert.notEqual(a.token, b.token);
    assert.ok(tokens.verify(a.token));
    assert.ok(tokens.verify(b.token));
  });

  it('verify refuses empty, unknown and near-miss tokens and records last use', () => {
    const { tokens, tick } = service();
    const tok = tokens.create('X');
    for (const bad of [undefined, null, '', ' ', `${tok}x`, tok.slice(1), tok.toUpperCase()]) {
      assert.equal(tokens.verify(bad), null, `refuses ${JSON.stringify(bad)}`);
    }
    tick(1234);
    const info = tokens.verify(tok);
    assert.equal(info?.app_name, 'X');
    assert.equal(info?.last_used_at, '2024-01-01T00:00:01.234Z');
  });

  it('revoke removes one token by id, and a revoked token is not handed out again in the window', () => {
    const { tokens } = service();
    tokens.press();
    const a = tokens.poll('A');
    assert.ok(a.ok);
    const id = tokens.list()[0]?.id as string;
    assert.equal(tokens.revoke(id), true);
    assert.equal(tokens.revoke(id), false);
    assert.equal(tokens.verify(a.token), null);
    const again = tokens.poll('A');
    assert.ok(again.ok);
    assert.notEqual(again.token, a.token);
    assert.ok(tokens.verify(again.token));
  });

  it('flushes last-used times to the store', () => {
    const { tokens, db, tick } = service();
    const tok = tokens.create('A');
    tick(61_000);
    tokens.verify(tok);
    tokens.flush();
    const row = db.prepare('SELECT last_used_at FROM tokens').get() as { last_used_at: string };
    assert.equal(row.last_used_at, '2024-01-01T00:01:01.000Z');
  });

  it('forgets waiting apps after a minute', () => {
    const { tokens, tick } = service();
    tokens.poll('old');
    tick(61_000);
    tokens.poll('new');
    assert.deepEqual(tokens.waitingApps(), ['new']);
  });
});
