/**
 * Property: whatever body, Content-Type, Authorization header, method and version segment a
 * client throws at any route of the foundation, it gets the envelope back (HTTP 200, or 404 for
 * an unknown path), never a 500, never a crash. The event stream answers a bad token with 401
 * and the spec's JSON body.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { request } from 'undici';
import { FOUNDATION_ROUTES, startGateway, type TestGateway } from '../helpers/foundation.ts';

let gw: TestGateway;
let token: string;
const serverErrors: unknown[] = [];

before(async () => {
  // Every error the gateway logs (a 500 is logged as "request failed") is collected here.
  const sink = { write: (line: string) => serverErrors.push(JSON.parse(line)) };
  gw = await startGateway({ gatewayOptions: { log: pino({ level: 'error' }, sink) } });
  token = gw.token('property');
});
after(() => gw.stop());

const sid = fc.oneof(
  fc.constantFrom('1', '2', '3', '0', '4', '-1', '1.0', 'x', '%20', '99999999999999999999'),
  fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s) || '1'),
);

const auth = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('', ' ', 'Bearer', 'Bearer ', 'Basic abc', 'bearer null', 'Bearer undefined'),
  fc.constant('VALID').map(() => `Bearer ${token}`),
  fc.constant('VALID-BARE').map(() => token),
  fc.constant('VALID-EXTRA').map(() => `Bearer ${token} extra`),
  fc.string({ unit: 'grapheme-ascii', maxLength: 60 }).map((s) => s.replace(/[\r\n]/g, '')),
);

const contentType = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'text/html',
    '',
    'json',
    ';',
    '*/*',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset="',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, '')),
);

const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.integer(), fc.double(), fc.string({ maxLength: 10 }));
const shaped = fc.oneof(
  fc.record({ volume: value }, { requiredKeys: [] }),
  fc.record(
    {
      type: fc.oneof(fc.constantFrom('play_sound', 'play_beep'), value),
      sound: fc.oneof(
        fc.record(
          {
            name: fc.oneof(fc.constantFrom('alarm1', 'alert5', 'doorbell9'), value),
            volume: fc.oneof(fc.integer({ min: -5, max: 105 }), value),
            countdown: fc.oneof(fc.integer({ min: -3, max: 1900 }), value),
          },
          { requiredKeys: [] },
        ),
        value,
      ),
      beep: fc.oneof(
        fc.record(
          {
            name: fc.oneof(fc.constantFrom('system Armed', 'systemArmed', 'factoryReset', 'x'), value),
            volume: fc.oneof(fc.integer({ min: -5, max: 105 }), value),
          },
          { requiredKeys: [] },
        ),
        value,
      ),
    },
    { requiredKeys: [] },
  ),
  fc.record({ app_name: value }, { requiredKeys: [] }),
);
const body = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('', ' ', '\n', 'null', '[]', '{}', '{', '}', '"x"', '1', 'true', '\u0000', '{"__proto__":{"a":1}}'),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  shaped.map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 80 }),
);

const version = fc.constantFrom('v1', 'v2', 'V2', 'V1', 'v3', 'v22');
const method = fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS');

const requestArb = fc.record({
  route: fc.constantFrom(...FOUNDATION_ROUTES),
  sameMethod: fc.boolean(),
  method,
  version,
  sid,
  auth,
  contentType,
  body,
  query: fc.oneof(
    fc.constant(''),
    fc.constantFrom('?app_name=x', '?app_name=', '?app_name[]=1', '?app_name=a&app_name=b', '?%zz'),
  ),
  extraHeaders: fc.dictionary(
    fc.constantFrom('x-foo', 'accept', 'accept-encoding', 'last-event-id', 'origin'),
    fc.string({ unit: 'grapheme-ascii', maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, '')),
  ),
});

type Req = typeof requestArb extends fc.Arbitrary<infer T> ? T : never;

function build(r: Req) {
  const m = r.sameMethod ? r.route[0] : r.method;
  const path = `/open-api/${r.version}/rest/${r.route[1].replace('{sid}', r.sid)}${r.query}`;
  const headers: Record<string, string> = { ...r.extraHeaders };
  if (r.auth !== undefined) headers.authorization = r.auth;
  if (r.contentType !== undefined) headers['content-type'] = r.contentType;
  const payload = m === 'GET' || m === 'DELETE' || m === 'OPTIONS' ? undefined : r.body;
  return { method: m, path, headers, payload };
}

function assertEnvelope(method: string, status: number, contentTypeHeader: unknown, text: string, what: string) {
  if (method === 'OPTIONS') {
    // a CORS preflight: no body
    assert.equal(status, 204, what);
    return;
  }
  assert.ok(status === 200 || status === 404, `${what}: HTTP ${status} ${text}`);
  assert.match(String(contentTypeHeader), /^application\/json/, `${what}: content type`);
  const json = JSON.parse(text);
  assert.deepEqual(Object.keys(json).sort(), ['data', 'error', 'message'], `${what}: ${text}`);
  assert.ok(Number.isInteger(json.error) && json.error !== 500, `${what}: ${text}`);
  assert.ok([0, 400, 401, 404].includes(json.error), `${what}: ${text}`);
  assert.ok(json.data !== null && typeof json.data === 'object' && !Array.isArray(json.data));
  assert.equal(typeof json.message, 'string');
  if (status === 404) assert.equal(json.error, 404);
  if (json.error !== 0) assert.deepEqual(json.data, {});
}

it('every route answers any request with the envelope (in-process, 1500 runs)', async () => {
  await fc.assert(
    fc.asyncProperty(requestArb, async (r) => {
      const { method: m, path, headers, payload } = build(r);
      const res = await gw.gateway.app.inject({ method: m as 'GET', url: path, headers, payload });
      assertEnvelope(
        m,
        res.statusCode,
        res.headers['content-type'],
        res.body,
        `${m} ${path} ${JSON.stringify(headers)}`,
      );
    }),
    { numRuns: 1500 },
  );
  gw.gateway.speaker.stopPlayback();
  assert.deepEqual(serverErrors, []);
});

it('every route answers any request with the envelope (over HTTP on loopback, 300 runs)', async () => {
  await fc.assert(
    fc.asyncProperty(requestArb, async (r) => {
      const { method: m, path, headers, payload } = build(r);
      const res = await request(`${gw.url}${path}`, {
        method: m as 'GET',
        headers,
        body: payload,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      const text = await res.body.text();
      assertEnvelope(m, res.statusCode, res.headers['content-type'], text, `${m} ${path}`);
    }),
    { numRuns: 300 },
  );
  gw.gateway.speaker.stopPlayback();
  assert.deepEqual(serverErrors, []);
});

it('the event stream answers any bad token with 401 and the JSON body, never a stream or a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.string({ maxLength: 60 }),
      fc.constantFrom('v1', 'v2', 'V2'),
      fc.option(fc.string({ unit: 'grapheme-ascii', maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, ''))),
      async (tok, v, lastId) => {
        const headers: Record<string, string> = {};
        if (lastId !== null) headers['last-event-id'] = lastId;
        const res = await gw.gateway.app.inject({
          method: 'GET',
          url: `/open-api/${v}/sse/bridge?access_token=${encodeURIComponent(tok)}`,
          headers,
        });
        assert.equal(res.statusCode, 401);
        assert.deepEqual(res.json(), { error: 401, data: {}, message: 'invalid access_token' });
      },
    ),
    { numRuns: 200 },
  );
});
