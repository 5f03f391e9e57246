/**
 * Input the router or the store cannot take as sent still gets the envelope (HTTP 200, error
 * 400 naming the problem): path parameters that are not valid percent-encoding or too long,
 * and strings holding an unpaired UTF-16 surrogate, which the store could not keep as sent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, listDevices, rest, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { endpoint, type Service, sendEvent, startService } from '../helpers/thirdparty.ts';

let gw: TestGateway;
let token: string;
let service: Service;
let serial: string;

before(async () => {
  gw = await startGateway();
  token = gw.token('input-tests');
  service = await startService();
  const r = await sendEvent(gw, token, 'DiscoveryRequest', { endpoints: [endpoint('in-1', service.url)] });
  serial = r.json.payload.endpoints[0].serial_number;
});
after(async () => {
  await gw.stop();
  await service.close();
});

function failure400(res: { status: number; json: any; text: string }, message: RegExp) {
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(Object.keys(res.json).sort(), ['data', 'error', 'message'], res.text);
  assert.equal(res.json.error, 400, res.text);
  assert.deepEqual(res.json.data, {});
  assert.match(res.json.message, message);
}

describe('path parameters', () => {
  const bad = ['%E0%A4%A', '%', '%zz', 'a%FFb'];
  const long = 'x'.repeat(600);
  const routes: [string, string, (p: string) => string][] = [
    ['PUT', 'devices/{serial}', (p) => `devices/${p}`],
    ['DELETE', 'devices/{serial}', (p) => `devices/${p}`],
    ['POST', 'devices/{serial}/query-state/power', (p) => `devices/${p}/query-state/power`],
    ['PUT', 'devices/<known>/query-state/{capability}', (p) => `devices/${serial}/query-state/${p}`],
    ['PUT', 'security/{sid}/enable', (p) => `security/${p}/enable`],
    ['PUT', 'security/{sid}/disable', (p) => `security/${p}/disable`],
  ];
  for (const [method, what, path] of routes) {
    it(`${method} ${what} with a malformed or overlong parameter gets the envelope`, async () => {
      for (const p of bad) {
        const res = await call(gw.url, method, rest('v2', path(p)), { token, body: { query_state: {} } });
        failure400(res, /not valid percent-encoding/);
        assert.equal(res.headers.get('access-control-allow-origin'), '*');
      }
      failure400(
        await call(gw.url, method, rest('v1', path(long)), { token, body: { query_state: {} } }),
        /longer than/,
      );
    });
  }
});

describe('unpaired surrogates', () => {
  it('a D4 name or tags holding an unpaired surrogate is refused, and nothing changes', async () => {
    const before = await listDevices(gw.url, token);
    for (const body of ['{"name":"a\\ud800"}', '{"name":"\\udc00b"}', '{"tags":{"k\\ud83d":"v"}}']) {
      const res = await call(gw.url, 'PUT', rest('v2', `devices/${serial}`), { token, body });
      failure400(res, /unpaired surrogate/);
    }
    assert.deepEqual(await listDevices(gw.url, token), before);
    // A pair is fine, and round-trips through a restart.
    const ok = await call(gw.url, 'PUT', rest('v2', `devices/${serial}`), {
      token,
      body: '{"name":"lamp \\ud83d\\udca1"}',
    });
    assert.equal(ok.json.error, 0, ok.text);
    gw = await gw.restart();
    const d = (await listDevices(gw.url, token)).find((x) => x.serial_number === serial);
    assert.equal(d.name, 'lamp \u{1f4a1}');
  });

  it('an app_name cut at 200 characters inside a surrogate pair is answered as it is stored', async () => {
    gw.gateway.tokens.press();
    const appName = `${'a'.repeat(199)}\u{1f4a1}`;
    const res = await call(
      gw.url,
      'GET',
      `${rest('v2', 'bridge/access_token')}?app_name=${encodeURIComponent(appName)}`,
    );
    gw.gateway.tokens.closeWindow();
    assert.equal(res.json.error, 0, res.text);
    gw = await gw.restart();
    const stored = gw.gateway.tokens.list().find((t) => t.app_name?.startsWith('aaa'));
    assert.equal(res.json.data.app_name, stored?.app_name);
  });

  it('a third-party event holding an unpaired surrogate gets INVALID_PARAMETERS', async () => {
    const res = await sendEvent(gw, token, 'DiscoveryRequest', {
      endpoints: [endpoint('in-\ud800', service.url)],
    });
    assert.equal(res.status, 200);
    assert.equal(res.json.header.name, 'ErrorResponse', res.text);
    assert.equal(res.json.payload.type, 'INVALID_PARAMETERS');
    assert.match(res.json.payload.description, /unpaired surrogate/);
  });
});
