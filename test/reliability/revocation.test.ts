/**
 * A revoked token, or a factory reset, ends that token's open event streams at once (issue 16,
 * point 2): through the real CLI and the control socket, as a user does it. Another token's
 * streams go on receiving.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { call, openStream, type RawStream, rest, startGateway } from '../helpers/foundation.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';

function sse(version: string, token: string): string {
  return `/open-api/${version}/sse/bridge?access_token=${encodeURIComponent(token)}`;
}

/** Whether the stream has ended: resolves true once it is closed, false if it still runs after `ms`. */
function endsWithin(s: RawStream, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((r) => {
    timer = setTimeout(() => r(false), ms);
  });
  return Promise.race([s.closed.then(() => true), late]).finally(() => clearTimeout(timer));
}

describe('streams of a revoked token', () => {
  it('end at once on `opencube tokens revoke`; the streams of another token go on and get the next event', async (t) => {
    const gw = await startGateway();
    const streams: RawStream[] = [];
    t.after(async () => {
      for (const s of streams) s.close();
      await gw.stop();
    });
    const revoked = await gw.linkToken('revoked-app');
    const kept = await gw.linkToken('kept-app');
    for (const [token, version] of [
      [revoked, 'v1'],
      [revoked, 'v2'],
      [kept, 'v2'],
    ] as const) {
      const s = await openStream(gw.url, sse(version, token));
      await s.waitFor((f) => f.length >= 1);
      streams.push(s);
    }
    const [r1, r2, k] = streams as [RawStream, RawStream, RawStream];
    const id = gw.gateway.tokens.list().find((x) => x.app_name === 'revoked-app')?.id as string;

    const cli = await runCli(['tokens', 'revoke', id, '--data-dir', gw.dataDir]);
    assert.equal(cli.code, 0, cli.stderr);
    // The streams end without any further event or heartbeat to trigger it.
    assert.equal(await endsWithin(r1, 10_000), true, 'the v1 stream of the revoked token ended');
    assert.equal(await endsWithin(r2, 10_000), true, 'the v2 stream of the revoked token ended');

    const armed = await call(gw.url, 'PUT', rest('v2', 'security/1/enable'), { token: kept });
    assert.equal(armed.json.error, 0, armed.text);
    await k.waitFor(() => k.events().some((f) => f.event === 'security#v2#updateArmState'));
    assert.equal(await endsWithin(k, 200), false, "the other token's stream still runs");
    for (const s of [r1, r2]) assert.equal(s.events().length, 0, 'nothing reached the revoked streams');

    const reopened = await openStream(gw.url, sse('v2', revoked));
    reopened.close();
    assert.equal(reopened.status, 401, 'the revoked token cannot open a new stream');
  });
});

describe('a factory reset', () => {
  it('ends every stream after the deleteDevice events of the reset (`opencube reset`)', async (t) => {
    const gw = await startGateway();
    const streams: RawStream[] = [];
    t.after(async () => {
      for (const s of streams) s.close();
      await gw.stop();
    });
    const a = gw.token('a');
    const b = gw.token('b');
    const synced = await sendEvent(gw, a, 'DiscoveryRequest', {
      endpoints: [endpoint('lamp-1', 'http://127.0.0.1:9/directive')],
    });
    assert.equal(synced.json.header.name, 'Response', synced.text);
    const serial = synced.json.payload.endpoints[0].serial_number as string;
    for (const token of [a, b]) {
      const s = await openStream(gw.url, sse('v2', token));
      await s.waitFor((f) => f.length >= 1);
      streams.push(s);
    }

    const cli = await runCli(['reset', '--yes', '--data-dir', gw.dataDir]);
    assert.equal(cli.code, 0, cli.stderr);
    for (const s of streams) {
      assert.equal(await endsWithin(s, 10_000), true, 'the stream ended');
      assert.deepEqual(
        s.events().map((f) => [f.event, JSON.parse(f.data[0] as string)]),
        [['device#v2#deleteDevice', { endpoint: { serial_number: serial, third_serial_number: 'lamp-1' } }]],
        'the deletion reached the stream before it ended',
      );
    }
  });
});
