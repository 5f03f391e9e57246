/**
 * Issue 16, point 1: a web page must not take a token. During a link window, a page open in the
 * user's browser (which sends an Origin, and which the browser only lets read answers that allow
 * its origin) or a DNS-rebinding page (which reaches the gateway under a name of its own) polls
 * G1: it gets no token. Native clients and servers (no Origin, the gateway's address) still do.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { isOwnHost } from '../../src/core/gateway-info.ts';
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

  it('still gives a native client its token under the address, localhost, the domain and allowed_hosts', async () => {
    const port = new URL(g.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `cube.local:${port}`, 'GATEWAY.home.lan.']) {
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
      undefined,
    ])
      assert.equal(isOwnHost(own, names), true, String(own));
    for (const other of ['evil.example', 'box.evil.example', '10.0.0.2.nip.io', 'cube.local.evil'])
      assert.equal(isOwnHost(other, names), false, other);
  });
});
