/**
 * Issue 16, point 1: a web page must not take a token. During a link window, a page open in the
 * user's browser (which sends an Origin, and which the browser only lets read answers that allow
 * its origin) or a DNS-rebinding page (which reaches the gateway under a name of its own) polls
 * G1: it gets no token. Native clients and servers (no Origin, the gateway's address) still do.
 * And one press approves only the apps the presser was shown (those waiting at the press), or,
 * when none was waiting, the first app that asks: not every name a process races in.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { EventBus } from '../../src/core/event-bus.ts';
import { isOwnHost } from '../../src/core/gateway-info.ts';
import { TokenService } from '../../src/core/tokens.ts';
import { openDb } from '../../src/store/db.ts';
import { ManualClock } from '../helpers/clock.ts';
import { rest, startGateway, type TestGateway } from '../helpers/foundation.ts';

let g: TestGateway;
before(async () => {
  g = await startGateway({ overrides: { allowed_hosts: 'gateway.home.lan' } });
});
after(() => g?.stop());

/** A G1 poll with exactly these headers. */
function poll(headers: Record<string, string>, app = 'page'): Promise<{ headers: Record<string, unknown>; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${g.url}${rest('v2', 'bridge/access_token')}?app_name=${app}`, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ headers: res.headers, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('token issuance (G1) and web pages', () => {
  it('gives a page of any origin no token and no CORS header, while the window is open', async () => {
    g.gateway.tokens.press();
    try {
      for (const origin of ['http://evil.example', 'http://127.0.0.1:8081', 'null']) {
        const r = await poll({ origin });
        assert.equal(r.json.error, 401, JSON.stringify(r.json));
        assert.match(r.json.message, /web pages/);
        assert.equal(r.headers['access-control-allow-origin'], undefined);
      }
    } finally {
      g.gateway.tokens.closeWindow();
    }
  });

  it("gives a DNS-rebinding page (a Host that is not the gateway's) no token", async () => {
    g.gateway.tokens.press();
    try {
      const port = new URL(g.url).port;
      const r = await poll({ host: `attacker.example:${port}` });
      assert.equal(r.json.error, 401);
      assert.match(r.json.message, /does not answer token requests for host "attacker\.example:\d+"/);
    } finally {
      g.gateway.tokens.closeWindow();
    }
  });

  it("still gives a native client its token under the address, localhost, the domain, allowed_hosts and the add-ons' ihost", async () => {
    const port = new URL(g.url).port;
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `cube.local:${port}`,
      'GATEWAY.home.lan.',
      'ihost',
      `ihost.local:${port}`,
    ]) {
      g.gateway.tokens.press();
      try {
        const r = await poll({ host }, `app-${host.length}`);
        assert.equal(r.json.error, 0, `${host}: ${JSON.stringify(r.json)}`);
        assert.equal(typeof r.json.data.token, 'string');
        assert.equal(r.headers['access-control-allow-origin'], undefined, 'no CORS on the token, whoever asks');
      } finally {
        g.gateway.tokens.closeWindow();
      }
    }
  });

  it('keeps permissive CORS everywhere else (tokens travel in headers, not cookies)', async () => {
    const r = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = request(`${g.url}${rest('v2', 'bridge')}`, { headers: { origin: 'http://dashboard.lan' } }, (res) => {
        res.resume();
        resolve(res.headers);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(r['access-control-allow-origin'], '*');
  });

  it("tells the gateway's own names from others", () => {
    const names = ['box', 'box.local', 'opencube-cube.local', 'cube.local'];
    for (const own of [
      '10.0.0.2',
      '10.0.0.2:8081',
      '[::1]:80',
      '::1',
      'localhost',
      'LOCALHOST:1',
      'box.local.',
      'Box',
      'ihost',
      'IHOST:80',
      'ihost.local.',
      undefined,
    ])
      assert.equal(isOwnHost(own, names), true, String(own));
    for (const other of [
      'evil.example',
      'box.evil.example',
      '10.0.0.2.nip.io',
      'cube.local.evil',
      'ihost.evil.example',
      'evil-ihost',
    ])
      assert.equal(isOwnHost(other, names), false, other);
  });
});

describe('what one press of the link button approves', () => {
  const WINDOW = 300_000;
  function rig() {
    const clock = new ManualClock();
    const tokens = new TokenService(openDb(':memory:'), WINDOW, clock, new EventBus());
    return { clock, tokens };
  }

  it('approves the apps waiting at the press, and names them to the presser', () => {
    const { tokens, clock } = rig();
    tokens.poll('Node-RED');
    clock.advance(5_000);
    tokens.poll(undefined);
    assert.deepEqual(tokens.press().waiting_apps, ['Node-RED', '']);
    clock.advance(WINDOW - 1);
    assert.ok(tokens.poll('Node-RED').ok);
    assert.ok(tokens.poll(undefined).ok);
  });

  it('does not approve an app name that first polls after the press: it waits for the next press', () => {
    const { tokens } = rig();
    tokens.poll('Node-RED');
    tokens.press();
    for (const racer of ['Node-RED ', 'node-red', 'Homebridge', 'evil-0', ''])
      assert.deepEqual(tokens.poll(racer), { ok: false }, JSON.stringify(racer));
    assert.ok(tokens.poll('Node-RED').ok);
    assert.equal(tokens.list().length, 1, 'one token, for the app the presser saw');
    assert.deepEqual(tokens.waitingApps(), ['Node-RED ', 'node-red', 'Homebridge', 'evil-0', '']);
    assert.deepEqual(tokens.press().waiting_apps, ['Node-RED ', 'node-red', 'Homebridge', 'evil-0', '']);
  });

  it('goes to the first app that asks when none was waiting (clients that start after the press), and to it alone', () => {
    const { tokens, clock } = rig();
    assert.deepEqual(tokens.press().waiting_apps, []);
    clock.advance(60_000);
    const first = tokens.poll('Python client');
    assert.ok(first.ok);
    assert.deepEqual(tokens.poll('Homebridge'), { ok: false });
    assert.deepEqual(tokens.poll(undefined), { ok: false });
    const again = tokens.poll('Python client');
    assert.ok(again.ok && again.token === first.token, 'its repeated polls get the same token');
    assert.deepEqual(
      tokens.list().map((t) => t.app_name),
      ['Python client'],
    );
  });

  it('forgets apps that stopped polling a minute before the press', () => {
    const { tokens, clock } = rig();
    tokens.poll('gone');
    clock.advance(61_000);
    tokens.poll('here');
    assert.deepEqual(tokens.press().waiting_apps, ['here']);
    assert.deepEqual(tokens.poll('gone'), { ok: false });
  });

  it('over HTTP: two loops of one app polling before the press get one token; a name raced in after gets none', async () => {
    const port = new URL(g.url).port;
    const host = { host: `127.0.0.1:${port}` };
    assert.equal((await poll(host, 'Node-RED')).json.error, 401);
    const press = g.gateway.tokens.press();
    try {
      assert.deepEqual(press.waiting_apps, ['Node-RED']);
      const [a, b] = await Promise.all([poll(host, 'Node-RED'), poll(host, 'Node-RED')]);
      assert.equal(a.json.data.token, b.json.data.token);
      const racer = await poll(host, 'racer');
      assert.deepEqual(racer.json, { error: 401, data: {}, message: 'link button not pressed' });
    } finally {
      g.gateway.tokens.closeWindow();
    }
  });
});
