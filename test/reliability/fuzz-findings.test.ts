/**
 * What `npm run fuzz` found, kept found: each finding as the smallest request that showed it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, startGateway, type TestGateway } from '../helpers/foundation.ts';

describe('findings of the fuzzer', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => gw.stop());

  for (const method of ['POST', 'PUT', 'DELETE'])
    it(`a body over the limit sent with ${method} to a path outside the API gets the 404 envelope, not Fastify's own body`, async () => {
      const r = await call(gw.url, method, '/nowhere', { body: 'x'.repeat(2_000_000) });
      assert.equal(r.status, 404);
      assert.deepEqual(r.json, { error: 404, data: {}, message: `not found: ${method} /nowhere` });
    });

  it('a body over the limit sent with a method the API does not serve on a path it serves gets the 404 envelope', async () => {
    const r = await call(gw.url, 'PATCH', '/open-api/v1/rest/thirdparty/event', { body: 'x'.repeat(2_000_000) });
    assert.equal(r.status, 404);
    assert.deepEqual(r.json, { error: 404, data: {}, message: 'not found: PATCH /open-api/v1/rest/thirdparty/event' });
  });
});
