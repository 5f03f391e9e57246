/**
 * Property: whatever body a client sends to the TTS and media routes, it gets the envelope with a
 * clear error (or success), never a 500 "server exception", never a crash; the only URLs fetched
 * point at 127.0.0.1. And whatever text the built-in engine is given, it answers a value.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { ClipStore } from '../../src/core/tts/clip-store.ts';
import { EspeakEngine } from '../../src/core/tts/espeak.ts';
import { type AudioGateway, startAudioGateway } from '../helpers/audio.ts';
import { call, rest } from '../helpers/foundation.ts';
import { mutate } from '../helpers/fuzz.ts';
import { type FakeEngine, startTtsEngine } from '../helpers/tts-engine.ts';

let g: AudioGateway;
let engine: FakeEngine;
let token: string;
let id: string;
const serverErrors: unknown[] = [];

before(async () => {
  const log = pino({ level: 'error' }, { write: (line: string) => serverErrors.push(JSON.parse(line)) });
  // No built-in engine here (each synthesis is a process); it is fuzzed on its own below.
  g = await startAudioGateway({
    overrides: { audio: { tts_builtin: 'off', media_timeout_ms: 500, beeps: { boot_complete: false } } },
    gatewayOptions: { log },
  });
  engine = await startTtsEngine();
  token = g.token();
  id = await engine.register(g, token);
});
after(async () => {
  await g.stop();
  await engine.close();
});

const value = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', 'en-US', 'xx', '\u0000', 'a'.repeat(3000), -1, 0, 50, 100, 101, 1.5, null, true),
);
const localUrl = fc.oneof(
  fc.constant('tone.wav').map(() => `${engine.base}/_audio/welcome.wav`),
  fc.string({ maxLength: 20 }).map((p) => `http://127.0.0.1:1/${encodeURIComponent(p)}`),
  fc.string({ maxLength: 20 }).map((p) => `${engine.base}/${encodeURIComponent(p)}`),
  fc.constantFrom(
    'file:///etc/passwd',
    'ftp://127.0.0.1/a',
    'data:audio/wav;base64,UklGRg==',
    'http://',
    'nonsense',
    '',
  ),
);
const bodies = {
  speak: { text: 'hello', engine: 'ID', language: 'en-US', volume: 50 },
  synthesize: { text: 'hello', label: 'l', language: 'en-US' },
  player: { audio_url: 'URL', volume: 50 },
};

const request = fc.record({
  route: fc.constantFrom('speak', 'synthesize', 'player', 'audio-list', 'voices'),
  engine: fc.oneof(fc.constant('ID'), fc.constant('nope'), fc.string({ maxLength: 10 })),
  url: localUrl,
  path: fc.array(fc.nat(), { maxLength: 3 }),
  replace: value,
  raw: fc.oneof(fc.constant(undefined), fc.constantFrom('', '{', '[]', 'null', '"x"', '{"text":')),
});

test('every TTS and media route answers any body with the envelope (300 runs)', async () => {
  await fc.assert(
    fc.asyncProperty(request, async (r) => {
      const engineId = r.engine === 'ID' ? id : encodeURIComponent(r.engine) || 'x';
      const fill = (b: object) =>
        JSON.parse(JSON.stringify(b).replace('"ID"', JSON.stringify(engineId)).replace('"URL"', JSON.stringify(r.url)));
      let method = 'POST';
      let path: string;
      let body: unknown;
      switch (r.route) {
        case 'speak':
          path = 'tts/speak';
          body = mutate(fill(bodies.speak), r.path, r.replace);
          break;
        case 'synthesize':
          path = `tts/engine/${engineId}/synthesize`;
          body = mutate(fill(bodies.synthesize), r.path, r.replace);
          break;
        case 'player':
          path = 'media/audio-player';
          body = mutate(fill(bodies.player), r.path, r.replace);
          break;
        default:
          method = 'GET';
          path = `tts/engine/${engineId}/${r.route}`;
      }
      const res = await call(g.url, method, rest('v2', path), {
        token,
        body: method === 'GET' ? undefined : (r.raw ?? body),
      });
      // An engine id of `.` or `..` makes another path (`tts/engine/./voices` is `tts/engine/voices`):
      // an unknown path is HTTP 404 with the envelope (docs/api.md); everything else is HTTP 200.
      if (res.status === 404) assert.equal(res.json?.error, 404, res.text);
      else assert.equal(res.status, 200, res.text);
      assert.equal(typeof res.json?.error, 'number', res.text);
      assert.notEqual(res.json.message, 'server exception', `${method} ${path} ${JSON.stringify(body)}`);
      if (res.json.error !== 0) assert.deepEqual(res.json.data, {});
      g.gateway.audio.stop();
    }),
    { numRuns: 300 },
  );
  assert.deepEqual(serverErrors, []);
});

test('the built-in engine answers any text with audio or a reason (40 runs)', async () => {
  const espeak = new EspeakEngine({ backend: 'wasm', store: new ClipStore() });
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.string({ maxLength: 80 }),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.constantFrom('', '   ', '-v xx', '--help', '<speak>x</speak>', '[[h@l@U]]', '\u0000\u0001', '🔥'.repeat(30)),
      ),
      fc.option(fc.constantFrom('en', 'en-US', 'de', 'fr-FR', 'zh', 'xx', 'en_GB'), { nil: undefined }),
      async (text, language) => {
        const r = await espeak.speak(text, language);
        if (r.ok) assert.ok(r.value.samples.length >= 0);
        else assert.ok(['invalid', 'failed'].includes(r.kind) && r.message.length > 0, r.message);
      },
    ),
    { numRuns: 40 },
  );
});
