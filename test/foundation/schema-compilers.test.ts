/**
 * Fastify's own schema compilers (ajv, fast-json-stringify) are not loaded at start, since no
 * route of the gateway declares a Fastify schema; a route that does still gets them, loaded then.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildServer } from '../../src/http/server.ts';
import { recordingLog } from '../helpers/log.ts';

test('a route with a Fastify schema is validated and serialized by the compilers loaded on demand', async () => {
  const app = buildServer(recordingLog('error').log, [
    {
      prefix: '/x',
      plugin: async (scope) => {
        scope.post(
          '/n',
          {
            schema: {
              body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
              response: { 200: { type: 'object', properties: { twice: { type: 'integer' } } } },
            },
          },
          async (req) => ({ twice: (req.body as { n: number }).n * 2, dropped: 'by the serializer' }),
        );
      },
    },
  ]);
  const good = await app.inject({ method: 'POST', url: '/x/n', payload: { n: 21 } });
  assert.deepEqual([good.statusCode, good.json()], [200, { twice: 42 }]);
  const bad = await app.inject({ method: 'POST', url: '/x/n', payload: { n: 'many' } });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.json().message, /n.*integer/);
  await app.close();
});
