/**
 * Security modes (S1-S5): at most one armed, S4 arms the default (away_mode), S5 disarms all,
 * and every change is one `security#<v>#updateArmState` event on the stream of that version.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { EventBus } from '../../src/core/event-bus.ts';
import { SecurityService } from '../../src/core/security.ts';
import { openDb } from '../../src/store/db.ts';
import { call, openStream, rest, startGateway } from '../helpers/foundation.ts';

type ArmEvent = { arm_state: string; detail: { sid: number; name: string } };

describe('security events over HTTP and the stream', () => {
  it('emits one updateArmState per change, named with the version of the stream', async (t) => {
    const gw = await startGateway();
    t.after(() => gw.stop());
    const token = gw.token();
    const v1 = await openStream(gw.url, `/open-api/v1/sse/bridge?access_token=${token}`);
    const v2 = await openStream(gw.url, `/open-api/V2/sse/bridge?access_token=${token}`);
    t.after(() => {
      v1.close();
      v2.close();
    });
    const put = async (path: string) => {
      const res = await call(gw.url, 'PUT', rest('v2', path), { token, body: '' });
      assert.equal(res.json.error, 0, JSON.stringify(res.json));
    };
    await put('security/1/enable'); // arm home
    await put('security/1/enable'); // no change: no event
    await put('security/3/enable'); // disarm home, arm sleep
    await put('security/enable'); // disarm sleep, arm away (the default)
    await put('security/2/disable'); // disarm away
    await put('security/2/disable'); // no change
    await put('security/3/enable'); // arm sleep
    await put('security/disable'); // disarm all
    await put('security/disable'); // nothing armed: no event
    const expected: ArmEvent[] = [
      { arm_state: 'arming', detail: { sid: 1, name: 'home_mode' } },
      { arm_state: 'disarming', detail: { sid: 1, name: 'home_mode' } },
      { arm_state: 'arming', detail: { sid: 3, name: 'sleep_mode' } },
      { arm_state: 'disarming', detail: { sid: 3, name: 'sleep_mode' } },
      { arm_state: 'arming', detail: { sid: 2, name: 'away_mode' } },
      { arm_state: 'disarming', detail: { sid: 2, name: 'away_mode' } },
      { arm_state: 'arming', detail: { sid: 3, name: 'sleep_mode' } },
      { arm_state: 'disarming', detail: { sid: 3, name: 'sleep_mode' } },
    ];
    for (const [stream, version] of [
      [v1, 'v1'],
      [v2, 'v2'],
    ] as const) {
      await stream.waitFor(() => stream.events().length >= expected.length);
      const events = stream.events().filter((f) => f.event?.startsWith('security#'));
      assert.deepEqual(
        events.map((f) => f.event),
        expected.map(() => `security#${version}#updateArmState`),
      );
      const payloads = events.map((f) => JSON.parse(f.data[0] as string));
      assert.deepEqual(
        payloads,
        expected.map((p) => ({ payload: p })),
      );
      // clients check that the first key of payload is arm_state
      for (const p of payloads) assert.equal(Object.keys(p.payload)[0], 'arm_state');
    }
  });
});

describe('SecurityService', () => {
  it('keeps at most one mode armed and emits exactly the changes, for any sequence of S2-S5', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('enable' as const), sid: fc.integer({ min: 0, max: 4 }) }),
      fc.record({ kind: fc.constant('disable' as const), sid: fc.integer({ min: 0, max: 4 }) }),
      fc.record({ kind: fc.constant('enableDefault' as const) }),
      fc.record({ kind: fc.constant('disableAll' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const db = openDb(':memory:');
        const bus = new EventBus(10_000);
        const events: ArmEvent[] = [];
        bus.subscribe((e) => events.push((e.data as { payload: ArmEvent }).payload));
        const security = new SecurityService(db, bus);
        let armed: number | null = null;
        const names: Record<number, string> = { 1: 'home_mode', 2: 'away_mode', 3: 'sleep_mode' };
        const expected: ArmEvent[] = [];
        const arm = (sid: number) => {
          if (armed === sid) return;
          if (armed !== null)
            expected.push({ arm_state: 'disarming', detail: { sid: armed, name: names[armed] as string } });
          expected.push({ arm_state: 'arming', detail: { sid, name: names[sid] as string } });
          armed = sid;
        };
        const disarm = () => {
          if (armed !== null)
            expected.push({ arm_state: 'disarming', detail: { sid: armed, name: names[armed] as string } });
          armed = null;
        };
        for (const o of ops) {
          if (o.kind === 'enable') {
            const r = security.enable(o.sid);
            assert.equal(r.ok, o.sid in names);
            if (r.ok) arm(o.sid);
          } else if (o.kind === 'disable') {
            const r = security.disable(o.sid);
            assert.equal(r.ok, o.sid in names);
            if (r.ok && armed === o.sid) disarm();
          } else if (o.kind === 'enableDefault') {
            assert.ok(security.enableDefault().ok);
            arm(2);
          } else {
            security.disableAll();
            disarm();
          }
          const on = security.list().filter((m) => m.enable);
          assert.ok(on.length <= 1);
          assert.equal(on[0]?.sid ?? null, armed);
        }
        assert.deepEqual(events, expected);
        db.close();
      }),
      { numRuns: 200 },
    );
  });
});
