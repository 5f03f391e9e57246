/**
 * The API of scenes and automations, as clients use it: the Open API with an app's token (the
 * envelope, both versions) and the console's API with a session, on a gateway with the simulated
 * Zigbee network and its clock in the test's hand: create, read, save again (a definition read
 * sent back changed), enable, disable, run (the trace names who ran it), stop, traces, next
 * firings across a DST change, runs under way, remove; the events of runs on both streams.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { settle } from '../helpers/clock.ts';
import { call, openStream, rest } from '../helpers/foundation.ts';
import { openEvents } from '../helpers/sse.ts';
import { clients, create, OPEN } from './api-client.ts';
import { MIN, S, startHome, until } from './home.ts';

const LIGHT = 'LED1836G9';
const AUTOMATION_EVENTS = [
  'automation#runStarted',
  'automation#runFinished',
  'automation#notify',
  'automation#changed',
];

describe('the API of scenes and automations', () => {
  test('creates, reads, saves anew what it read, enables, disables and removes, on the Open API and in the console', async (t) => {
    const home = await startHome({ zigbee: 12 });
    t.after(() => home.stop());
    const c = await clients(home);
    const light = home.device(LIGHT).serial;
    const def = {
      kind: 'automation',
      name: 'Morning light',
      triggers: [{ type: 'time', at: '07:00', weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'] }],
      actions: [{ type: 'device', device: light, state: { power: { powerState: 'on' } } }],
    };
    const created = await c.open('POST', '', def);
    assert.equal(created.error, 0, JSON.stringify(created));
    const saved = created.data.definition;
    assert.match(saved.id, /^[0-9a-f]{12}$/);
    assert.deepEqual(
      [saved.version, saved.enabled, saved.mode, saved.broken, 'max' in saved],
      [1, true, 'single', null, false],
    );
    // Monday 6 January 2025, 13:00 in Berlin: next Tuesday at 07:00 (06:00 UTC).
    assert.deepEqual(saved.status, { running: 0, last_run: null, next_firing: '2025-01-07T06:00:00.000Z' });

    const list = await c.open('GET', '', undefined, 'v1');
    assert.deepEqual(
      list.data.definitions.map((d: { id: string }) => d.id),
      [saved.id],
    );
    assert.deepEqual((await c.open('GET', '?kind=scene')).data.definitions, []);

    // What GET gives can be sent back changed: the fields the gateway adds are ignored.
    const read = (await c.open('GET', `/${saved.id}`)).data.definition;
    const again = await c.open('PUT', `/${saved.id}`, { ...read, name: 'Weekday morning light' });
    assert.equal(again.error, 0, JSON.stringify(again));
    assert.deepEqual([again.data.definition.name, again.data.definition.version], ['Weekday morning light', 2]);

    const off = await c.open('POST', `/${saved.id}/disable`);
    assert.deepEqual([off.data.definition.enabled, off.data.definition.status.next_firing], [false, null]);
    assert.equal((await c.open('POST', `/${saved.id}/enable`)).data.definition.enabled, true);

    // The console's API serves the same routes behind a session, with HTTP statuses.
    const mine = await c.console.call('GET', `/automations/${saved.id}`);
    assert.equal(mine.status, 200);
    assert.equal(mine.body.definition.name, 'Weekday morning light');
    const scene = await c.console.call('POST', '/automations', {
      kind: 'scene',
      name: 'Lights out',
      actions: [{ type: 'device', device: light, state: { power: { powerState: 'off' } } }],
    });
    assert.equal(scene.status, 200, JSON.stringify(scene.body));
    assert.equal(scene.body.definition.mode, 'restart');
    assert.equal((await c.open('GET')).data.definitions.length, 2);

    assert.deepEqual(await c.open('DELETE', `/${saved.id}`), { error: 0, data: {}, message: 'success' });
    assert.deepEqual(await c.open('GET', `/${saved.id}`), {
      error: 404,
      data: {},
      message: `id: no scene or automation has id "${saved.id}"`,
    });
    const gone = await c.console.call('DELETE', `/automations/${saved.id}`);
    assert.deepEqual([gone.status, gone.body], [404, { error: `id: no scene or automation has id "${saved.id}"` }]);

    // Without a token: the gateway's 401 envelope; without a session: 401.
    const anonymous = await call(home.g.url, 'GET', rest('v2', OPEN));
    assert.deepEqual(anonymous.json, { error: 401, data: {}, message: 'headers.Authorization is invalid' });
    const stranger = await call(home.g.url, 'GET', '/console/api/automations');
    assert.equal(stranger.status, 401);
  });

  test('runs a scene by hand: the runs under way, its stop, and the traces naming who ran and stopped it', async (t) => {
    const home = await startHome({ zigbee: 12 });
    t.after(() => home.stop());
    const c = await clients(home);
    const light = home.device(LIGHT).serial;
    const id = await create(c, {
      kind: 'scene',
      name: 'Light for a minute',
      actions: [
        { type: 'device', device: light, state: { power: { powerState: 'on' } } },
        { type: 'delay', seconds: 60 },
        { type: 'device', device: light, state: { power: { powerState: 'off' } } },
      ],
    });
    const run = await c.open('POST', `/${id}/run`, {});
    assert.equal(run.error, 0, JSON.stringify(run));
    const runId = run.data.run_id;
    const waiting = async () => {
      const r = (await c.open('GET', '/runs')).data.runs;
      return r.length === 1 && r[0].status === 'waiting' && r;
    };
    const [under] = await until(waiting);
    assert.deepEqual(under, {
      run_id: runId,
      automation_id: id,
      name: 'Light for a minute',
      status: 'waiting',
      step: 1,
      deadline: new Date(home.clock.now() + MIN).toISOString(),
    });
    home.clock.advance(MIN);
    await until(async () => (await c.open('GET', `/${id}/traces`)).data.traces.length === 1);
    const [trace] = (await c.open('GET', `/${id}/traces?bucket=run`)).data.traces;
    assert.equal(trace.trigger.description, 'run by Kitchen tablet');
    assert.deepEqual(
      trace.steps.map((s: { type: string; outcome: string }) => `${s.type}:${s.outcome}`),
      ['device:done', 'delay:waiting', 'delay:done', 'device:done'],
    );
    const listed = (await c.open('GET', `/${id}`)).data.definition.status;
    assert.deepEqual([listed.running, listed.last_run.run_id, listed.last_run.result], [0, runId, 'finished']);

    // Run from the console, stopped by the app while it waits.
    const again = await c.console.call('POST', `/automations/${id}/run`, {});
    assert.equal(again.status, 200);
    await until(waiting);
    assert.deepEqual((await c.open('POST', `/${id}/stop`)).data, { stopped: 1 });
    const [stopped] = (await c.open('GET', `/${id}/traces`)).data.traces;
    assert.match(stopped.trigger.description, /^run by the console \(session [0-9a-f]+\)$/);
    assert.deepEqual([stopped.result, stopped.reason], ['stopped', 'stopped by Kitchen tablet']);
    assert.deepEqual((await c.open('GET', '/runs')).data.runs, []);
  });

  test('a run refused: a broken scene, conditions that do not hold, an automation already running (409)', async (t) => {
    const home = await startHome({ zigbee: 12 });
    t.after(() => home.stop());
    const c = await clients(home);
    const light = home.device(LIGHT).serial;
    const id = await create(c, {
      kind: 'automation',
      name: 'Only at night',
      triggers: [{ type: 'time', at: '22:00' }],
      conditions: [{ type: 'time', after: '21:00', before: '05:00' }],
      actions: [{ type: 'delay', seconds: 10 }],
    });
    const refused = await c.open('POST', `/${id}/run`, { conditions: true });
    assert.equal(refused.error, 409);
    assert.equal(refused.message, 'condition conditions.0 (time) did not hold');
    assert.equal((await c.open('POST', `/${id}/run`, {})).error, 0, 'by hand, its conditions are skipped');
    const busy = await c.console.call('POST', `/automations/${id}/run`, {});
    assert.deepEqual([busy.status, busy.body.error], [409, 'already running (mode single)']);
    const notRun = (await c.open('GET', `/${id}/traces?bucket=not_run`)).data.traces;
    assert.deepEqual(
      notRun.map((x: { reason: string }) => x.reason),
      ['already running (mode single)', 'condition conditions.0 (time) did not hold'],
    );

    const scene = await create(c, {
      kind: 'scene',
      name: 'Light',
      actions: [{ type: 'device', device: light, state: { power: { powerState: 'on' } } }],
    });
    assert.ok((await home.g.gateway.devices.remove(light)).ok);
    await until(async () => (await c.open('GET', `/${scene}`)).data.definition.broken);
    const broken = await c.open('POST', `/${scene}/run`, {});
    assert.equal(broken.error, 409);
    assert.equal(broken.message, `it is broken: actions.0.device: no device has serial_number "${light}"`);
    assert.equal((await c.open('POST', '/0123456789ab/run', {})).error, 404);
  });

  test('next firings: UTC and the wall time of the zone, a time that does not exist on the day clocks go forward', async (t) => {
    // Friday 28 March 2025, noon in Berlin: clocks go forward on Sunday at 02:00.
    const home = await startHome({ at: Date.UTC(2025, 2, 28, 11) });
    t.after(() => home.stop());
    const c = await clients(home);
    const id = await create(c, {
      kind: 'automation',
      name: 'Half past two',
      triggers: [
        { type: 'time', at: '02:30' },
        { type: 'sun', event: 'sunset' },
      ],
      actions: [{ type: 'notify', message: 'now' }],
    });
    const { firings } = (await c.open('GET', `/${id}/next?count=3`)).data;
    const times = firings.filter((f: { trigger: number }) => f.trigger === 0);
    assert.deepEqual(times, [
      { trigger: 0, at: '2025-03-29T01:30:00.000Z', local: '2025-03-29T02:30:00+01:00' },
      { trigger: 0, at: '2025-03-30T01:00:00.000Z', local: '2025-03-30T03:00:00+02:00', resolution: 'gap' },
      { trigger: 0, at: '2025-03-31T00:30:00.000Z', local: '2025-03-31T02:30:00+02:00' },
    ]);
    const sunsets = firings.filter((f: { trigger: number }) => f.trigger === 1);
    assert.equal(sunsets.length, 3);
    // Sunset in Berlin: about 18:30 on the 29th (winter time), about 19:30 on the 30th (summer time).
    assert.match(sunsets[1].local, /^2025-03-29T18:3\d:\d\d\+01:00$/);
    assert.match(sunsets[2].local, /^2025-03-30T19:3\d:\d\d\+02:00$/);
    assert.deepEqual(
      firings.map((f: { at: string }) => f.at),
      [...firings.map((f: { at: string }) => f.at)].sort(),
      'soonest first',
    );
    const bad = await c.open('GET', `/${id}/next?count=51`);
    assert.equal(bad.error, 400);
    assert.equal(bad.message, 'count: "51" is not a whole number from 1 to 50');
  });

  test('runs started and finished and notifications reach the Open API stream (v1, v2) and the console stream', async (t) => {
    const home = await startHome({ zigbee: 12 });
    t.after(() => home.stop());
    const c = await clients(home);
    const v2 = await openEvents(home.g.url, c.token, 'v2', AUTOMATION_EVENTS);
    t.after(() => v2.close());
    const v1 = await openEvents(home.g.url, c.token, 'v1', AUTOMATION_EVENTS);
    t.after(() => v1.close());
    const mine = await openStream(home.g.url, '/console/api/events', {
      cookie: `opencube_session=${c.console.cookie}`,
    });
    t.after(() => mine.close());
    const id = await create(c, {
      kind: 'scene',
      name: 'Tell me',
      actions: [
        { type: 'notify', message: 'The washing machine is done' },
        { type: 'delay', seconds: 5 },
      ],
    });
    const runId = (await c.open('POST', `/${id}/run`, {})).data.run_id;
    await until(() => home.engine.active().length === 1 && home.engine.active()[0]?.status === 'waiting');
    home.clock.advance(5 * S);
    const finished = await v2.waitFor((e) => e.type === 'runFinished');
    assert.deepEqual(finished.data, {
      payload: { automation_id: id, run_id: runId, name: 'Tell me', result: 'finished', reason: null },
    });
    assert.equal(finished.name, 'automation#v2#runFinished');
    const started = await v2.waitFor((e) => e.type === 'runStarted');
    assert.deepEqual(started.data.payload, {
      automation_id: id,
      run_id: runId,
      name: 'Tell me',
      trigger: 'run by Kitchen tablet',
    });
    const told = await v1.waitFor((e) => e.type === 'notify');
    assert.deepEqual([told.name, told.data.payload.message], ['automation#v1#notify', 'The washing machine is done']);
    const saved = await v1.waitFor((e) => e.type === 'changed');
    assert.deepEqual(saved.data.payload, { automation_id: id, change: 'saved', broken: null });
    const shown = await mine.waitFor((fs) => fs.some((f) => f.event === 'automation#runFinished'));
    assert.ok(shown.some((f) => f.event === 'automation#notify'));
    assert.ok(shown.some((f) => f.event === 'automation#runStarted'));
    await settle(50);
  });
});
