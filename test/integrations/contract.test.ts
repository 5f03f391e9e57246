/**
 * The integration contract (src/core/integration.ts) as a new integration uses it: one entry
 * added after the table's, with routes served on the Open API (a token, the envelope) and on the
 * console's API (a session, HTTP statuses), events shown on both streams, the settings' changes
 * heard on the bus, and its start and stop in their order. The activity log names who sent a
 * command: the app, or the console and its session.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { ErrorCode } from '../../src/catalog/errors.ts';
import { int, obj, str } from '../../src/catalog/schema.ts';
import { actorWords } from '../../src/core/actor.ts';
import type { BusEvent } from '../../src/core/event-bus.ts';
import type { IntegrationEntry } from '../../src/core/integration.ts';
import { answered, type RouteDecl, refused } from '../../src/core/route.ts';
import type { Settings } from '../../src/settings/index.ts';
import { consoleClient } from '../console/client.ts';
import { call, listDevices, openStream, rest, startGateway } from '../helpers/foundation.ts';

// How an integration declares the payload of an event of its own: in its own folder, no edit of the bus.
declare module '../../src/core/event-bus.ts' {
  interface EventPayloads {
    'probe#counted': { payload: { thing: string; count: number } };
  }
}

const PASSWORD = 'correct horse battery';

/** What the probe integrations saw and did, in order. */
interface Record_ {
  steps: string[];
  heard: BusEvent[];
  ports: Record<string, number>;
}

function probes(rec: Record_): IntegrationEntry<Settings>[] {
  const early: IntegrationEntry<Settings> = {
    id: 'early-probe',
    enabled: () => true,
    load: async () => ({
      startsAt: 'listen',
      start(ctx) {
        rec.steps.push('start early-probe');
        rec.ports['early-probe'] = ctx.port();
      },
      stop() {
        rec.steps.push('stop early-probe');
      },
    }),
  };
  const probe: IntegrationEntry<Settings> = {
    id: 'probe',
    enabled: () => true,
    load: async () => {
      let unsubscribe: (() => void) | undefined;
      return {
        events: {
          openApi: {
            'probe#counted': {
              summary: 'A thing was counted',
              data: obj({ payload: obj({ thing: str(), count: int() }) }),
            },
          },
          console: ['probe#counted'],
        },
        // One declaration for both surfaces: each serves it in its own conventions.
        routes: (ctx) => {
          const routes: RouteDecl[] = [
            {
              method: 'GET',
              path: '/probe/caller',
              summary: 'Who is calling',
              answer: obj({ caller: str() }),
              handle: ({ actor }) => answered({ caller: actorWords(actor) }),
            },
            {
              method: 'PUT',
              path: '/probe/things/{thing}',
              summary: 'Counts a thing',
              params: { thing: str({ maxLength: 8 }) },
              body: obj({ count: int({ min: 1 }) }),
              answer: obj({ thing: str(), count: int() }),
              handle: ({ params, body }) => {
                if (params.thing === 'none') return refused(ErrorCode.DEVICE_NOT_FOUND, 'no such thing');
                ctx.bus.publish('probe#counted', { payload: { thing: params.thing, count: body.count } });
                return answered({ thing: params.thing, count: body.count });
              },
            },
          ];
          return { openApi: routes, console: routes };
        },
        start(ctx) {
          rec.steps.push('start probe');
          rec.ports.probe = ctx.port();
          unsubscribe = ctx.bus.subscribe((e) => {
            if (e.name === 'settings#changed' || e.name === 'gateway#renamed') rec.heard.push(e);
          });
        },
        stop() {
          unsubscribe?.();
          rec.steps.push('stop probe');
        },
      };
    },
  };
  return [early, probe];
}

async function probedGateway(overrides: Record<string, unknown> = {}, log?: pino.Logger) {
  const rec: Record_ = { steps: [], heard: [], ports: {} };
  const g = await startGateway({
    overrides,
    gatewayOptions: { addIntegrations: probes(rec), ...(log ? { log } : {}) },
  });
  await g.gateway.setConsolePassword(PASSWORD);
  const c = consoleClient(g.url);
  assert.equal((await c.login(PASSWORD)).status, 200);
  return { g, c, rec };
}

describe('an integration', () => {
  test('adds routes to the Open API behind a token and to the console behind a session, each told who is calling', async (t) => {
    const { g, c } = await probedGateway();
    t.after(() => g.stop());
    const token = await g.linkToken('Kitchen tablet');

    const open = await call(g.url, 'GET', rest('v2', 'probe/caller'), { token });
    assert.deepEqual(open.json, { error: 0, data: { caller: 'Kitchen tablet' }, message: 'success' });
    assert.equal((await call(g.url, 'GET', rest('v1', 'probe/caller'), { token })).json.data.caller, 'Kitchen tablet');
    const anonymous = await call(g.url, 'GET', rest('v2', 'probe/caller'));
    assert.equal(anonymous.status, 200);
    assert.equal(anonymous.json.error, 401);

    const mine = await c.call('GET', '/probe/caller');
    assert.equal(mine.status, 200);
    assert.match(mine.body.caller, /^the console \(session [0-9a-f]{16}\)$/);
    assert.equal((await consoleClient(g.url).call('GET', '/probe/caller')).status, 401);
  });

  test("answers bad input and refusals in each surface's own shape", async (t) => {
    const { g, c } = await probedGateway();
    t.after(() => g.stop());
    const token = g.token('probe');

    const bad = await call(g.url, 'PUT', rest('v2', 'probe/things/lamp'), { token, body: { count: 0 } });
    assert.equal(bad.status, 200);
    assert.equal(bad.json.error, 400);
    assert.match(bad.json.message, /^count: /);
    const badConsole = await c.call('PUT', '/probe/things/lamp', { count: 'three' });
    assert.equal(badConsole.status, 400);
    assert.match(badConsole.body.error, /^count: /);
    const longParam = await c.call('PUT', '/probe/things/far-too-long', { count: 1 });
    assert.equal(longParam.status, 400);
    assert.match(longParam.body.error, /^thing: /);

    const none = await call(g.url, 'PUT', rest('v2', 'probe/things/none'), { token, body: { count: 1 } });
    assert.deepEqual(none.json, { error: ErrorCode.DEVICE_NOT_FOUND, data: {}, message: 'no such thing' });
    const noneConsole = await c.call('PUT', '/probe/things/none', { count: 1 });
    assert.equal(noneConsole.status, 404);
    assert.deepEqual(noneConsole.body, { error: 'no such thing' });
  });

  test("answers any body and path parameter in its surface's shape, never a failure of the gateway (400 runs)", async (t) => {
    const errors: unknown[] = [];
    const log = pino({ level: 'error' }, { write: (line: string) => errors.push(JSON.parse(line)) });
    const { g, c } = await probedGateway({}, log);
    t.after(() => g.stop());
    const token = g.token('probe');
    const cookie = `opencube_session=${c.cookie}`;
    const thing = fc.oneof(fc.constantFrom('lamp', 'none', '%20', '..', 'a'.repeat(9)), fc.string({ maxLength: 12 }));
    const body = fc.oneof(fc.json(), fc.string(), fc.constant('{'), fc.constant(''));
    await fc.assert(
      fc.asyncProperty(thing, body, async (name, raw) => {
        const path = `probe/things/${encodeURIComponent(name) || 'x'}`;
        const payload = raw;
        const open = await g.gateway.app.inject({
          method: 'PUT',
          url: rest('v2', path),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          payload,
        });
        // A dot segment (`..`) names another path: an unknown one, HTTP 404 with the envelope.
        const envelope = JSON.parse(open.body);
        if (open.statusCode === 404) assert.equal(envelope.error, 404, open.body);
        else assert.equal(open.statusCode, 200, open.body);
        assert.ok([0, 400, 404, ErrorCode.DEVICE_NOT_FOUND].includes(envelope.error), open.body);
        const mine = await g.gateway.app.inject({
          method: 'PUT',
          url: `/console/api/${path}`,
          headers: { cookie, origin: 'http://localhost', host: 'localhost', 'content-type': 'application/json' },
          payload,
        });
        assert.ok([200, 400, 404].includes(mine.statusCode), `${mine.statusCode} ${mine.body}`);
        if (mine.statusCode !== 200) assert.equal(typeof JSON.parse(mine.body).error, 'string', mine.body);
      }),
      { numRuns: 400 },
    );
    assert.deepEqual(errors, []);
  });

  test('shows its events on the Open API stream (with the stream version) and on the console stream, and in the AsyncAPI document', async (t) => {
    const { g, c } = await probedGateway();
    t.after(() => g.stop());
    const token = g.token('probe');
    const openStream_ = await openStream(g.url, `/open-api/v2/sse/bridge?access_token=${token}`);
    t.after(() => openStream_.close());
    const consoleStream = await openStream(g.url, '/console/api/events', {
      cookie: `opencube_session=${c.cookie}`,
    });
    t.after(() => consoleStream.close());
    assert.equal(consoleStream.status, 200);

    const r = await call(g.url, 'PUT', rest('v2', 'probe/things/lamp'), { token, body: { count: 3 } });
    assert.deepEqual(r.json.data, { thing: 'lamp', count: 3 });
    const data = JSON.stringify({ payload: { thing: 'lamp', count: 3 } });
    const seen = await openStream_.waitFor((fs) => fs.some((f) => f.event === 'probe#v2#counted'));
    assert.equal(seen.find((f) => f.event === 'probe#v2#counted')?.data.join('\n'), data);
    const shown = await consoleStream.waitFor((fs) => fs.some((f) => f.event === 'probe#counted'));
    assert.equal(shown.find((f) => f.event === 'probe#counted')?.data.join('\n'), data);

    const asyncapi = (await (await fetch(`${g.url}/open-api/asyncapi.json`)).json()) as {
      components: { messages: Record<string, { name: string }> };
    };
    assert.equal(asyncapi.components.messages.probe_counted.name, 'probe#{version}#counted');
    const openapi = JSON.stringify(await (await fetch(`${g.url}/open-api/openapi.json`)).json());
    assert.ok(openapi.includes('/probe/things/{thing}'), 'its routes are in the OpenAPI document');
  });

  test('hears a setting changed in the console and the rename on the bus; G4 shows the new name at once', async (t) => {
    const { g, c, rec } = await probedGateway();
    t.after(() => g.stop());
    const token = g.token('probe');
    const was = g.gateway.settings.name;
    const volume = g.gateway.settings.audio.beep_volume;
    assert.equal((await call(g.url, 'GET', rest('v2', 'bridge'), { token })).json.data.name, was);

    assert.equal((await c.call('PUT', '/settings/name', { value: 'Attic cube' })).status, 200);
    assert.equal((await c.call('PUT', '/settings/audio.beep_volume', { value: 40 })).status, 200);
    assert.deepEqual(
      rec.heard.map((e) => [e.name, e.data]),
      [
        ['settings#changed', { payload: { key: 'name', value: 'Attic cube', was } }],
        ['gateway#renamed', { payload: { name: 'Attic cube', was } }],
        ['settings#changed', { payload: { key: 'audio.beep_volume', value: 40, was: volume } }],
      ],
    );
    assert.equal((await call(g.url, 'GET', rest('v2', 'bridge'), { token })).json.data.name, 'Attic cube');
  });

  test('starts before the gateway listens when it asks to, else after the drivers, and stops in the reverse order', async () => {
    const { g, rec } = await probedGateway();
    assert.deepEqual(rec.steps, ['start early-probe', 'start probe']);
    assert.equal(rec.ports['early-probe'], 0, 'not listening yet: the configured port (0)');
    assert.equal(rec.ports.probe, Number(new URL(g.url).port));
    await g.stop();
    assert.deepEqual(rec.steps, ['start early-probe', 'start probe', 'stop probe', 'stop early-probe']);
  });
});

describe('the activity log', () => {
  test("names the app that sent a command, and the console's session", async (t) => {
    const lines: { msg: string; by?: string; app_name?: string | null }[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const { g, c } = await probedGateway({ zigbee: { mode: 'sim' }, sim_devices: 4 }, log);
    t.after(() => g.stop());
    const token = await g.linkToken('Kitchen tablet');
    const devices = await listDevices(g.url, token);
    const lamp = devices.find((d: { capabilities: { capability: string }[] }) =>
      d.capabilities.some((cap) => cap.capability === 'power'),
    );
    assert.ok(lamp, 'the simulated network has a device with power');
    const serial = lamp.serial_number as string;
    const state = { power: { powerState: 'on' } };

    assert.equal((await call(g.url, 'PUT', rest('v2', `devices/${serial}`), { token, body: { state } })).json.error, 0);
    assert.equal((await c.call('PUT', `/devices/${serial}`, { state })).status, 200);
    const changed = lines.filter((l) => / changed .+ \(state\): done$/.test(l.msg));
    assert.equal(changed.length, 2, JSON.stringify(lines.map((l) => l.msg)));
    assert.match(changed[0]?.msg as string, /^Kitchen tablet changed /);
    assert.equal(changed[0]?.app_name, 'Kitchen tablet');
    assert.match(changed[1]?.msg as string, /^the console \(session [0-9a-f]{16}\) changed /);
    assert.equal(changed[1]?.app_name, null);
  });
});
