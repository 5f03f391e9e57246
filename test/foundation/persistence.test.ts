/**
 * State survives a restart of the gateway on the same data folder: tokens (and their last use),
 * the speaker's volume and mute, the alarm state, and the armed security mode.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { call, rest, startGateway } from '../helpers/foundation.ts';

it('a second gateway on the same data folder has the tokens, volume, mute and modes of the first', async (t) => {
  const first = await startGateway();
  let second = first;
  t.after(() => second.stop());

  first.gateway.tokens.press();
  const grant = await call(first.url, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=keeper`);
  const token: string = grant.json.data.token;
  const put = async (path: string, body?: unknown) =>
    assert.equal((await call(first.url, 'PUT', rest('v1', path), { token, body })).json.error, 0);
  await put('bridge/config', { volume: 23 });
  await put('bridge/mute');
  await put('security/3/enable');
  await put('bridge/cancel_alarm'); // with no alarm sounding: nothing to keep

  second = await first.restart();
  assert.equal(second.dataDir, first.dataDir);
  // the token still authorises, and carries its app name and its last use
  const modes = await call(second.url, 'GET', rest('v2', 'security'), { token });
  assert.equal(modes.json.error, 0);
  assert.deepEqual(modes.json.data.security_list, [
    { sid: 1, name: 'home_mode', enable: false },
    { sid: 2, name: 'away_mode', enable: false },
    { sid: 3, name: 'sleep_mode', enable: true },
  ]);
  const [info] = second.gateway.tokens.list();
  assert.equal(info?.app_name, 'keeper');
  assert.ok(info?.last_used_at, 'the last use was flushed on stop');
  assert.deepEqual(second.gateway.speaker.get(), { volume: 23, muted: true });
  assert.equal(second.gateway.alarm.status().alarm_state, 'normal');
  // the link window does not survive a restart: a token needs a fresh press
  const poll = await call(second.url, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=keeper`);
  assert.deepEqual(poll.json, { error: 401, data: {}, message: 'link button not pressed' });
});

it('refuses to start a second gateway on a data folder that a running gateway serves', async (t) => {
  const first = await startGateway();
  t.after(() => first.stop());
  await assert.rejects(startGateway({ dataDir: first.dataDir }), /another gateway is running/);
  // the first one is unharmed
  assert.equal((await call(first.url, 'GET', rest('v2', 'bridge'))).json.error, 0);
});
