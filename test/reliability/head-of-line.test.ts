/**
 * Directives to a device never wait behind another device's hung directives, even when both
 * devices share one service address (issue 16, point 6): a bridge serves many devices on one
 * host:port, and one of them hanging must not stall the others.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { advanceUntil, ManualClock } from '../helpers/clock.ts';
import { type ApiAnswer, call, eventually, rest, startGateway } from '../helpers/foundation.ts';
import { endpoint, sendEvent, startService, successReply } from '../helpers/thirdparty.ts';

const HUNG = 150;

test(`while ${HUNG} directives hang on one service address, a healthy device behind the same address is answered at once`, async (t) => {
  const clock = new ManualClock();
  const gw = await startGateway({ gatewayOptions: { clock } });
  const held: ServerResponse[] = [];
  const service = await startService((d, _req, res) => {
    if (d?.directive?.endpoint?.third_serial_number === 'hung') held.push(res);
    else res.end(JSON.stringify(successReply(d)));
  });
  t.after(async () => {
    for (const res of held) res.destroy();
    await gw.stop();
    await service.close();
  });
  const token = gw.token('bridge');
  const r = await sendEvent(gw, token, 'DiscoveryRequest', {
    endpoints: [endpoint('hung', service.url), endpoint('healthy', service.url)],
  });
  const [hung, healthy] = r.json.payload.endpoints.map((e: { serial_number: string }) => e.serial_number);
  const control = (serial: string) =>
    call(gw.url, 'PUT', rest('v2', `devices/${serial}`), { token, body: { state: { power: { powerState: 'on' } } } });

  // A failed run stops the gateway under them: they end then, as failures of this test.
  const hanging = Array.from({ length: HUNG }, () => control(hung).catch(() => undefined));
  // Before the fix, 64 of them took every connection the gateway opens to one address.
  await eventually(() => held.length >= 64, 10_000, 'the hung directives reach the service');
  const answered = await Promise.race([
    control(healthy),
    new Promise<undefined>((done) => setTimeout(() => done(undefined), 10_000).unref()),
  ]);
  assert.ok(answered, 'the healthy device was answered while the other one hangs (not behind it)');
  assert.equal((answered as ApiAnswer).json.error, 0, (answered as ApiAnswer).text);
  await eventually(() => held.length === HUNG, 10_000, 'every hung directive reached the service');

  // The hung ones end at the spec's 3 s, on the gateway's clock, each with 110019.
  const { value } = await advanceUntil(clock, Promise.all(hanging));
  assert.deepEqual(new Set(value.map((a) => a?.json.error)), new Set([110019]));
});
