/**
 * What a user sees at start: the banner says where the gateway listens, so Fastify's own
 * "Server listening at" lines (one per address) are not repeated at info; they stay at debug.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { buildServer } from '../../src/http/server.ts';

function recordingLog(level: string) {
  const lines: { level: number; msg: string }[] = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { log: pino({ level }, out), lines };
}

test('Fastify\'s "Server listening at" line is at debug, not info; other info lines still pass', async () => {
  const { log, lines } = recordingLog('info');
  const app = buildServer(log, []);
  await app.listen({ port: 0, host: '127.0.0.1' });
  app.log.info('an info line through Fastify');
  await app.close();
  assert.deepEqual(
    lines.map((l) => l.msg),
    ['an info line through Fastify'],
  );

  const debug = recordingLog('debug');
  const app2 = buildServer(debug.log, []);
  await app2.listen({ port: 0, host: '127.0.0.1' });
  await app2.close();
  assert.ok(
    debug.lines.some((l) => l.level === 20 && l.msg.startsWith('Server listening at http://127.0.0.1:')),
    JSON.stringify(debug.lines),
  );
});
