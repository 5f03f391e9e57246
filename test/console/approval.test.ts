/**
 * Approving one app (the console's pop-up, spec 3) beside the link button (`opencube link`):
 * the token service on a real store and bus, time moved by hand; then over HTTP with G1.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EventBus } from '../../src/core/event-bus.ts';
import { TokenService } from '../../src/core/tokens.ts';
import { openDb } from '../../src/store/db.ts';
import { ManualClock } from '../helpers/clock.ts';
import { call, rest, startGateway } from '../helpers/foundation.ts';

const WINDOW = 300_000;

function rig() {
  const clock = new ManualClock();
  const bus = new EventBus();
  const waiting: string[][] = [];
  bus.subscribe((e) => {
    if (e.name === 'link#waiting') waiting.push((e.data as { payload: { apps: string[] } }).payload.apps);
  });
  const tokens = new TokenService(openDb(':memory:'), WINDOW, clock, bus);
  return { clock, tokens, waiting };
}

describe('approving one app from the console', () => {
  test('an app that polls is announced as waiting, once, and is refused until approved', () => {
    const { tokens, waiting } = rig();
    assert.deepEqual(tokens.poll('Node-RED'), { ok: false });
    assert.deepEqual(tokens.poll('Node-RED'), { ok: false });
    assert.deepEqual(waiting, [['Node-RED']]);
  });

  test('an approved app gets a working token on its next poll, the same one on repeated polls, and leaves the waiting list', () => {
    const { tokens, waiting } = rig();
    tokens.poll('Node-RED');
    tokens.poll('Homebridge');
    tokens.approve('Node-RED');
    assert.deepEqual(waiting.at(-1), ['Homebridge'], 'the pop-up closes for the approved app only');
    const first = tokens.poll('Node-RED');
    const again = tokens.poll('Node-RED');
    assert.ok(first.ok && again.ok);
    assert.equal(first.token, again.token);
    assert.equal(first.app_name, 'Node-RED');
    assert.equal(tokens.verify(first.token)?.app_name, 'Node-RED');
    assert.deepEqual(tokens.poll('Homebridge'), { ok: false }, 'another app is not approved with it');
  });

  test('an approval lasts the link window; after it the app is refused again', () => {
    const { tokens, clock } = rig();
    tokens.poll('late-app');
    tokens.approve('late-app');
    clock.advance(WINDOW);
    assert.deepEqual(tokens.poll('late-app'), { ok: false });
  });

  test('a denied app keeps getting the refusal for the window, is no longer waiting, and may ask again afterwards', () => {
    const { tokens, clock, waiting } = rig();
    tokens.poll('intruder');
    tokens.deny('intruder');
    assert.deepEqual(waiting.at(-1), []);
    assert.deepEqual(tokens.poll('intruder'), { ok: false });
    assert.deepEqual(tokens.waitingApps(), [], 'its polls during the denial do not bring the pop-up back');
    clock.advance(WINDOW);
    assert.deepEqual(tokens.poll('intruder'), { ok: false });
    assert.deepEqual(tokens.waitingApps(), ['intruder']);
  });

  test('a denial also wins over the link button pressed later', () => {
    const { tokens } = rig();
    tokens.deny('intruder');
    tokens.press();
    assert.deepEqual(tokens.poll('intruder'), { ok: false });
    assert.ok(tokens.poll('friend').ok, 'the button still lets other apps in');
  });

  test('approving after a denial lets the app in; denying after an approval keeps it out', () => {
    const { tokens } = rig();
    tokens.deny('app');
    tokens.approve('app');
    assert.ok(tokens.poll('app').ok);
    const other = rig().tokens;
    other.approve('app');
    other.deny('app');
    assert.deepEqual(other.poll('app'), { ok: false });
  });

  test('a client without app_name is approved as the empty name', () => {
    const { tokens } = rig();
    tokens.poll(undefined);
    assert.deepEqual(tokens.waitingApps(), ['']);
    tokens.approve('');
    const grant = tokens.poll(undefined);
    assert.ok(grant.ok);
    assert.equal('app_name' in grant, false);
  });

  test('the link button lets in the apps waiting at the press, and the pop-ups close (opencube link)', () => {
    const { tokens, waiting } = rig();
    tokens.poll('a');
    tokens.poll('b');
    tokens.press();
    assert.deepEqual(waiting.at(-1), []);
    assert.ok(tokens.poll('a').ok);
    assert.ok(tokens.poll('b').ok);
  });

  test('revoking the token of an approved app ends its approval: it must ask again', () => {
    const { tokens } = rig();
    tokens.approve('app');
    const first = tokens.poll('app');
    assert.ok(first.ok);
    tokens.revoke(tokens.verify(first.token)?.id as string);
    assert.deepEqual(tokens.poll('app'), { ok: false });
    assert.deepEqual(tokens.waitingApps(), ['app']);
  });

  test('decisions keyed by names anyone may send stay bounded', () => {
    const { tokens } = rig();
    for (let i = 0; i < 500; i++) tokens.deny(`app-${i}`);
    tokens.approve('real');
    assert.ok(tokens.poll('real').ok);
    assert.ok(tokens.poll('app-0').ok === false);
  });

  test('a factory reset forgets every decision', () => {
    const { tokens } = rig();
    tokens.approve('app');
    tokens.clear();
    assert.deepEqual(tokens.poll('app'), { ok: false });
  });
});

describe('approval over HTTP', () => {
  test('G1 answers 401 "link button not pressed" until the console approves the app, then a working token', async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    const poll = () => call(g.url, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=Dashboard`);
    assert.deepEqual((await poll()).json, { error: 401, data: {}, message: 'link button not pressed' });
    assert.deepEqual(g.gateway.tokens.waitingApps(), ['Dashboard']);
    g.gateway.tokens.approve('Dashboard');
    const granted = await poll();
    assert.equal(granted.json.error, 0);
    const runtime = await call(g.url, 'GET', rest('v2', 'bridge/runtime'), { token: granted.json.data.token });
    assert.equal(runtime.json.error, 0);
  });
});
