/**
 * What clients send to the API of scenes and automations, checked whole: a table of bad
 * definitions, each refused with every problem as `path: rule` and nothing saved, on the Open API
 * (the envelope) and in the console (400 and `{error}`); random bodies, ids and queries (fast-check)
 * that always get an answer in the surface's own shape, never a failure of the gateway, and never
 * a definition half saved; and the editor's choices, every one of which a save takes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { deviceLayout } from '../../src/http/console/layout.ts';
import type { Control } from '../../src/http/console/views.ts';
import { rest } from '../helpers/foundation.ts';
import { mutate } from '../helpers/fuzz.ts';
import { clients, create, OPEN } from './api-client.ts';
import { type Home, startHome } from './home.ts';

const LIGHT = 'LED1836G9';
const MOTION = 'RTCGQ11LM';

/** The motion automation, valid on this home. */
function valid(home: Home) {
  return {
    kind: 'automation',
    name: 'Hall light on motion',
    mode: 'restart',
    triggers: [{ type: 'state', device: home.device(MOTION).serial, capability: 'motion', to: true, for_seconds: 5 }],
    conditions: [
      { type: 'any', conditions: [{ type: 'sun', after: { event: 'sunset', offset_minutes: -30 } }] },
      { type: 'time', after: '22:00', before: '06:00' },
    ],
    actions: [
      { type: 'device', device: home.device(LIGHT).serial, state: { brightness: { brightness: 40 } } },
      { type: 'delay', seconds: 120 },
      { type: 'notify', message: 'done' },
    ],
  };
}

describe('bad definitions', () => {
  test('each is refused whole, every problem as path: rule, on the Open API and in the console; nothing is saved', async (t) => {
    const home = await startHome({ zigbee: 12 });
    t.after(() => home.stop());
    const c = await clients(home);
    const light = home.device(LIGHT).serial;
    const motion = home.device(MOTION).serial;
    const ok = valid(home);
    const table: [string, Record<string, unknown>, string[]][] = [
      [
        'an unknown device',
        { ...ok, triggers: [{ type: 'state', device: 'feedfacefeedface', capability: 'motion', to: true }] },
        ['triggers.0.device: no device has serial_number "feedfacefeedface"'],
      ],
      [
        'a capability the device lacks',
        { ...ok, triggers: [{ type: 'state', device: motion, capability: 'brightness', above: 50 }] },
        ['triggers.0.capability: the device has no capability brightness'],
      ],
      [
        'a value outside the range of the device',
        { ...ok, actions: [{ type: 'device', device: light, state: { brightness: { brightness: 101 } } }] },
        ['actions.0.state.brightness.brightness: 101 is above max 100'],
      ],
      [
        'a value the field does not take',
        { ...ok, actions: [{ type: 'device', device: light, state: { power: { powerState: 'dim' } } }] },
        ['actions.0.state.power.powerState: "dim" is not one of on, off, toggle'],
      ],
      [
        'a malformed time of day',
        { ...ok, triggers: [{ type: 'time', at: '25:00' }] },
        ['triggers.0.at: "25:00" is not a time of day HH:MM or HH:MM:SS (24 h)'],
      ],
      [
        'a field of no trigger',
        { ...ok, triggers: [{ type: 'time', at: '07:00', weekday: 'mon' }] },
        ['triggers.0.weekday: unknown field'],
      ],
      [
        'a security mode that does not exist',
        { ...ok, actions: [{ type: 'security', action: 'arm', sid: 9 }] },
        ['actions.0.sid: no security mode has sid 9'],
      ],
      [
        'a scene with triggers',
        { kind: 'scene', name: 'Scene', triggers: [{ type: 'started' }], actions: ok.actions },
        ['triggers: a scene has no triggers (it is run by hand or by an action)'],
      ],
      [
        'no actions, and a name too long',
        { ...ok, name: 'x'.repeat(101), actions: [] },
        ['name: longer than 100 characters', 'actions: needs at least 1 item'],
      ],
      [
        'three problems at once',
        {
          ...ok,
          triggers: [{ type: 'state', device: light, capability: 'brightness', above: 150 }],
          conditions: [{ type: 'time', after: '22:00', before: '22:00' }],
          actions: [{ type: 'sound', sound: 'doorbell9' }],
        },
        [
          'triggers.0.above: 150 is above max 100',
          'conditions.0.before: the same as after: the window would be empty (or the whole day)',
          'actions.0.sound: "doorbell9" is not a sound (alert1..5, doorbell1..5, alarm1..5)',
        ],
      ],
      [
        'an id in a new definition',
        { ...ok, id: 'abcdef012345' },
        [
          `id: a new scene or automation gets its id from the gateway; to change "abcdef012345", PUT it at /${OPEN}/{id}`,
        ],
      ],
    ];
    for (const [what, body, messages] of table) {
      const r = await c.open('POST', '', body);
      assert.deepEqual([r.error, r.message], [400, messages.join('; ')], what);
    }
    // The console's words are the same, with HTTP 400; the id's advice names its own path.
    const mine = await c.console.call('POST', '/automations', table[2]?.[1]);
    assert.deepEqual([mine.status, mine.body], [400, { error: table[2]?.[2][0] }]);
    assert.deepEqual((await c.open('GET')).data.definitions, [], 'nothing was saved');

    // A save of an existing one: the path's id wins; another id in the body is refused.
    const id = await create(c, ok);
    const other = await c.open('PUT', `/${id}`, { ...ok, id: '000000000000' });
    assert.deepEqual([other.error, other.message], [400, `id: "000000000000" differs from the path's ${id}`]);
    const kind = await c.open('PUT', `/${id}`, { ...ok, kind: 'scene', triggers: [], conditions: [] });
    assert.deepEqual([kind.error, kind.message], [400, `kind: ${id} is a automation; it cannot become a scene`]);
    const unknown = await c.open('PUT', '/000000000000', ok);
    assert.deepEqual([unknown.error, unknown.message], [404, 'id: no scene or automation has id "000000000000"']);
    assert.equal((await c.open('GET', `/${id}`)).data.definition.version, 1, 'the refused saves changed nothing');
  });

  test('random bodies, ids and queries always get an answer in the shape of the surface, never half a definition (300 runs)', async (t) => {
    const errors: unknown[] = [];
    const log = pino({ level: 'error' }, { write: (line: string) => errors.push(JSON.parse(line)) });
    const home = await startHome({ zigbee: 12, log });
    t.after(() => home.stop());
    const c = await clients(home);
    const base = valid(home);
    const id = await create(c, base);
    const app = home.g.gateway.app;
    const openHeaders = { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' };
    const consoleHeaders = {
      cookie: `opencube_session=${c.console.cookie}`,
      origin: 'http://localhost',
      host: 'localhost',
      'content-type': 'application/json',
    };
    const value = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom('25:00', -1, 1e9, '', null, [], {}, 'sunset', 'on', home.device(LIGHT).serial),
    );
    const body = fc.oneof(
      fc.tuple(fc.array(fc.nat(), { maxLength: 6 }), value).map(([path, v]) => JSON.stringify(mutate(base, path, v))),
      fc.json(),
      fc.constantFrom('{', '', '[]', 'null'),
    );
    const target = fc.oneof(
      fc.constantFrom(id, '000000000000', 'runs', 'choices', '..', '%00', 'a'.repeat(65)),
      fc.string({ maxLength: 12 }),
    );
    const route = fc.constantFrom(
      ['POST', ''],
      ['PUT', '/:id'],
      ['GET', '/:id'],
      ['POST', '/:id/run'],
      ['POST', '/:id/enable'],
      ['GET', '/:id/traces?bucket=:q'],
      ['GET', '/:id/next?count=:q'],
      ['GET', '?kind=:q'],
    );
    const count = () => home.engine?.list().length ?? 0;
    await fc.assert(
      fc.asyncProperty(route, target, body, fc.string({ maxLength: 6 }), async ([method, path], who, payload, q) => {
        const before = count();
        const sub = path.replace(':id', encodeURIComponent(who) || 'x').replace(':q', encodeURIComponent(q));
        const open = await app.inject({ method, url: rest('v2', `${OPEN}${sub}`), headers: openHeaders, payload });
        const envelope = JSON.parse(open.body);
        // A dot segment (`..`) names another path: an unknown one, HTTP 404 with the envelope.
        assert.ok(open.statusCode === 200 || (open.statusCode === 404 && envelope.error === 404), open.body);
        assert.ok([0, 400, 404, 409].includes(envelope.error), open.body);
        const saved = envelope.error === 0 && method === 'POST' && path === '' ? 1 : 0;
        assert.equal(count(), before + saved, `${method} ${sub}: ${open.body.slice(0, 300)}`);
        const mine = await app.inject({
          method,
          url: `/console/api/automations${sub}`,
          headers: consoleHeaders,
          payload,
        });
        assert.ok([200, 400, 404, 409].includes(mine.statusCode), `${mine.statusCode} ${mine.body}`);
        if (mine.statusCode !== 200) assert.equal(typeof JSON.parse(mine.body).error, 'string', mine.body);
        // Runs started by the fuzz are stopped: the next run finds room.
        for (const d of home.engine?.list() ?? []) home.engine?.stopRuns(d.id);
      }),
      { numRuns: 300 },
    );
    assert.deepEqual(errors, [], 'no failure of the gateway was logged');
  });
});

/** A value of a control the console would send (its command: console/src/components/controls.tsx). */
function controlState(c: Control): Record<string, unknown> {
  const v =
    c.kind === 'color'
      ? { red: 255, green: 120, blue: 0 }
      : c.kind === 'bool'
        ? true
        : c.values
          ? c.values[0]
          : (c.min ?? 0);
  const inner = c.kind === 'color' ? v : { [c.field]: v };
  return { [c.capability]: c.name === undefined ? inner : { [c.name]: inner } };
}

describe("the editor's choices", () => {
  test('every one is taken by a save: each value as a trigger, a condition and a wait, each press, each control as an action', async (t) => {
    const home = await startHome({ zigbee: 12 });
    t.after(() => home.stop());
    const c = await clients(home);
    const choices = (await c.open('GET', '/choices')).data;
    assert.equal(choices.devices.length, 12);
    assert.deepEqual(
      choices.security_modes.map((m: { sid: number }) => m.sid),
      home.g.gateway.security.list().map((m) => m.sid),
    );
    assert.equal(choices.time_zone, 'Europe/Berlin');
    assert.equal(choices.location, true);
    // On and off are offered for power and channels; a flip (`toggle`) is a command, never a state.
    const onOff = choices.devices.flatMap((d: any) =>
      d.values.filter((v: any) => v.capability === 'power' || v.capability === 'toggle'),
    );
    assert.ok(onOff.length > 0);
    for (const v of onOff) assert.deepEqual(v.values, ['on', 'off']);
    let values = 0;
    let presses = 0;
    let controls = 0;
    for (const d of choices.devices) {
      const ref = (v: { capability: string; name?: string; field: string }) => ({
        device: d.serial_number,
        capability: v.capability,
        ...(v.name !== undefined ? { name: v.name } : {}),
        field: v.field,
      });
      const first = (v: { type: string; values?: unknown[]; min?: number; max?: number }) =>
        v.values ? { equals: v.values[0] } : v.type === 'number' ? { above: v.min ?? 0 } : { equals: 'x' };
      const triggers = [
        ...d.values.map((v: any) => {
          const cmp = first(v);
          return { type: 'state', ...ref(v), ...('equals' in cmp ? { to: cmp.equals } : cmp) };
        }),
        ...d.presses.flatMap((p: { name?: string; presses: string[] }) =>
          p.presses.map((press) => ({
            type: 'press',
            device: d.serial_number,
            ...(p.name ? { name: p.name } : {}),
            press,
          })),
        ),
      ];
      const conditions = d.values.map((v: any) => ({ type: 'state', ...ref(v), ...first(v) }));
      const waits = d.values.map((v: any) => ({ type: 'wait', ...ref(v), ...first(v), timeout_seconds: 60 }));
      const layout = deviceLayout(home.g.gateway.devices.registry.get(d.serial_number) as never);
      const commands = layout.controls.map((ctl) => ({
        type: 'device',
        device: d.serial_number,
        state: controlState(ctl),
      }));
      assert.equal(layout.controls.length > 0, d.controllable, `${d.name}: offered controls as it takes commands`);
      values += d.values.length;
      presses += triggers.length - d.values.length;
      controls += commands.length;
      for (let i = 0; i < Math.max(triggers.length, 1); i += 20) {
        const r = await c.open('POST', '', {
          kind: 'automation',
          name: `All of ${d.name}`,
          triggers: triggers.slice(i, i + 20),
          conditions: i === 0 ? conditions : [],
          actions:
            i === 0 && waits.length + commands.length > 0
              ? [...waits, ...commands]
              : [{ type: 'notify', message: 'x' }],
        });
        assert.equal(r.error, 0, `${d.name}: ${r.message}`);
      }
    }
    assert.ok(values >= 25, `values offered: ${values}`);
    assert.ok(presses >= 3, `presses offered: ${presses}`);
    assert.ok(controls >= 10, `controls offered: ${controls}`);
  });
});
