/**
 * The default mode (the simulated Zigbee network) run through many periods of every timer it has
 * (issue 23: at 240 s aedes' will sweep took every device offline, and nothing in the suite ran a
 * gateway that long). The timers of the network run in real time, shortened: the broker's
 * heartbeat (its will sweep every 4), the MQTT keep-alive of both clients, the sensors' reports.
 * The gateway's own timers (event-stream heartbeats, the link window, token and console upkeep,
 * the driver's deadlines and read-back pacing) run on its injected clock, at their defaults, moved
 * by hand through an hour. Through all of it every device stays online, `/ready` stays ready,
 * commands work, the link button works, and the event stream stays open with its pings.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../helpers/clock.ts';
import { call, eventually, openStream, rest, startGateway } from '../helpers/foundation.ts';
import { recordingLog } from '../helpers/log.ts';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Rounds of the run; each moves the gateway's clock by STEP_MS and lets the network run REAL_MS. */
const ROUNDS = 40;
const STEP_MS = 90_000;
const REAL_MS = 250;

test('the default mode stays up through many periods of every timer: devices online, ready, commands, link button, stream', async (t) => {
  const clock = new ManualClock(Date.now());
  const recorded = recordingLog('info');
  const g = await startGateway({
    overrides: { zigbee: { mode: 'sim', sim_keepalive_seconds: 1 } },
    gatewayOptions: {
      clock,
      log: recorded.log,
      // A heartbeat of 100 ms: a will sweep every 400 ms, some 25 of them in the run; reports every 100 ms.
      drivers: { zigbee: { broker: { heartbeatMs: 100 }, sim: { reportIntervalMs: 100 } } },
    },
  });
  t.after(() => g.stop());
  const token = g.token('stays-up');
  const registry = g.gateway.devices.registry;
  const devices = g.gateway.settings.zigbee.sim_devices;
  await eventually(
    () => registry.size === devices && registry.list().every((d) => d.online),
    30_000,
    `the ${devices} simulated devices online`,
  );
  const stream = await openStream(g.url, `/open-api/v2/sse/bridge?access_token=${token}`);
  t.after(() => stream.close());
  assert.equal(stream.status, 200, 'the event stream is open');
  const light = registry.list().find((d) => d.display_category === 'light');
  assert.ok(light, 'a light among the simulated devices');

  const offline: string[] = [];
  let commands = 0;
  let links = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    clock.advance(STEP_MS);
    await pause(REAL_MS);
    for (const d of registry.list()) if (!d.online) offline.push(`round ${round}: ${d.name}`);
    const ready = await call(g.url, 'GET', '/ready');
    assert.equal(ready.status, 200, `round ${round}: /ready ${ready.text}`);
    if (round % 5 === 0) {
      const on = round % 10 === 0 ? 'on' : 'off';
      const r = await call(g.url, 'PUT', rest('v2', `devices/${light.serial_number}`), {
        token,
        body: { state: { power: { powerState: on } } },
      });
      assert.equal(r.json?.error, 0, `round ${round}: the light switched ${on}: ${r.text}`);
      assert.deepEqual(registry.get(light.serial_number)?.state.power, { powerState: on });
      commands++;
    }
    if (round % 8 === 0) {
      // The link window (300 s) opens, gives a token, and closes on the clock.
      const app = `app-${round}`;
      const poll = () => call(g.url, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=${app}`);
      g.gateway.tokens.press();
      assert.equal((await poll()).json?.error, 0, `round ${round}: a token within the window`);
      clock.advance(g.gateway.settings.link_window_seconds * 1000);
      const late = await call(g.url, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=other-${round}`);
      assert.equal(late.json?.message, 'link button not pressed', `round ${round}: the window closed`);
      links++;
    }
  }
  assert.deepEqual(offline, [], 'no device ever went offline');
  assert.equal(commands, ROUNDS / 5);
  assert.equal(links, ROUNDS / 8);

  const frames = stream.frames;
  let open = true;
  void stream.closed.then(() => {
    open = false;
  });
  await pause(10);
  assert.ok(open, 'the event stream is still open');
  const pings = frames.filter((f) => f.comments.includes('ping')).length;
  const clockSeconds = (ROUNDS * STEP_MS + links * g.gateway.settings.link_window_seconds * 1000) / 1000;
  assert.ok(
    pings >= Math.floor(clockSeconds / g.gateway.settings.sse.heartbeat_seconds) - 1,
    `a ping every ${g.gateway.settings.sse.heartbeat_seconds} s of the clock (${pings} over ${clockSeconds} s)`,
  );
  const wentOffline = frames.filter((f) => f.event === 'device#v2#updateDeviceOnline' && f.data[0]?.includes('false'));
  assert.equal(wentOffline.length, 0, 'no offline event on the stream');
  assert.ok(
    frames.some((f) => f.event === 'device#v2#updateDeviceState'),
    'the sensors kept reporting through the stream',
  );
  assert.doesNotMatch(recorded.text(), /instance offline|MQTT broker unreachable|device offline/);
});
