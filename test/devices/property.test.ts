/**
 * Property: whatever body, path parameters, Content-Type, Authorization header, method and version
 * segment a client throws at the device routes (D1, D3, D4, D5, D6), it gets the envelope back
 * (HTTP 200, or 404 for an unknown path), never error 500, never a crash; and afterwards the
 * registry is consistent: D3 parses, lists what the registry holds, and a restart lists the same.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { listDevices, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { mutate } from '../helpers/fuzz.ts';
import { endpoint, type Service, sendEvent, sendJson, startService, successReply } from '../helpers/thirdparty.ts';

const CAPS = [
  { capability: 'power', permission: '1100' },
  { capability: 'brightness', permission: '1100' },
  { capability: 'toggle', permission: '1100', name: '1' },
  { capability: 'toggle', permission: '1100', name: '2' },
  {
    capability: 'detect',
    permission: '0110',
    settings: {
      detectInterval: { permission: '11', type: 'numeric', value: 10, min: 0, max: 100 },
      detectSensitivity: { permission: '11', type: 'numeric', value: 5, min: 0, max: 100 },
    },
  },
  {
    capability: 'power-consumption',
    permission: '1101',
    settings: { resolution: { permission: '01', type: 'numeric', value: 3600 } },
  },
];

const SPAN = { start: '2024-05-01T00:00:00.000Z', end: '2024-05-02T00:00:00.000Z' };

/** Valid D4 bodies, the seeds of the mutated ones. */
const D4_BODIES: unknown[] = [
  { name: 'Kitchen' },
  { tags: { room: 'hall', nested: { a: [1, { b: null }] }, toggle: { '1': 'Left' } } },
  { state: { power: { powerState: 'on' } } },
  { state: { brightness: { brightness: 40 }, toggle: { '1': { toggleState: 'toggle' } } } },
  { state: { brightness: { brightnessDelta: -10 } } },
  { capabilities: [{ capability: 'detect', permission: '0110', settings: { detectInterval: { value: 20 } } }] },
  {
    name: 'All',
    tags: { k: 'v' },
    state: { toggle: { '2': { toggleState: 'on' } } },
    capabilities: [{ capability: 'detect', settings: { detectSensitivity: { value: 9 } } }],
  },
];
/** Valid D6 bodies. */
const D6_BODIES: unknown[] = [
  { query_state: { 'power-consumption': { type: 'summarize', timeRange: SPAN } } },
  { query_state: { 'power-consumption': { powerConsumption: { type: 'rlSummarize' } } } },
  { query_state: { type: 'summarize', timeRange: { start: SPAN.start } } },
];
const D1_BODIES: unknown[] = [
  { enable: true, type: 'Zigbee' },
  { enable: false, type: 'zigbee' },
];

/** Codes the device routes may answer (docs/errors.md); never 500. */
const CODES = [0, 400, 401, 404, 110000, 110005, 110006, 110019, 110024];

const ROUTES = [
  ['PUT', 'devices/discovery'],
  ['GET', 'devices'],
  ['PUT', 'devices/{serial}'],
  ['DELETE', 'devices/{serial}'],
  ['POST', 'devices/{serial}/query-state/{capability}'],
  ['PUT', 'devices/{serial}/query-state/{capability}'],
] as const;

describe('the device routes under random and mutated requests', () => {
  let g: TestGateway;
  let token: string;
  let service: Service;
  let serials: string[] = [];
  const serverErrors: unknown[] = [];
  // Every error the gateway logs (a 500 is logged as "request failed") is collected here.
  const log = pino({ level: 'error' }, { write: (line: string) => serverErrors.push(JSON.parse(line)) });

  const sync = async () => {
    const r = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: ['q-1', 'q-2', 'q-3'].map((t) =>
        endpoint(t, service.url, { capabilities: CAPS, display_category: 'light', state: {} }),
      ),
    });
    assert.equal(r.json?.header?.name, 'Response', r.text);
    serials = r.json.payload.endpoints.map((e: any) => e.serial_number);
  };

  before(async () => {
    g = await startGateway({ gatewayOptions: { log } });
    token = g.token('device-fuzz');
    // A provider that answers most directives, refuses some, and answers queries with a state.
    service = await startService((d, _req, res) => {
      const name = d?.directive?.header?.name;
      const state = d?.directive?.payload?.state;
      if (state?.brightness?.brightness === 13) {
        sendJson(res, { event: { header: { name: 'ErrorResponse' }, payload: { type: 'ENDPOINT_UNREACHABLE' } } });
      } else if (state?.power?.powerState === 'off') {
        sendJson(res, { event: { header: { name: 'ErrorResponse' }, payload: { type: 'INVALID_DIRECTIVE' } } });
      } else if (name === 'QueryDeviceStates') {
        sendJson(res, {
          event: {
            header: { name: 'Response' },
            payload: { state: { 'power-consumption': { type: 'summarize', electricityIntervals: [] } } },
          },
        });
      } else sendJson(res, successReply(d));
    });
    await sync();
  });
  after(async () => {
    await g.stop();
    await service.close();
  });

  test('only ever get the envelope, never error 500, and the registry stays consistent', async () => {
    const known = fc.constantFrom(...serials);
    const serial = fc.oneof(
      { weight: 6, arbitrary: known },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          'discovery',
          'nope',
          '__proto__',
          'constructor',
          'toString',
          '%00',
          '%20',
          '%E0%A4%A',
          '%',
          'a%2Fb',
          'x'.repeat(501),
          '..',
          '%2E%2E',
        ),
      },
      { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s) || 'x') },
    );
    const capability = fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom('power-consumption', 'power', 'brightness', 'toggle', 'detect') },
      {
        weight: 2,
        arbitrary: fc.constantFrom('__proto__', 'constructor', 'hasOwnProperty', '%00', '%E0%A4%A', 'x'.repeat(501)),
      },
      { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s) || 'x') },
    );
    const odd = fc.constantFrom(
      '',
      ' ',
      'null',
      '[]',
      '{}',
      '{',
      '"x"',
      '1e309',
      '\u0000',
      '{"__proto__":{"name":"p"}}',
      '{"tags":{"__proto__":{"a":1},"constructor":{"prototype":{}}}}',
      '{"state":{"__proto__":{"powerState":"on"}}}',
      '{"state":{"toggle":{"__proto__":{"toggleState":"on"}}}}',
      '{"state":{"brightness":{"brightness":1e309}}}',
      '{"name":"a\\ud800"}',
      '{"name":"a\\u0000b"}',
      '{"query_state":{"__proto__":{}}}',
      '{"query_state":{"constructor":{"type":"summarize"}}}',
      `{"tags":${'{"a":'.repeat(70)}1${'}'.repeat(70)}}`,
    );
    const mutated = (bases: unknown[]) =>
      fc
        .tuple(
          fc.nat(bases.length - 1),
          fc.array(fc.nat(20), { maxLength: 5 }),
          fc.oneof(
            fc.jsonValue({ maxDepth: 2 }),
            fc.constantFrom(Number.NaN, 1e308, -1, 101, 13, 'off', '', null, [], {}),
          ),
        )
        .map(([i, path, value]) => JSON.stringify(mutate(bases[i], path, value)) ?? '');
    /** Bodies for one route: mostly its own valid and mutated bodies, some of anything. */
    const bodyFor = (own: unknown[]) =>
      fc.oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: odd },
        { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
        { weight: 4, arbitrary: fc.constantFrom(...own).map((v) => JSON.stringify(v)) },
        { weight: 6, arbitrary: mutated(own) },
        { weight: 1, arbitrary: mutated([...D4_BODIES, ...D6_BODIES, ...D1_BODIES]) },
      );
    const bodies = { 'devices/discovery': D1_BODIES, devices: D1_BODIES, 'devices/{serial}': D4_BODIES };
    const auth = fc.oneof(
      { weight: 8, arbitrary: fc.constant('VALID') },
      { weight: 1, arbitrary: fc.constantFrom(undefined, '', 'Bearer', 'Bearer nope', 'VALID-BARE') },
    );
    const contentType = fc.constantFrom(
      undefined,
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      '',
      ';',
      'multipart/form-data; boundary=x',
    );
    const request = fc.constantFrom(...ROUTES).chain((route) =>
      fc.record({
        route: fc.constant(route),
        otherMethod: fc.oneof(
          { weight: 8, arbitrary: fc.constant(null) },
          { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'PATCH') },
        ),
        version: fc.constantFrom('v1', 'v2', 'V2', 'V1'),
        serial,
        capability: route[1].endsWith('{capability}')
          ? fc.oneof({ weight: 3, arbitrary: fc.constant('power-consumption') }, { weight: 2, arbitrary: capability })
          : capability,
        auth,
        contentType,
        body: bodyFor((bodies as Record<string, unknown[]>)[route[1]] ?? D6_BODIES),
        extraHeaders: fc.dictionary(
          fc.constantFrom('x-foo', 'accept', 'last-event-id', 'origin', 'content-encoding'),
          fc.string({ unit: 'grapheme-ascii', maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, '')),
          { maxKeys: 2 },
        ),
      }),
    );

    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const method = r.otherMethod ?? r.route[0];
        const path = `/open-api/${r.version}/rest/${r.route[1].replace('{serial}', r.serial).replace('{capability}', r.capability)}`;
        const headers: Record<string, string> = { ...r.extraHeaders };
        if (r.auth === 'VALID') headers.authorization = `Bearer ${token}`;
        else if (r.auth === 'VALID-BARE') headers.authorization = token;
        else if (r.auth !== undefined) headers.authorization = r.auth;
        if (r.contentType !== undefined) headers['content-type'] = r.contentType;
        const payload = method === 'GET' ? undefined : r.body;
        const res = await g.gateway.app.inject({ method: method as 'GET', url: path, headers, payload });
        const what = `${method} ${path} ${JSON.stringify(headers)} ${payload}: HTTP ${res.statusCode} ${res.body}`;
        assert.ok(res.statusCode === 200 || res.statusCode === 404, what);
        assert.match(String(res.headers['content-type']), /^application\/json/, what);
        const json = JSON.parse(res.body);
        assert.deepEqual(Object.keys(json).sort(), ['data', 'error', 'message'], what);
        assert.ok(CODES.includes(json.error), what);
        assert.ok(json.data !== null && typeof json.data === 'object' && !Array.isArray(json.data), what);
        assert.equal(typeof json.message, 'string', what);
        if (res.statusCode === 404) assert.equal(json.error, 404, what);
        if (json.error !== 0) assert.deepEqual(json.data, {}, what);
        else if (method === 'GET') assert.ok(Array.isArray(json.data.device_list), what);
        // Deleted devices come back (with the same serial numbers), so D4 and D6 keep finding some.
        if (g.gateway.devices.registry.size < 3) await sync();
      }),
      { numRuns: 2500 },
    );
    assert.deepEqual(serverErrors, []);

    // Consistency: D3 is what the registry holds, every device is complete, and a restart lists the same.
    const listed = await listDevices(g.url, token);
    assert.equal(listed.length, g.gateway.devices.registry.size);
    for (const d of listed) {
      for (const k of ['serial_number', 'name', 'manufacturer', 'model', 'firmware_version', 'display_category'])
        assert.equal(typeof d[k], 'string', `${k} of ${JSON.stringify(d)}`);
      assert.ok(Array.isArray(d.capabilities));
      assert.equal(typeof d.online, 'boolean');
      assert.ok(d.state !== null && typeof d.state === 'object' && !Array.isArray(d.state));
    }
    assert.deepEqual(await listDevices(g.url, token, 'v1'), listed);
    g = await g.restart();
    assert.deepEqual(await listDevices(g.url, token), listed);
  });
});
