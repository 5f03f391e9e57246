/**
 * The other triggers, conditions and actions on a real gateway with the simulated Zigbee network:
 * speaking through the built-in TTS engine, a sound, enabling another automation and notifying;
 * the alarm raised by a smoke sensor and its end; the gateway's start; conditions on device
 * values, online states and security modes; a device offline for ten minutes; a scene's device
 * command in the activity log, by the automation that sent it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DefinitionInput } from '../../src/automations/index.ts';
import { settle } from '../helpers/clock.ts';
import { recordingLog } from '../helpers/log.ts';
import { type Home, MIN, named, startHome, until } from './home.ts';

function save(home: Home, def: DefinitionInput): string {
  const r = home.engine.save(def);
  assert.ok(r.ok, JSON.stringify(r));
  return r.definition.id;
}

const notes = (home: Home) => named(home.events, 'automation#notify').map((e) => e.data.payload.message);

describe('actions', () => {
  test('a scene plays a sound, speaks through the built-in TTS engine (which cuts the sound, as speech does), disables an automation and notifies', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const other = save(home, {
      kind: 'automation',
      name: 'Other',
      triggers: [{ type: 'started' }],
      actions: [{ type: 'notify', message: 'x' }],
    });
    const id = save(home, {
      kind: 'scene',
      name: 'Washing done',
      actions: [
        { type: 'sound', sound: 'alert3', volume: 60 },
        { type: 'speak', text: 'The washing is done.' },
        { type: 'automation', automation: other, enabled: false },
        { type: 'notify', message: 'The washing is done' },
      ],
    });
    assert.ok(home.engine.run(id).ok);
    const trace = await until(() => home.engine.traces(id)[0]);
    assert.equal(trace.result, 'finished', JSON.stringify(trace));
    assert.deepEqual(
      home.sink.plays.filter((p) => p.layer !== 'beep').map((p) => [p.layer, p.name]),
      [
        ['sound', 'alert3'],
        ['speech', 'tts:espeak-ng'],
      ],
    );
    assert.equal(home.engine.get(other)?.enabled, false);
    assert.deepEqual(notes(home), ['The washing is done']);
    assert.deepEqual(
      named(home.events, 'automation#changed').map((e) => [e.data.payload.automation_id, e.data.payload.change]),
      [
        [other, 'saved'],
        [id, 'saved'],
        [other, 'disabled'],
      ],
    );
  });
});

describe('triggers', () => {
  test('a device command and an arming of a scene are in the activity log as done by the scene, by its name', async (t) => {
    const rec = recordingLog('info');
    const home = await startHome({ zigbee: 12, log: rec.log });
    t.after(() => home.stop());
    const light = home.device('LED1836G9').serial;
    const name = home.g.gateway.devices.registry.get(light)?.name;
    const id = save(home, {
      kind: 'scene',
      name: 'Reading light',
      actions: [
        { type: 'device', device: light, state: { power: { powerState: 'on' } } },
        { type: 'security', action: 'arm', sid: 1 },
      ],
    });
    assert.ok(home.engine.run(id).ok);
    const lines = () => rec.lines.map((l) => JSON.parse(l).msg as string);
    await until(() => lines().some((m) => m.startsWith('armed: ')));
    assert.ok(lines().includes(`the automation Reading light changed ${name} (state): done`), lines().join('\n'));
    const mode = home.g.gateway.security.list().find((m) => m.sid === 1)?.name;
    assert.ok(lines().includes(`armed: ${mode}, by the automation Reading light`), lines().join('\n'));
  });

  test('the alarm raised by a smoke sensor runs one automation, and its end another', async (t) => {
    const home = await startHome({ zigbee: 12 });
    t.after(() => home.stop());
    const smoke = home.device('JTYJ-GD-01LM/BW');
    save(home, {
      kind: 'automation',
      name: 'Raised',
      triggers: [{ type: 'alarm', state: 'raised' }],
      actions: [{ type: 'notify', message: 'raised' }],
    });
    save(home, {
      kind: 'automation',
      name: 'Ended',
      triggers: [{ type: 'alarm', state: 'cancelled' }],
      actions: [{ type: 'notify', message: 'ended' }],
    });
    home.net?.sim().report(smoke.ieee, { smoke: true });
    await until(() => notes(home).length === 1);
    home.g.gateway.alarm.cancel();
    await until(() => notes(home).length === 2);
    assert.deepEqual(notes(home), ['raised', 'ended']);
  });

  test('the gateway started trigger runs once at each start, and not when saved', async (t) => {
    let home = await startHome();
    t.after(() => home.stop());
    const id = save(home, {
      kind: 'automation',
      name: 'Boot',
      triggers: [{ type: 'started' }],
      actions: [{ type: 'notify', message: 'up' }],
    });
    await settle(1);
    assert.equal(home.engine.traces(id).length, 0);
    home = await home.restart();
    home = await home.restart();
    await until(() => home.engine.traces(id).length === 2);
    assert.deepEqual(
      home.engine.traces(id).map((x) => x.trigger.description),
      ['the gateway started', 'the gateway started'],
    );
  });

  test('a device offline for ten minutes sets off its trigger; one back sooner does not', async (t) => {
    const home = await startHome({ zigbee: 12 });
    t.after(() => home.stop());
    const light = home.device('LED1836G9');
    const id = save(home, {
      kind: 'automation',
      name: 'Light lost',
      triggers: [{ type: 'online', device: light.serial, online: false, for_seconds: 600 }],
      actions: [{ type: 'notify', message: 'the light is gone' }],
    });
    const online = (v: boolean) => until(() => home.g.gateway.devices.registry.get(light.serial)?.online === v);
    home.net?.sim().setOnline(light.ieee, false);
    await online(false);
    home.clock.advance(5 * MIN);
    home.net?.sim().setOnline(light.ieee, true);
    await online(true);
    home.clock.advance(10 * MIN);
    await settle(50);
    assert.equal(home.engine.traces(id).length, 0);
    home.net?.sim().setOnline(light.ieee, false);
    await online(false);
    home.clock.advance(10 * MIN);
    await until(() => notes(home).length === 1);
    assert.match(home.engine.traces(id)[0]?.trigger.description ?? '', /went offline, held for 600 s/);
  });
});

describe('conditions', () => {
  test('a device value, an online state and the security mode decide whether a run starts, each result in the trace', async (t) => {
    const home = await startHome({ zigbee: 12 });
    t.after(() => home.stop());
    const temp = home.device('WSDCGQ11LM');
    const light = home.device('LED1836G9');
    home.net?.sim().report(temp.ieee, { temperature: 26.5 });
    await until(
      () => (home.g.gateway.devices.registry.get(temp.serial)?.state.temperature as any)?.temperature === 26.5,
    );
    const id = save(home, {
      kind: 'automation',
      name: 'Cool down',
      conditions: [
        { type: 'state', device: temp.serial, capability: 'temperature', above: 25, below: 40 },
        { type: 'online', device: light.serial, online: true },
        {
          type: 'any',
          conditions: [
            { type: 'security', state: 'disarmed' },
            { type: 'weekday', weekdays: ['sun'] },
          ],
        },
      ],
      actions: [{ type: 'notify', message: 'cooling' }],
    });
    assert.ok(home.engine.run(id, { conditions: true }).ok);
    await until(() => notes(home).length === 1);
    assert.ok(home.g.gateway.alarm.arm(2).ok);
    // 2025-01-06 is a Monday: the weekday does not save it.
    const refused = home.engine.run(id, { conditions: true });
    assert.deepEqual(refused, { ok: false, message: 'condition conditions.2 (any) did not hold' });
    const trace = home.engine.traces(id, 'not_run')[0];
    assert.deepEqual(
      trace?.conditions.map((c) => `${c.path} ${c.type} ${c.result}`),
      [
        'conditions.0 state true',
        'conditions.1 online true',
        'conditions.2 any false',
        'conditions.2.conditions.0 security false',
        'conditions.2.conditions.1 weekday false',
      ],
    );
    assert.equal(
      trace?.conditions[0]?.detail,
      `${home.g.gateway.devices.registry.get(temp.serial)?.name} temperature is 26.5`,
    );
    assert.equal(trace?.conditions[3]?.detail, 'away_mode is armed');
  });
});
