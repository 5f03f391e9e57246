/**
 * Availability in `herdsman` mode, on a clock moved by hand: a mains-powered device not heard
 * from for 10 minutes is pinged and goes offline when it does not answer (and is pinged again
 * while offline); a battery-powered one goes offline after 25 hours of silence; anything heard
 * from a device brings it back.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../helpers/clock.ts';
import { call, eventually, listDevices, rest, type TestGateway, waitForValue } from '../helpers/foundation.ts';
import { COLOUR_LIGHT, COVER, FAKE_DEVICES, REMOTE, TWO_GANG_SWITCH } from '../z2m/fake/devices.ts';
import type { ReceivedRequest } from '../z2m/fake/network.ts';
import type { FakeDeviceSpec } from '../z2m/fake/spec.ts';
import { type HerdsmanSetup, herdsmanSetup, startHerdsmanGateway } from './harness.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('availability in herdsman mode', () => {
  const clock = new ManualClock(Date.now(), { zeroAtOnce: true });
  let s: HerdsmanSetup;
  let g: TestGateway;
  let token: string;
  const received: ReceivedRequest[] = [];

  const online = async (spec: FakeDeviceSpec) =>
    (await listDevices(g.url, token)).find((d) => d.model === spec.expectedModel)?.online;
  const becomes = (spec: FakeDeviceSpec, value: boolean) =>
    waitForValue(
      async () => ((await online(spec)) === value ? true : undefined),
      10_000,
      `${spec.name} online ${value}`,
    );
  const pings = (spec: FakeDeviceSpec) =>
    received.filter((r) => r.ieee === spec.ieee && r.cluster === 'genBasic' && r.command === 'read').length;

  before(async () => {
    // The clock jumps by hours in one step, faster than the coordinator can answer the gateway's
    // check that it still runs (hang.test.ts): that check is off here.
    s = herdsmanSetup(FAKE_DEVICES, { driver: { clock, readPaceMs: 0, coordinatorCheckMs: 0 } });
    s.net.events.on('received', (r) => received.push(r));
    g = await startHerdsmanGateway(s);
    token = g.token();
    await waitForValue(
      async () => ((await listDevices(g.url, token)).filter((d) => d.online).length === 5 ? true : undefined),
      15_000,
      'five devices online',
    );
  });

  after(async () => {
    await g?.stop();
    s?.net.close();
    if (s) rmSync(s.dataDir, { recursive: true, force: true });
  });

  it('pings a mains-powered device silent for 10 minutes, and keeps it online when it answers', async () => {
    const before = pings(COLOUR_LIGHT);
    clock.advance(9 * MINUTE);
    assert.equal(pings(COLOUR_LIGHT), before, 'not pinged before 10 minutes');
    clock.advance(2 * MINUTE);
    await eventually(() => pings(COLOUR_LIGHT) > before, 5000, 'the light pinged');
    assert.equal(await online(COLOUR_LIGHT), true);
  });

  it('takes offline a mains-powered device that does not answer its ping (110005), and pings it again', async () => {
    s.net.setOnline(TWO_GANG_SWITCH.ieee, false);
    clock.advance(11 * MINUTE);
    await becomes(TWO_GANG_SWITCH, false);
    const sw = (await listDevices(g.url, token)).find((d) => d.model === TWO_GANG_SWITCH.expectedModel);
    const r = await call(g.url, 'PUT', rest('v2', `devices/${sw.serial_number}`), {
      token,
      body: { state: { toggle: { '1': { toggleState: 'on' } } } },
    });
    assert.equal(r.json.error, 110005, r.text);
    const tried = pings(TWO_GANG_SWITCH);
    clock.advance(11 * MINUTE);
    await eventually(() => pings(TWO_GANG_SWITCH) > tried, 5000, 'pinged again while offline');
  });

  it('brings it back when it is heard from again', async () => {
    s.net.setOnline(TWO_GANG_SWITCH.ieee, true); // it announces itself, as after a power cut
    await becomes(TWO_GANG_SWITCH, true);
  });

  it('takes offline a battery-powered device silent for 25 hours, without pinging it', async () => {
    const before = pings(REMOTE);
    clock.advance(24 * HOUR);
    await new Promise((r) => setImmediate(r));
    assert.equal(await online(REMOTE), true, 'online after 24 hours');
    clock.advance(2 * HOUR);
    await becomes(REMOTE, false);
    await becomes(COVER, false);
    assert.equal(pings(REMOTE), before);
    assert.equal(await online(COLOUR_LIGHT), true, 'the light answered its pings all along');
  });

  it('brings a battery-powered device back with its next report', async () => {
    s.net.report(REMOTE.ieee, 1, 'genPowerCfg', { batteryPercentageRemaining: 80 });
    await becomes(REMOTE, true);
    assert.equal(await online(COVER), false);
  });
});
