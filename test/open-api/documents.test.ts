/**
 * The OpenAPI and AsyncAPI documents: generated from the declarations, served by the gateway, kept
 * fresh in docs/, complete both ways (every served route is documented, every documented route is
 * served), valid JSON Schema throughout, and true to real answers: a walk over the API validates
 * what the gateway answers against the documented schemas.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { asyncApiJson, type Contributed, openApiJson } from '../../src/http/open-api/documents.ts';
import type { AnswerCheck } from '../../src/http/open-api/route.ts';
import { servedRoutes } from '../../src/http/server.ts';
import { documented as integrationDocs } from '../../src/integrations/load.ts';
import { call, rest, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { endpoint, sendEvent, startService } from '../helpers/thirdparty.ts';

// CommonJS modules: their default export is under `default` when loaded from ESM.
const Ajv2020 = (Ajv2020Module as unknown as { default: typeof Ajv2020Module.default }).default;
const addFormats = (addFormatsModule as unknown as { default: typeof addFormatsModule.default }).default;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

let g: TestGateway;
let token: string;
const answerCheck: AnswerCheck = { violations: [] };
let doc: any;
let contributed: Contributed;

before(async () => {
  contributed = await integrationDocs();
  g = await startGateway({ gatewayOptions: { answerCheck } });
  token = g.token('docs');
  doc = (await call(g.url, 'GET', '/open-api/openapi.json')).json;
});
after(() => g?.stop());

/** Every JSON Schema in the document, with where it is. */
function schemasOf(node: unknown, path: string, out: [string, object][] = []): [string, object][] {
  if (Array.isArray(node)) {
    for (const [i, n] of node.entries()) schemasOf(n, `${path}/${i}`, out);
  } else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'schema' || k === 'payload') out.push([`${path}/${k}`, v as object]);
      else schemasOf(v, `${path}/${k}`, out);
    }
  }
  return out;
}

describe('the OpenAPI document', () => {
  it('is served at /open-api/openapi.json and is the one in docs/openapi.json (run npm run docs)', () => {
    assert.equal(readFileSync('docs/openapi.json', 'utf8'), openApiJson(contributed));
    assert.deepEqual(doc, JSON.parse(openApiJson(contributed)));
    assert.equal(doc.openapi, '3.1.0');
  });

  it('documents every route the gateway serves under /open-api, and every documented route is served', () => {
    const served = new Set(
      servedRoutes(g.gateway.app)
        .filter((r) => /^\/open-api\/v\d\/(rest|sse)\//.test(r.url) && r.method !== 'HEAD')
        .map((r) => `${r.method} ${r.url.replace(/:([^/]+)/g, '{$1}')}`),
    );
    const documented = new Set<string>();
    for (const [path, item] of Object.entries<any>(doc.paths))
      for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`);
    assert.deepEqual(
      [...served].filter((r) => !documented.has(r)),
      [],
      'served but not documented',
    );
    assert.deepEqual(
      [...documented].filter((r) => !served.has(r)),
      [],
      'documented but not served',
    );
    assert.ok(documented.size > 50);
  });

  it('names the spec id, the error codes and the auth of every operation', () => {
    const ids = new Set<string>();
    for (const item of Object.values<any>(doc.paths))
      for (const op of Object.values<any>(item)) {
        assert.ok(op['x-spec-id'], op.operationId);
        ids.add(op['x-spec-id']);
        assert.ok(Array.isArray(op.security), op.operationId);
        assert.ok(op.responses['200'], op.operationId);
      }
    for (const id of ['G1', 'G2', 'G3', 'G4', 'G5', 'G6', 'G7', 'G8', 'G9', 'D1', 'D2', 'D3', 'D4', 'D5', 'D6'])
      assert.ok(ids.has(id), id);
    for (const id of ['S1', 'S2', 'S3', 'S4', 'S5', 'T1', 'T3', 'SSE']) assert.ok(ids.has(id), id);
    const d4 = doc.paths['/open-api/v2/rest/devices/{serial_number}'].put;
    assert.deepEqual(
      d4['x-error-codes'].map((e: any) => e.code),
      [400, 401, 110000, 110005, 110006, 110019, 110024, 110014],
    );
  });

  it('holds only valid JSON Schemas (draft 2020-12)', () => {
    const all = schemasOf(doc, '#');
    assert.ok(all.length > 100);
    // A named schema (the automations') is given once in components and referred to with $ref.
    for (const [where, schema] of all)
      assert.doesNotThrow(() => ajv.compile({ ...schema, components: doc.components }), where);
  });
});

describe('real answers against the documented schemas', () => {
  /** The documented success schema of an operation (the envelope branch of its 200 answer). */
  const successSchema = (path: string, method: string) => {
    const schema = doc.paths[path][method].responses['200'].content['application/json'].schema;
    return schema.oneOf ? schema.oneOf[0] : schema;
  };
  const check = (path: string, method: string, body: unknown) => {
    const validate = ajv.compile({ ...successSchema(path, method), components: doc.components });
    assert.ok(
      validate(body),
      `${method} ${path}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
    );
  };

  it('match for a walk over the API, and the gateway saw no answer outside its declarations', async () => {
    const svc = await startService();
    const sync = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [endpoint('doc-1', svc.url, { tags: { room: 'hall' } })],
    });
    const serial = sync.json.payload.endpoints[0].serial_number as string;
    const get = async (v: string, p: string) => {
      const r = await call(g.url, 'GET', rest(v, p), { token });
      assert.equal(r.json.error, 0, r.text);
      return r.json;
    };
    for (const v of ['v1', 'v2']) {
      check(`/open-api/${v}/rest/bridge`, 'get', await get(v, 'bridge'));
      check(`/open-api/${v}/rest/bridge/runtime`, 'get', await get(v, 'bridge/runtime'));
      check(`/open-api/${v}/rest/devices`, 'get', await get(v, 'devices'));
      check(`/open-api/${v}/rest/security`, 'get', await get(v, 'security'));
      check(`/open-api/${v}/rest/tts/engines`, 'get', await get(v, 'tts/engines'));
    }
    const put = await call(g.url, 'PUT', rest('v2', `devices/${serial}`), { token, body: { name: 'Documented' } });
    check('/open-api/v2/rest/devices/{serial_number}', 'put', put.json);
    g.gateway.tokens.press();
    const grant = await call(g.url, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=docs-walk`);
    check('/open-api/v2/rest/bridge/access_token', 'get', grant.json);
    g.gateway.tokens.closeWindow();
    await svc.close();
    assert.deepEqual(answerCheck.violations, []);
  });
});

describe('the AsyncAPI document', () => {
  it('is served at /open-api/asyncapi.json and is the one in docs/asyncapi.json (run npm run docs)', async () => {
    assert.equal(readFileSync('docs/asyncapi.json', 'utf8'), asyncApiJson(contributed));
    const served = (await call(g.url, 'GET', '/open-api/asyncapi.json')).json;
    assert.deepEqual(served, JSON.parse(asyncApiJson(contributed)));
    assert.equal(served.asyncapi, '3.0.0');
  });

  it("declares every Open API event with a valid payload schema, and no event of the gateway's own", () => {
    const a = JSON.parse(asyncApiJson(contributed));
    const names = Object.values<any>(a.components.messages).map((m) => m.name);
    for (const n of ['addDevice', 'updateDeviceState', 'updateDeviceInfo', 'updateDeviceOnline', 'deleteDevice'])
      assert.ok(names.includes(`device#{version}#${n}`), n);
    assert.ok(names.includes('security#{version}#updateArmState'));
    assert.ok(names.includes('bridge#{version}#updateAlarmState'));
    assert.ok(!names.some((n) => n.startsWith('link#') || n.startsWith('token#')));
    for (const m of Object.values<any>(a.components.messages))
      assert.doesNotThrow(() => ajv.compile(m.payload), m.name);
  });
});
