import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { call, listDevices, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { mutate } from '../helpers/fuzz.ts';
import { endpoint, type Service, startService } from '../helpers/thirdparty.ts';

const NAMES = [
  'DiscoveryRequest',
  'DeviceStatesChangeReport',
  'DeviceOnlineChangeReport',
  'DeviceInformationUpdatedReport',
  'RegisterTTSEngine',
];

function isEventReply(json: any): boolean {
  return (
    json !== null &&
    typeof json === 'object' &&
    (json.header?.name === 'Response' || json.header?.name === 'ErrorResponse') &&
    typeof json.header.message_id === 'string' &&
    typeof json.header.version === 'string' &&
    json.payload !== null &&
    typeof json.payload === 'object' &&
    !Array.isArray(json.payload) &&
    (json.header.name === 'Response' ||
      ['INVALID_PARAMETERS', 'AUTH_FAILURE', 'INTERNAL_ERROR'].includes(json.payload.type))
  );
}

describe('T1 under random and mutated bodies', () => {
  let g: TestGateway;
  let token: string;
  let service: Service;

  before(async () => {
    g = await startGateway();
    token = await g.linkToken('fuzz');
    service = await startService();
  });
  after(async () => {
    await g.stop();
    await service.close();
  });

  test('only ever gets an event-shaped HTTP 200 reply, and the registry stays consistent', async () => {
    const valid = (addr: string) => [
      {
        event: {
          header: { name: 'DiscoveryRequest', message_id: 'm', version: '1' },
          payload: { endpoints: [endpoint('f-1', addr), endpoint('f-2', addr, { tags: { a: 1 } })] },
        },
      },
      {
        event: {
          header: { name: 'DeviceStatesChangeReport', message_id: 'm', version: '2' },
          endpoint: { third_serial_number: 'f-1' },
          payload: { state: { power: { powerState: 'on' }, toggle: { '1': { toggleState: 'off' } } } },
        },
      },
      {
        event: {
          header: { name: 'DeviceOnlineChangeReport', message_id: 'm', version: '1' },
          endpoint: { third_serial_number: 'f-2' },
          payload: { online: false },
        },
      },
      {
        event: {
          header: { name: 'DeviceInformationUpdatedReport', message_id: 'm', version: '1' },
          endpoint: { third_serial_number: 'f-1' },
          payload: { capabilities: [{ capability: 'power', permission: '1100' }], tags: { x: 'y' } },
        },
      },
      {
        event: {
          header: { name: 'RegisterTTSEngine', message_id: 'm', version: '1' },
          payload: { service_address: addr, name: 'tts' },
        },
      },
    ];
    const bases = valid(service.url);
    const body = fc.oneof(
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
      {
        weight: 1,
        arbitrary: fc.record({
          event: fc.record(
            {
              header: fc.record(
                {
                  name: fc.constantFrom(...NAMES),
                  message_id: fc.oneof(fc.string(), fc.integer()),
                  version: fc.constantFrom('1', '2', 3),
                },
                { requiredKeys: [] },
              ),
              endpoint: fc.jsonValue({ maxDepth: 2 }),
              payload: fc.jsonValue({ maxDepth: 4 }),
            },
            { requiredKeys: [] },
          ),
        }),
      },
      {
        weight: 4,
        arbitrary: fc
          .tuple(fc.nat(bases.length - 1), fc.array(fc.nat(20), { maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }))
          .map(([i, path, value]) => mutate(bases[i], path, value)),
      },
    );
    const raw = fc.oneof(
      { weight: 9, arbitrary: body.map((b) => JSON.stringify(b) ?? '') },
      { weight: 1, arbitrary: fc.string() },
    );
    await fc.assert(
      fc.asyncProperty(raw, fc.constantFrom(token, token, token, 'bad', ''), async (text, t) => {
        const r = await call(g.url, 'POST', '/open-api/v2/rest/thirdparty/event', { token: t, body: text });
        assert.equal(r.status, 200, r.text);
        assert.ok(isEventReply(r.json), `not an event reply: ${r.text}`);
      }),
      { numRuns: 400 },
    );
    // Consistency: D3 is what the registry holds; every device is complete; one device per third_serial_number.
    const listed = await listDevices(g.url, token);
    assert.equal(listed.length, g.gateway.devices.registry.size);
    const seen = new Set<string>();
    for (const d of listed) {
      for (const k of ['serial_number', 'name', 'manufacturer', 'model', 'firmware_version', 'display_category'])
        assert.equal(typeof d[k], 'string', `${k} of ${JSON.stringify(d)}`);
      assert.ok(Array.isArray(d.capabilities));
      assert.equal(typeof d.online, 'boolean');
      assert.ok(d.state !== null && typeof d.state === 'object' && !Array.isArray(d.state));
      assert.equal(
        seen.has(d.third_serial_number),
        false,
        `one device per third_serial_number: ${d.third_serial_number}`,
      );
      seen.add(d.third_serial_number);
    }
    // What is stored is what is served: a restart lists the same devices.
    g = await g.restart();
    const again = await listDevices(g.url, token);
    assert.deepEqual(again, listed);
  });
});

describe("T1's envelope and RegisterTTSEngine's payload are checked by their declared schemas", () => {
  let g: TestGateway;
  let token: string;

  before(async () => {
    g = await startGateway();
    token = await g.linkToken('schemas');
  });
  after(() => g.stop());

  const post = (body: unknown) => call(g.url, 'POST', '/open-api/v2/rest/thirdparty/event', { token, body });
  const register = (payload: unknown) =>
    post({ event: { header: { name: 'RegisterTTSEngine', message_id: 'm', version: '1' }, payload } });
  const engines = async () =>
    (await call(g.url, 'GET', '/open-api/v2/rest/tts/engines', { token })).json.data.engines.length;

  const envelopes: [string, unknown, string][] = [
    ['an array', [], 'body: expected an object, got an array'],
    ['no event', {}, 'event: required'],
    ['an event that is a number', { event: 5 }, 'event: expected an object, got 5'],
    ['no header', { event: { payload: {} } }, 'header: required'],
    ['a header that is a string', { event: { header: 'x' } }, 'header: expected an object, got "x"'],
    ['a header without a name', { event: { header: { message_id: 'm' } } }, 'header.name: required'],
    ['a name that is a number', { event: { header: { name: 7 } } }, 'header.name: expected a string, got 7'],
  ];
  for (const [what, body, message] of envelopes) {
    test(`${what}: INVALID_PARAMETERS "${message}"`, async () => {
      const r = await post(body);
      assert.equal(r.status, 200);
      assert.equal(r.json.header.name, 'ErrorResponse', r.text);
      assert.deepEqual(r.json.payload, { type: 'INVALID_PARAMETERS', description: message });
    });
  }

  const payloads: [string, unknown, string][] = [
    ['a number', 5, 'payload: expected an object, got 5'],
    ['an empty object', {}, 'payload.service_address: required; payload.name: required'],
    [
      'a name that is a number',
      { service_address: 'http://127.0.0.1:9/tts', name: 5 },
      'payload.name: expected a string, got 5',
    ],
    [
      'a blank name',
      { service_address: 'http://127.0.0.1:9/tts', name: ' ' },
      'payload.name: " " is not a non-empty name',
    ],
    [
      'a name of 257 characters',
      { service_address: 'http://127.0.0.1:9/tts', name: 'n'.repeat(257) },
      'payload.name: longer than 256 characters',
    ],
    [
      'an address that is a number',
      { service_address: 5, name: 'tts' },
      'payload.service_address: expected a string, got 5',
    ],
    ['an empty address', { service_address: '', name: 'tts' }, 'payload.service_address: "" is not a service address'],
    [
      'an ftp address',
      { service_address: 'ftp://127.0.0.1/tts', name: 'tts' },
      'payload.service_address: "ftp://127.0.0.1/tts" is not an http(s) URL',
    ],
  ];
  for (const [what, payload, message] of payloads) {
    test(`RegisterTTSEngine with ${what}: "${message}", and no engine is registered`, async () => {
      const before = await engines();
      const r = await register(payload);
      assert.equal(r.json.header.name, 'ErrorResponse', r.text);
      assert.deepEqual(r.json.payload, { type: 'INVALID_PARAMETERS', description: message });
      assert.equal(await engines(), before);
    });
  }

  test('random RegisterTTSEngine payloads register an engine or name each problem as `payload.<field>: rule`', async () => {
    const field = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('', ' ', 'tts', 'http://127.0.0.1:9/tts'));
    const payload = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ service_address: field, name: field }, { requiredKeys: [] }),
    );
    await fc.assert(
      fc.asyncProperty(payload, async (p) => {
        const r = await register(p);
        assert.equal(r.status, 200, r.text);
        if (r.json.header.name === 'Response') return void assert.equal(typeof r.json.payload.engine_id, 'string');
        assert.equal(r.json.payload.type, 'INVALID_PARAMETERS', r.text);
        for (const part of r.json.payload.description.split('; '))
          assert.match(part, /^payload(\.(service_address|name))?: \S/, r.text);
      }),
      { numRuns: 200 },
    );
  });
});
