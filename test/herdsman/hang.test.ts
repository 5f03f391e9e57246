/**
 * A coordinator whose firmware hangs while its serial port stays open (zigbee-herdsman reports no
 * disconnection): the gateway asks it every minute whether it answers, on a clock moved by hand,
 * takes every device offline after two unanswered checks (D4 110005 at once), starts it again
 * once it answers, and lets one late answer pass.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../helpers/clock.ts';
import { call, listDevices, rest, type TestGateway, waitForValue } from '../helpers/foundation.ts';
import { type EventStream, openEvents } from '../helpers/sse.ts';
import { COLOUR_LIGHT, FAKE_DEVICES, TWO_GANG_SWITCH } from '../z2m/fake/devices.ts';
import type { ReceivedRequest } from '../z2m/fake/network.ts';
import { type HerdsmanSetup, herdsmanSetup, startHerdsmanGateway } from './harness.ts';

const CHECK_MS = 60_000;
const ANSWER_MS = 20_000;

/** Lets the gateway's I/O run (the clock is by hand, the sockets are not). */
const settle = () => new Promise((r) => setTimeout(r, 30));

describe('a coordinator whose firmware hangs with its port open', () => {
  const clock = new ManualClock(Date.now(), { zeroAtOnce: true });
  let s: HerdsmanSetup;
  let g: TestGateway;
  let token: string;
  let events: EventStream;
  let adapters = 0;
  const received: ReceivedRequest[] = [];

  const all = () => listDevices(g.url, token);
  const onlineCount = async () => (await all()).filter((d) => d.online).length;
  const find = async (model: string) => {
    const d = (await all()).find((x) => x.model === model);
    assert.ok(d, `${model} listed`);
    return d;
  };
  const switchOn = async () => {
    const sw = await find(TWO_GANG_SWITCH.expectedModel);
    return call(g.url, 'PUT', rest('v2', `devices/${sw.serial_number}`), {
      token,
      body: { state: { toggle: { '1': { toggleState: 'on' } } } },
    });
  };

  before(async () => {
    s = herdsmanSetup(FAKE_DEVICES, {
      driver: { clock, readPaceMs: 0, coordinatorCheckMs: CHECK_MS, coordinatorAnswerMs: ANSWER_MS },
    });
    const fake = s.driver.adapterFactory;
    s.driver.adapterFactory = async (...args) => {
      adapters++;
      return fake?.(...args);
    };
    s.net.events.on('received', (r) => received.push(r));
    g = await startHerdsmanGateway(s, { clock });
    token = g.token();
    events = await openEvents(g.url, token);
    await waitForValue(async () => ((await onlineCount()) === 5 ? true : undefined), 15_000, 'five devices online');
  });

  after(async () => {
    s?.net.resume();
    events?.close();
    await g?.stop();
    s?.net.close();
    if (s) rmSync(s.dataDir, { recursive: true, force: true });
  });

  it('keeps the coordinator through one check answered late', async () => {
    s.net.hang();
    clock.advance(CHECK_MS);
    await settle();
    clock.advance(ANSWER_MS); // the first check goes unanswered: asked again at once
    await settle();
    s.net.resume(); // ... and this time it answers, late
    await settle();
    clock.advance(ANSWER_MS);
    await settle();
    assert.equal(await onlineCount(), 5);
    assert.equal(adapters, 1, 'the coordinator was not started again');
    const on = await switchOn();
    assert.equal(on.json.error, 0, on.text);
  });

  it('takes every device offline after two unanswered checks, and D4 answers 110005 at once', async () => {
    const mark = events.events.length;
    s.net.hang();
    // The next check is due a minute after the late answer, which came ANSWER_MS ago.
    clock.advance(CHECK_MS - ANSWER_MS);
    await settle();
    clock.advance(ANSWER_MS);
    await settle();
    assert.equal(await onlineCount(), 5, 'one unanswered check is not enough');
    clock.advance(ANSWER_MS);
    await waitForValue(async () => ((await onlineCount()) === 0 ? true : undefined), 10_000, 'every device offline');
    const offline = events.events
      .slice(mark)
      .filter((e) => e.type === 'updateDeviceOnline' && e.data.payload.online === false);
    assert.equal(new Set(offline.map((e) => e.data.endpoint.serial_number)).size, 5);
    const light = await find(COLOUR_LIGHT.expectedModel);
    const before = received.length;
    const r = await call(g.url, 'PUT', rest('v2', `devices/${light.serial_number}`), {
      token,
      body: { state: { power: { powerState: 'on' } } },
    });
    assert.equal(r.json.error, 110005, r.text);
    assert.match(r.json.message, /the Zigbee coordinator is not running: the coordinator stopped answering/);
    assert.equal(received.length, before, 'nothing was sent');
  });

  it('keeps trying while it hangs, and brings the devices back with their state once it answers', async () => {
    const started = adapters;
    clock.advance(50); // the first retry: the hung coordinator does not start
    await settle();
    assert.ok(adapters > started, 'it was started again');
    assert.equal(await onlineCount(), 0);
    // Switched at the wall while the coordinator could not hear it.
    s.net.must(COLOUR_LIGHT.ieee).attributes(11, 'genOnOff').onOff = 1;
    s.net.resume();
    clock.advance(200);
    await waitForValue(async () => ((await onlineCount()) === 5 ? true : undefined), 15_000, 'all back online');
    await waitForValue(
      async () => ((await find(COLOUR_LIGHT.expectedModel)).state.power?.powerState === 'on' ? true : undefined),
      10_000,
      'the light read back on',
    );
    const on = await switchOn();
    assert.equal(on.json.error, 0, on.text);
  });
});
