/**
 * The third-party fault zoo (hang, reset, garbage, huge, drip, redirect, HTTP error, refused):
 * every D4 to a device behind a failing service ends with the right code, and a 110019 says the
 * same words whatever went wrong, so that a token holder cannot map the gateway's network
 * through the service addresses it syncs (issue 16, point 7). The detail is in the debug log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { advanceUntil, ManualClock } from '../helpers/clock.ts';
import { FAULTS, type FaultZoo, REFUSED_CODE, startFaultZoo } from '../helpers/fault-zoo.ts';
import { call, eventually, rest, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { deadAddress, endpoint, sendEvent } from '../helpers/thirdparty.ts';

const MESSAGE =
  "failed to access the third-party device's service address: the service could not be reached or answered badly";

describe('a D4 to a device whose service fails', () => {
  const clock = new ManualClock();
  const logged: { msg: string; reason?: string; service_address?: string }[] = [];
  let gw: TestGateway;
  let zoo: FaultZoo;
  let token: string;
  const serials = new Map<string, string>();

  before(async () => {
    zoo = await startFaultZoo();
    const log = pino({ level: 'debug' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
    gw = await startGateway({ gatewayOptions: { clock, log } });
    token = gw.token('zoo');
    const addresses: [string, string][] = Object.entries(FAULTS)
      .filter(([, f]) => !f.realTime)
      .map(([name]) => [name, zoo.address(name)]);
    addresses.push(['refused', await deadAddress()]);
    const r = await sendEvent(gw, token, 'DiscoveryRequest', {
      endpoints: addresses.map(([name, address]) => endpoint(name, address)),
    });
    for (const e of r.json.payload.endpoints) serials.set(e.third_serial_number, e.serial_number);
  });
  after(async () => {
    await gw.stop();
    await zoo.close();
  });

  const cases: [string, number][] = [
    ...Object.entries(FAULTS)
      .filter(([, f]) => !f.realTime)
      .map(([name, f]): [string, number] => [name, f.code]),
    ['refused', REFUSED_CODE],
  ];
  for (const [name, code] of cases) {
    const what = FAULTS[name]?.what ?? 'refuses the connection';
    it(`that ${what} gets ${code}${code === 110019 ? ' and the one message' : ''}`, async () => {
      const sent = name === 'refused' ? 0 : zoo.received(name);
      const answer = call(gw.url, 'PUT', rest('v2', `devices/${serials.get(name)}`), {
        token,
        body: { state: { power: { powerState: 'on' } } },
      });
      // The clock moves once the service has the directive: the wait is measured from there.
      if (name !== 'refused') await eventually(() => zoo.received(name) > sent, 10_000, 'the directive');
      const { value: r, elapsedMs } = await advanceUntil(clock, answer);
      assert.equal(r.json.error, code, r.text);
      assert.ok(elapsedMs <= 3000, `answered within the 3 s of spec 4.5 (gateway clock: ${elapsedMs} ms)`);
      if (code === 110019) assert.equal(r.json.message, MESSAGE);
    });
  }

  it('keeps what went wrong in the debug log', () => {
    const reasons = logged.filter((l) => l.msg === 'directive failed').map((l) => l.reason ?? '');
    for (const pattern of [/ECONNREFUSED/, /no answer within 3000 ms/, /HTTP 302/, /HTTP 500/])
      assert.ok(
        reasons.some((r) => pattern.test(r)),
        `${pattern} in ${JSON.stringify(reasons)}`,
      );
  });
});
