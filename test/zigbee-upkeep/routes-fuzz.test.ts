/**
 * Any path parameter, query and body sent to the Zigbee routes (fast-check) is answered in the
 * surface's own shape: the envelope with HTTP 200 and one of the route's declared codes on the
 * Open API, an HTTP status with `{error}` in words on the console; refusals say `path: rule`;
 * never a failure of the gateway (no 500, nothing in its error log). On a gateway in `sim` mode,
 * with real serial numbers and group ids among the random ones, so that checks past the schema
 * (a device that exists, a member that shares nothing) are reached too.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { ErrorCode } from '../../src/catalog/errors.ts';
import type { RouteDecl } from '../../src/core/route.ts';
import { documentedRoutes } from '../../src/integrations/zigbee/index.ts';
import { consoleClient } from '../console/client.ts';
import { call, listDevices, rest, startGateway, type TestGateway, waitForValue } from '../helpers/foundation.ts';

const PASSWORD = 'a console password';
let g: TestGateway;
let token: string;
let cookie: string;
let serials: string[];
let groupRefs: string[];
let routes: RouteDecl[];
const errors: unknown[] = [];

before(async () => {
  const log = pino({ level: 'error' }, { write: (line: string) => errors.push(JSON.parse(line)) });
  g = await startGateway({
    overrides: { zigbee: { mode: 'sim', sim_devices: 33 } },
    gatewayOptions: { log, drivers: { zigbee: { sim: { otaStepMs: 20, mapStepMs: 1, reportIntervalMs: 0 } } } },
  });
  token = g.token('fuzz');
  await g.gateway.setConsolePassword(PASSWORD);
  const c = consoleClient(g.url);
  assert.equal((await c.login(PASSWORD)).status, 200);
  cookie = `opencube_session=${c.cookie}`;
  const devices = await waitForValue(async () => {
    const list = await listDevices(g.url, token);
    return list.length >= 33 && list;
  }, 30_000);
  serials = devices.map((d: { serial_number: string }) => d.serial_number);
  const made = await call(g.url, 'POST', rest('v2', 'zigbee/groups'), {
    token,
    body: {
      name: 'Fuzzed',
      members: [{ serial_number: devices.find((d: any) => d.model === 'LED1836G9').serial_number }],
    },
  });
  assert.equal(made.json.error, 0, made.text);
  groupRefs = [made.json.data.group.group, made.json.data.group.serial_number];
  routes = documentedRoutes();
});

after(() => g?.stop());

/** A path parameter: a real serial number or group, or anything. */
const param = () =>
  fc.oneof(
    fc.constantFrom(...serials, ...groupRefs, 'zigbee2mqtt/999', '..', '%', ' ', 'a'.repeat(700)),
    fc.string({ maxLength: 20 }),
  );

/** A body: a shape the routes read with real or random values, any JSON, or text that is not JSON. */
const body = () => {
  const value = fc.oneof(
    fc.constantFrom(...serials.slice(0, 6), ...groupRefs, '1', '2', 'genOnOff', 'hvacThermostat', 'zigbee2mqtt'),
    fc.jsonValue({ maxDepth: 2 }),
  );
  const keys = fc.constantFrom(
    'serial_number',
    'channel',
    'name',
    'network',
    'id',
    'members',
    'source',
    'source_channel',
    'target',
    'target_channel',
    'clusters',
    'routes',
  );
  return fc.oneof(
    fc.dictionary(keys, value, { maxKeys: 5 }).map((o) => JSON.stringify(o)),
    fc.json({ maxDepth: 3 }),
    fc.constantFrom('{', '', '[]', 'null', '"text"', '{"members":[{"serial_number":7}]}'),
  );
};

test('the Zigbee routes answer any input in their surface own shape, never a failure of the gateway (300 runs)', async () => {
  const pathOf = (r: RouteDecl, values: string[]) => {
    let i = 0;
    return r.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(values[i++] ?? 'x') || 'x');
  };
  const route = fc.constantFrom(...routes);
  await fc.assert(
    fc.asyncProperty(
      route,
      fc.array(param(), { minLength: 2, maxLength: 2 }),
      body(),
      fc.string({ maxLength: 8 }),
      async (r, values, raw, channel) => {
        const path = `${pathOf(r, values)}${r.query ? `?channel=${encodeURIComponent(channel)}&network=${encodeURIComponent(channel)}` : ''}`;
        const payload = r.method === 'GET' || r.method === 'DELETE' ? undefined : raw;
        const open = await g.gateway.app.inject({
          method: r.method,
          url: rest('v2', path.slice(1)),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(payload !== undefined ? { payload } : {}),
        });
        const envelope = JSON.parse(open.body);
        if (open.statusCode === 404) assert.equal(envelope.error, 404, open.body);
        else assert.equal(open.statusCode, 200, open.body);
        const allowed = [0, 400, 404, ...(r.errors ?? [])];
        assert.ok(allowed.includes(envelope.error), `${r.method} ${path}: ${open.body}`);
        if (envelope.error === ErrorCode.INVALID_PARAMETERS)
          // `path: rule`; a body that is not JSON at all is refused by the shared parser (`body is not valid JSON: ...`).
          for (const part of String(envelope.message).split('; '))
            assert.match(part, /^(?:[\w.-]+(?:\[".*?"\][\w.-]*)*: \S|body is not valid JSON: )/, envelope.message);

        const mine = await g.gateway.app.inject({
          method: r.method,
          url: `/console/api${path}`,
          headers: { cookie, origin: 'http://localhost', host: 'localhost', 'content-type': 'application/json' },
          ...(payload !== undefined ? { payload } : {}),
        });
        assert.ok([200, 400, 404, 409, 422, 502, 503].includes(mine.statusCode), `${mine.statusCode} ${mine.body}`);
        if (mine.statusCode !== 200) assert.equal(typeof JSON.parse(mine.body).error, 'string', mine.body);
      },
    ),
    { numRuns: 300 },
  );
  assert.deepEqual(errors, []);
});
