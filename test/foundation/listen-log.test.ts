/**
 * What a user sees at start: the banner says where the gateway listens, so Fastify's own
 * "Server listening at" lines (one per address) are not repeated at info; they stay at debug.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildServer } from '../../src/http/server.ts';
import { recordingLog } from '../helpers/log.ts';

/** The lines a recording logger kept, parsed. */
const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as { level: number; msg: string });

test('Fastify\'s "Server listening at" line is at debug, not info; other info lines still pass', async () => {
  const { log, lines } = recordingLog('info');
  const app = buildServer(log, []);
  await app.listen({ port: 0, host: '127.0.0.1' });
  app.log.info('an info line through Fastify');
  await app.close();
  assert.deepEqual(
    parsed(lines).map((l) => l.msg),
    ['an info line through Fastify'],
  );

  const debug = recordingLog('debug');
  const app2 = buildServer(debug.log, []);
  await app2.listen({ port: 0, host: '127.0.0.1' });
  await app2.close();
  assert.ok(
    parsed(debug.lines).some((l) => l.level === 20 && l.msg.startsWith('Server listening at http://127.0.0.1:')),
    JSON.stringify(debug.lines),
  );
});
