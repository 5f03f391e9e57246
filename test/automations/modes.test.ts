/**
 * Run modes, loops and limits on a real gateway (no Zigbee), time on the injected clock: single,
 * restart, queued and parallel with their max; a loop of automations stopped at the documented
 * causal depth, one through real devices too; the rate guard; the published limits refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { automationLimits as L } from '../../src/automations/index.ts';
import { settle } from '../helpers/clock.ts';
import { type Home, named, S, startHome, until } from './home.ts';

function scene(home: Home, mode: string, max?: number): string {
  const r = home.engine.save({
    kind: 'automation',
    name: `a ${mode} automation`,
    mode,
    ...(max === undefined ? {} : { max }),
    actions: [
      { type: 'notify', message: 'start' },
      { type: 'delay', seconds: 10 },
      { type: 'notify', message: 'end' },
    ],
  });
  assert.ok(r.ok, JSON.stringify(r));
  return r.definition.id;
}

const messages = (home: Home) => named(home.events, 'automation#notify').map((e) => e.data.payload.message);
const results = (home: Home, id: string) =>
  home.engine
    .traces(id)
    .map((t) => t.result)
    .reverse();

describe('run modes', () => {
  test('single: a trigger while it runs is not run, and its trace says why', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const id = scene(home, 'single');
    assert.ok(home.engine.run(id).ok);
    const second = home.engine.run(id);
    assert.deepEqual(second, { ok: false, message: 'already running (mode single)' });
    await settle(1);
    home.clock.advance(10 * S);
    await settle();
    assert.deepEqual(messages(home), ['start', 'end']);
    assert.deepEqual(results(home, id), ['not_run', 'finished']);
  });

  test('restart: a new trigger stops the run and starts again', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const id = scene(home, 'restart');
    assert.ok(home.engine.run(id).ok);
    await settle(1);
    home.clock.advance(5 * S);
    assert.ok(home.engine.run(id).ok);
    await settle(1);
    home.clock.advance(10 * S);
    await settle();
    assert.deepEqual(messages(home), ['start', 'start', 'end']);
    const [last, first] = home.engine.traces(id);
    assert.equal(first?.result, 'stopped');
    assert.equal(first?.reason, 'stopped: restarted by a new trigger (mode restart)');
    assert.equal(last?.result, 'finished');
  });

  test('queued: runs wait their turn, in order, up to max; one more is not run', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const id = scene(home, 'queued', 2);
    assert.ok(home.engine.run(id).ok);
    assert.ok(home.engine.run(id).ok);
    assert.deepEqual(home.engine.run(id), { ok: false, message: '2 runs waiting or running is its max (mode queued)' });
    await settle(1);
    assert.deepEqual(
      home.engine.active().map((r) => r.status),
      ['waiting', 'queued'],
    );
    await settle(1);
    home.clock.advance(10 * S);
    await settle();
    assert.deepEqual(messages(home), ['start', 'end', 'start']);
    await settle(1);
    home.clock.advance(10 * S);
    await settle();
    assert.deepEqual(messages(home), ['start', 'end', 'start', 'end']);
  });

  test('a queued run survives a restart and runs after the one before it', async (t) => {
    let home = await startHome();
    t.after(() => home.stop());
    const id = scene(home, 'queued', 3);
    assert.ok(home.engine.run(id).ok);
    assert.ok(home.engine.run(id).ok);
    await settle(1);
    home.clock.advance(4 * S);
    await settle(1);
    home = await home.restart(2 * S);
    assert.deepEqual(
      home.engine.active().map((r) => r.status),
      ['waiting', 'queued'],
    );
    await settle(1);
    home.clock.advance(4 * S);
    await settle();
    assert.deepEqual(messages(home), ['end', 'start']);
    await settle(1);
    home.clock.advance(10 * S);
    await settle();
    assert.deepEqual(messages(home), ['end', 'start', 'end']);
    assert.deepEqual(results(home, id), ['finished', 'finished']);
  });

  test('an engine stopped and started again takes its runs back from the store', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const id = scene(home, 'single');
    assert.ok(home.engine.run(id).ok);
    await settle(1);
    home.engine.stop();
    home.clock.advance(4 * S);
    home.engine.start();
    await settle(1);
    home.clock.advance(6 * S);
    await settle(1);
    assert.deepEqual(messages(home), ['start', 'end']);
    assert.deepEqual(results(home, id), ['finished']);
  });

  test('parallel: runs side by side up to max', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const id = scene(home, 'parallel', 2);
    assert.ok(home.engine.run(id).ok);
    await settle(1);
    home.clock.advance(3 * S);
    assert.ok(home.engine.run(id).ok);
    assert.equal(home.engine.run(id).ok, false);
    await settle(1);
    home.clock.advance(10 * S);
    await settle();
    assert.deepEqual(messages(home), ['start', 'start', 'end', 'end']);
  });

  test('disabling an automation stops its runs; a disabled one is not triggered', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const id = scene(home, 'single');
    assert.ok(home.engine.run(id).ok);
    await settle(1);
    assert.deepEqual(home.engine.setEnabled(id, false), { ok: true });
    await settle(1);
    home.clock.advance(10 * S);
    await settle();
    assert.deepEqual(messages(home), ['start']);
    assert.equal(home.engine.traces(id)[0]?.reason, 'stopped: the automation was disabled');
  });
});

describe('loops', () => {
  test('two scenes running each other are stopped at the causal depth, with a clear line in the trace and a notification', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const a = home.engine.save({ kind: 'scene', name: 'Ping', actions: [{ type: 'notify', message: 'ping' }] });
    assert.ok(a.ok);
    const b = home.engine.save({
      kind: 'scene',
      name: 'Pong',
      actions: [
        { type: 'notify', message: 'pong' },
        { type: 'scene', scene: a.definition.id },
      ],
    });
    assert.ok(b.ok);
    const again = home.engine.save({
      id: a.definition.id,
      kind: 'scene',
      name: 'Ping',
      actions: [
        { type: 'notify', message: 'ping' },
        { type: 'scene', scene: b.definition.id },
      ],
    });
    assert.ok(again.ok, JSON.stringify(again));
    assert.ok(home.engine.run(a.definition.id).ok);
    await settle();
    // Runs 1..8 of the chain ran; the 9th was refused.
    assert.equal(messages(home).filter((m) => m === 'ping' || m === 'pong').length, L.causalDepth);
    const stopped = home.engine.traces(a.definition.id, 'not_run')[0];
    assert.match(
      stopped?.reason ?? '',
      /^loop stopped: this run would be 9 runs deep .*Ping -> Pong -> Ping.*the limit is 8$/,
    );
    assert.equal(stopped?.trigger.caused_by?.depth, 8);
    assert.ok(messages(home).some((m) => m.startsWith('loop stopped')));
  });

  test('two automations switching a light back and forth through the device are stopped', async (t) => {
    const home = await startHome({ zigbee: 3 });
    t.after(() => home.stop());
    const light = home.device('LED1836G9').serial;
    const flip = (name: string, from: 'on' | 'off', to: 'on' | 'off') =>
      home.engine.save({
        kind: 'automation',
        name,
        triggers: [{ type: 'state', device: light, capability: 'power', to: from }],
        actions: [{ type: 'device', device: light, state: { power: { powerState: to } } }],
      });
    assert.ok(flip('Off when on', 'on', 'off').ok);
    assert.ok(flip('On when off', 'off', 'on').ok);
    await until(
      async () => (await home.g.gateway.devices.update(light, { state: { power: { powerState: 'on' } } })).ok,
    );
    await until(() => messages(home).some((m) => m.startsWith('loop stopped')));
    await settle(300);
    // The person's command, then 8 runs of the chain; nothing after the stop.
    assert.equal(named(home.events, 'automation#runStarted').length, L.causalDepth);
  });

  test('one automation started more often than the rate allows is refused until the window passes', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const r = home.engine.save({ kind: 'scene', name: 'Busy', actions: [{ type: 'notify', message: 'x' }] });
    assert.ok(r.ok);
    const id = r.definition.id;
    for (let i = 0; i < L.rateRuns; i++) assert.ok(home.engine.run(id).ok, `run ${i}`);
    const refused = home.engine.run(id);
    assert.ok(!refused.ok);
    assert.match(refused.message, /^loop stopped: 30 runs within 60 s/);
    await settle(1);
    home.clock.advance(L.rateWindowSeconds * S);
    assert.ok(home.engine.run(id).ok);
  });
});

describe('a damaged store', () => {
  test('a definition or a run journal row that cannot be read is skipped with a reason; the engine starts and the others run', async (t) => {
    let home = await startHome();
    t.after(() => home.stop());
    const good = scene(home, 'single');
    const bad = scene(home, 'single');
    assert.ok(home.engine.run(good).ok);
    await settle(1);
    const db = home.g.gateway.db;
    db.prepare('UPDATE automations SET definition = ? WHERE id = ?').run('{"kind":', bad);
    db.prepare(
      `INSERT INTO automation_runs (id, automation_id, version, status, step, deadline, context, trace, queued_at)
       VALUES ('x', ?, 1, 'waiting', 1, 0, 'null', 'not json', 0)`,
    ).run(good);
    home = await home.restart();
    assert.deepEqual(home.engine.get(bad)?.broken, ['definition: the stored definition cannot be read']);
    assert.deepEqual(home.engine.run(bad), {
      ok: false,
      message: 'it is broken: definition: the stored definition cannot be read',
    });
    assert.deepEqual(
      home.engine.active().map((r) => r.status),
      ['waiting'],
      'the readable run resumed, the other dropped',
    );
    await settle(1);
    home.clock.advance(10 * S);
    await settle(1);
    assert.deepEqual(messages(home), ['end']);
    assert.equal((home.g.gateway.db.prepare('SELECT count(*) AS n FROM automation_runs').get() as { n: number }).n, 0);
  });
});

describe('traces', () => {
  test('the last 10 runs are kept, and a failed run is kept apart: chatty runs do not push it out', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const off = home.engine.save({
      kind: 'scene',
      name: 'Off',
      enabled: false,
      actions: [{ type: 'notify', message: 'x' }],
    });
    assert.ok(off.ok);
    const chatty = home.engine.save({
      kind: 'scene',
      name: 'Chatty',
      actions: [{ type: 'scene', scene: off.definition.id }],
    });
    assert.ok(chatty.ok);
    const id = chatty.definition.id;
    // It fails once (its scene is disabled), then, changed, runs 25 times.
    assert.ok(home.engine.run(id).ok);
    await settle(1);
    assert.ok(home.engine.save({ kind: 'scene', id, name: 'Chatty', actions: [{ type: 'notify', message: 'hi' }] }).ok);
    for (let i = 0; i < 25; i++) assert.ok(home.engine.run(id).ok);
    await settle(1);
    assert.equal(home.engine.traces(id, 'run').length, L.traces);
    const [failed] = home.engine.traces(id, 'failed');
    assert.equal(failed?.result, 'failed');
    assert.equal(failed?.steps[0]?.detail, 'scene Off is disabled');
  });
});

describe('limits', () => {
  test(`${L.runsInAll} runs at once in all: one more is not run, and the trace says why`, async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const ids = Array.from({ length: L.runsInAll / L.maxRuns }, (_, i) => {
      const r = home.engine.save({
        kind: 'automation',
        name: `Wide ${i}`,
        mode: 'parallel',
        actions: [{ type: 'delay', seconds: 60 }],
      });
      assert.ok(r.ok);
      return r.definition.id;
    });
    for (const id of ids) for (let i = 0; i < L.maxRuns; i++) assert.ok(home.engine.run(id).ok);
    const extra = home.engine.save({ kind: 'scene', name: 'One more', actions: [{ type: 'notify', message: 'x' }] });
    assert.ok(extra.ok);
    assert.deepEqual(home.engine.run(extra.definition.id), {
      ok: false,
      message: `${L.runsInAll} runs at once in all is the gateway's limit`,
    });
    await settle(1);
    home.clock.advance(60 * S);
    await settle(1);
    assert.ok(home.engine.run(extra.definition.id).ok, 'room again once they end');
  });

  test('actions, triggers, conditions and their nesting past the published limits are refused with the limit', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const notify = { type: 'notify', message: 'x' };
    const many = (n: number, x: unknown) => Array.from({ length: n }, () => x);
    const weekday = { type: 'weekday', weekdays: ['mon'] };
    let nested: unknown = weekday;
    for (let i = 0; i <= L.conditionDepth; i++) nested = { type: 'not', conditions: [nested] };
    const cases: [unknown, string][] = [
      [
        { kind: 'scene', name: 's', actions: many(L.actions + 1, notify) },
        `actions: ${L.actions + 1} items is above max ${L.actions}`,
      ],
      [
        { kind: 'automation', name: 'a', triggers: many(L.triggers + 1, { type: 'started' }), actions: [notify] },
        `triggers: ${L.triggers + 1} items is above max ${L.triggers}`,
      ],
      [
        {
          kind: 'automation',
          name: 'a',
          conditions: many(26, { type: 'any', conditions: [weekday] }),
          actions: [notify],
        },
        `conditions: 52 conditions in all is above max ${L.conditions}`,
      ],
      [
        { kind: 'automation', name: 'a', conditions: [nested], actions: [notify] },
        'conditions.0.conditions.0.conditions.0.conditions.0.conditions.0.type: "not" is not one of time, weekday, sun, state, online, security',
      ],
      [
        { kind: 'automation', name: 'a', mode: 'parallel', max: L.maxRuns + 1, actions: [notify] },
        `max: ${L.maxRuns + 1} is above max ${L.maxRuns}`,
      ],
      [
        { kind: 'scene', name: 'x'.repeat(L.nameChars + 1), actions: [notify] },
        `name: longer than ${L.nameChars} characters`,
      ],
      [
        { kind: 'scene', name: 's', actions: [{ type: 'delay', seconds: L.durationSeconds + 1 }] },
        `actions.0.seconds: ${L.durationSeconds + 1} is above max ${L.durationSeconds}`,
      ],
    ];
    for (const [def, message] of cases) {
      const r = home.engine.save(def);
      assert.ok(!r.ok);
      assert.ok(r.errors.includes(message), `${message} not in ${JSON.stringify(r.errors)}`);
    }
    assert.equal(home.engine.list().length, 0);
  });

  test(`the ${L.definitions + 1}th scene is refused`, async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    for (let i = 0; i < L.definitions; i++)
      assert.ok(home.engine.save({ kind: 'scene', name: `s${i}`, actions: [{ type: 'notify', message: 'x' }] }).ok);
    const r = home.engine.save({ kind: 'scene', name: 'one more', actions: [{ type: 'notify', message: 'x' }] });
    assert.deepEqual(r, {
      ok: false,
      errors: [`definition: ${L.definitions} scenes and automations is the most the gateway keeps`],
    });
  });
});
