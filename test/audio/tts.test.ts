/**
 * Text to speech end to end: an engine service on 127.0.0.1 that behaves as the public TTS add-on
 * does, the gateway's directives to it and its REST side (audio list, synthesis, speaking, playing
 * the result), an engine that does not answer, and the built-in eSpeak NG speaking into the
 * recording sink.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dominantHz, rmsOf } from '../../src/core/audio/measure.ts';
import { durationMs } from '../../src/core/audio/pcm.ts';
import { scalePcm } from '../../src/core/audio/volume.ts';
import { decodeWav } from '../../src/core/audio/wav.ts';
import { ClipStore } from '../../src/core/tts/clip-store.ts';
import { EspeakEngine } from '../../src/core/tts/espeak.ts';
import { onPath } from '../../src/drivers/audio/select.ts';
import { type AudioGateway, startAudioGateway } from '../helpers/audio.ts';
import { advanceUntil } from '../helpers/clock.ts';
import { call, eventually, rest } from '../helpers/foundation.ts';
import { type FakeEngine, fakeSpeech, startTtsEngine } from '../helpers/tts-engine.ts';

const BUILTIN = { id: 'espeak-ng', name: 'eSpeak NG (built-in)' };

describe('a registered engine (the TTS add-on)', () => {
  let g: AudioGateway;
  let engine: FakeEngine;
  let token: string;
  let id: string;
  before(async () => {
    g = await startAudioGateway({ overrides: { audio: { beeps: { boot_complete: false } } } });
    engine = await startTtsEngine();
    token = await g.linkToken('tts-addon');
    id = await engine.register(g, token);
  });
  after(async () => {
    await g.stop();
    await engine.close();
  });
  const get = (path: string, v = 'v2') => call(g.url, 'GET', rest(v, path), { token });
  const post = (path: string, body: unknown, v = 'v2') => call(g.url, 'POST', rest(v, path), { token, body });

  test('is listed with the built-in engine', async () => {
    for (const v of ['v1', 'v2']) {
      const r = await get('tts/engines', v);
      assert.deepEqual(r.json.data.engines, [{ id, name: 'TTS addon' }, BUILTIN]);
    }
  });

  test('GET tts/engine/{id}/audio-list sends SyncTTSAudioList and answers data.audio_list, unusable items left out', async () => {
    for (const v of ['v1', 'v2']) {
      engine.directives.length = 0;
      const r = await get(`tts/engine/${id}/audio-list`, v);
      assert.equal(r.json.error, 0, r.text);
      assert.deepEqual(r.json.data.audio_list, [{ url: `${engine.base}/_audio/welcome.wav`, label: 'Welcome home' }]);
      const d = engine.directives[0].directive;
      assert.deepEqual(
        [d.header.name, d.header.version, d.payload, 'endpoint' in d],
        ['SyncTTSAudioList', '1', {}, false],
      );
    }
  });

  test('POST tts/engine/{id}/synthesize sends SynthesizeSpeech and answers data.audio; media/audio-player plays it', async () => {
    engine.directives.length = 0;
    const body = { text: 'The garage door is open', label: 'garage', language: 'en-US' };
    const r = await post(`tts/engine/${id}/synthesize`, body, 'v1');
    assert.equal(r.json.error, 0, r.text);
    assert.deepEqual(Object.keys(r.json.data), ['audio']);
    assert.equal(r.json.data.audio.label, 'garage');
    assert.match(r.json.data.audio.url, /^http:\/\/127\.0\.0\.1:\d+\/_audio\/.+\.wav$/);
    assert.deepEqual(engine.directives[0].directive.payload, body);

    const played = await post('media/audio-player', { audio_url: r.json.data.audio.url }, 'v1');
    assert.equal(played.json.error, 0, played.text);
    const rec = g.sink.plays.at(-1)!;
    assert.equal(rec.layer, 'media');
    assert.deepEqual(
      rec.pcm.samples,
      scalePcm(decodeWav(fakeSpeech(body.text)), 0.5).samples,
      "the engine's audio at volume 50",
    );
  });

  test('POST tts/speak with the engine synthesises, fetches and plays it as speech in one call', async () => {
    const text = 'Someone is at the front door';
    const r = await post('tts/speak', { text, engine: id, volume: 40 });
    assert.equal(r.json.error, 0, r.text);
    assert.equal(r.json.data.engine, id);
    const expected = decodeWav(fakeSpeech(text));
    assert.equal(r.json.data.duration_ms, Math.round(durationMs(expected)));
    const rec = g.sink.plays.at(-1)!;
    assert.deepEqual([rec.layer, rec.gain], ['speech', 0.5 * 0.4]);
    assert.deepEqual(rec.pcm.samples, scalePcm(expected, 0.2).samples);
    g.clock.advance(r.json.data.duration_ms + 1);
    assert.equal(g.sink.playing(), undefined, 'speech plays once');
  });

  test('an engine answering ErrorResponse gives 110019 with its error type', async (t) => {
    engine.mode = 'error';
    t.after(() => {
      engine.mode = 'normal';
    });
    const r = await post(`tts/engine/${id}/synthesize`, { text: 'x' });
    assert.deepEqual(
      [r.json.error, r.json.message],
      [110019, 'engine TTS addon answered INTERNAL_ERROR (synthesis failed)'],
    );
    const l = await get(`tts/engine/${id}/audio-list`);
    assert.equal(l.json.error, 110019);
  });

  test('replies that are not the documented shape are 110019 errors that say so', async (t) => {
    t.after(() => {
      engine.mode = 'normal';
    });
    engine.mode = 'no-audio';
    const s = await post(`tts/engine/${id}/synthesize`, { text: 'x' });
    assert.deepEqual(
      [s.json.error, s.json.message],
      [110019, 'engine TTS addon: the reply has no audio.url (http or https)'],
    );
    engine.mode = 'bad-list';
    const l = await get(`tts/engine/${id}/audio-list`);
    assert.deepEqual([l.json.error, l.json.message], [110019, 'engine TTS addon: the reply has no audio_list array']);
  });

  test('speech whose audio cannot be fetched is an error naming the audio URL', async (t) => {
    engine.mode = 'dead-audio';
    t.after(() => {
      engine.mode = 'normal';
    });
    const r = await post('tts/speak', { text: 'lost', engine: id });
    assert.equal(r.json.error, 110019, r.text);
    assert.match(r.json.message, /audio http:\/\/127\.0\.0\.1:\d+\/_audio\/.+\.wav: the audio could not be fetched/);
  });

  test("an engine that does not answer gives its error when the spec's 3 s run out, inside the 5 s clients wait", async (t) => {
    engine.mode = 'silent';
    t.after(() => {
      engine.mode = 'normal';
    });
    const before = engine.directives.length;
    const all = Promise.all([
      post(`tts/engine/${id}/synthesize`, { text: 'hello' }),
      get(`tts/engine/${id}/audio-list`),
      post('tts/speak', { text: 'hello', engine: id }),
    ]);
    // The gateway's clock is moved by hand once the three directives are out: they wait on it, not on real time.
    await eventually(() => engine.directives.length === before + 3, 5000, 'the three directives');
    const { value, elapsedMs } = await advanceUntil(g.clock, all, { stepMs: 100 });
    assert.equal(elapsedMs, 3000);
    for (const r of value) {
      assert.equal(r.json.error, 110019, r.text);
      assert.match(
        r.json.message,
        /failed to access the TTS engine's service address: engine TTS addon: the service could not be reached or answered badly$/,
      );
    }
  });

  const bad: [string, string, unknown, RegExp][] = [
    ['an unknown engine', 'tts/engine/nope/synthesize', { text: 'x' }, /^engine: no TTS engine has id "nope"$/],
    ['no text', 'tts/engine/{id}/synthesize', {}, /^text: required$/],
    ['an empty text', 'tts/engine/{id}/synthesize', { text: '   ' }, /^text: " {3}" is not a non-empty text$/],
    ['a number as text', 'tts/speak', { text: 5 }, /^text: expected a string, got 5$/],
    ['a text of 2001 characters', 'tts/speak', { text: 'a'.repeat(2001) }, /^text: longer than 2000 characters$/],
    [
      'a label that is not a string',
      'tts/engine/{id}/synthesize',
      { text: 'x', label: [] },
      /^label: expected a string, got an array$/,
    ],
    [
      'a language with spaces',
      'tts/speak',
      { text: 'x', language: 'en US' },
      /^language: "en US" is not a language tag/,
    ],
    ['a volume of 200', 'tts/speak', { text: 'x', volume: 200 }, /^volume: 200 is above max 100$/],
    ['an engine id that is not a string', 'tts/speak', { text: 'x', engine: 1 }, /^engine: expected a string, got 1$/],
    ['a body that is not an object', 'tts/speak', [1], /body/],
  ];
  for (const [what, path, body, message] of bad) {
    test(`${what} is refused with 400 and sends no directive`, async () => {
      engine.directives.length = 0;
      const r = await post(path.replace('{id}', id), body);
      assert.equal(r.json.error, 400, r.text);
      assert.match(r.json.message, message);
      assert.equal(engine.directives.length, 0);
    });
  }

  test('without a token nothing is answered', async () => {
    const r = await call(g.url, 'GET', rest('v2', `tts/engine/${id}/audio-list`));
    assert.equal(r.json.error, 401);
  });
});

describe('the built-in engine (eSpeak NG)', () => {
  let g: AudioGateway;
  let token: string;
  before(async () => {
    g = await startAudioGateway({ overrides: { audio: { beeps: { boot_complete: false } } } });
    token = g.token();
  });
  after(() => g.stop());
  const post = (path: string, body: unknown) => call(g.url, 'POST', rest('v2', path), { token, body });

  test('is listed on a fresh gateway, with its voices', async () => {
    assert.deepEqual((await call(g.url, 'GET', rest('v1', 'tts/engines'), { token })).json.data.engines, [BUILTIN]);
    const r = await call(g.url, 'GET', rest('v2', 'tts/engine/espeak-ng/voices'), { token });
    const ids = r.json.data.voices.map((v: { id: string }) => v.id);
    assert.ok(r.json.data.voices.length > 50, `${r.json.data.voices.length} voices`);
    for (const lang of ['en-us', 'en-gb', 'de', 'fr-fr', 'es']) assert.ok(ids.includes(lang), lang);
    assert.deepEqual(
      r.json.data.voices.find((v: { id: string }) => v.id === 'en-us'),
      { id: 'en-us', name: 'English (America)', language: 'en-us' },
    );
  });

  test('speaks a sentence into the sink: speech, not silence, of a plausible length', async () => {
    const r = await post('tts/speak', { text: 'The front door has been open for ten minutes.' });
    assert.equal(r.json.error, 0, r.text);
    assert.equal(r.json.data.engine, 'espeak-ng');
    const rec = g.sink.plays.at(-1)!;
    assert.deepEqual([rec.layer, rec.name], ['speech', 'tts:espeak-ng']);
    const seconds = durationMs(rec.pcm) / 1000;
    assert.ok(seconds > 1.5 && seconds < 6, `${seconds} s for 9 words`);
    assert.ok(rmsOf(rec.pcm.samples) > 0.02, `RMS ${rmsOf(rec.pcm.samples)}`);
    const hz = dominantHz(rec.pcm);
    assert.ok(hz > 70 && hz < 3000, `dominant ${hz} Hz, in the range of a voice`);
    // Speech has pauses between words: a good share of 20 ms frames are much quieter than the loudest.
    const frames = Math.floor(rec.pcm.samples.length / 441);
    const loud = Array.from({ length: frames }, (_, i) => rmsOf(rec.pcm.samples.subarray(i * 441, (i + 1) * 441)));
    const max = Math.max(...loud);
    assert.ok(loud.filter((x) => x < max / 10).length > frames / 10, 'pauses between words');
  });

  test('synthesize answers a URL the gateway serves without a token, lists it, and plays it through media/audio-player', async () => {
    const r = await post('tts/engine/espeak-ng/synthesize', {
      text: 'Good morning',
      label: 'morning',
      language: 'en-GB',
    });
    assert.equal(r.json.error, 0, r.text);
    const { url, label } = r.json.data.audio;
    assert.equal(label, 'morning');
    assert.match(url, new RegExp(`^${g.url}/open-api/v1/rest/tts/audio/[0-9a-f]{32}\\.wav$`));
    const wav = await fetch(url);
    assert.equal(wav.headers.get('content-type'), 'audio/wav');
    const pcm = decodeWav(Buffer.from(await wav.arrayBuffer()));
    assert.ok(durationMs(pcm) > 400);

    const list = await call(g.url, 'GET', rest('v2', 'tts/engine/espeak-ng/audio-list'), { token });
    assert.deepEqual(list.json.data.audio_list[0], { url, label: 'morning' });

    const played = await post('media/audio-player', { audio_url: url });
    assert.equal(played.json.error, 0, played.text);
    assert.deepEqual(g.sink.plays.at(-1)!.pcm.samples, scalePcm(pcm, 0.5).samples);
  });

  test('speaks other languages by their tag, and says when it has no voice for one', async () => {
    const de = await post('tts/speak', { text: 'Die Haustür ist offen.', language: 'de-DE' });
    assert.equal(de.json.error, 0, de.text);
    const none = await post('tts/speak', { text: 'x', language: 'xx-YY' });
    assert.deepEqual([none.json.error, none.json.message], [400, 'language: eSpeak NG has no voice for "xx-YY"']);
  });

  test('text that looks like options or markup is spoken, not obeyed', async () => {
    const r = await post('tts/speak', { text: '-w /tmp/owned.wav --voices <speak>hello</speak>' });
    assert.equal(r.json.error, 0, r.text);
    assert.ok(rmsOf(g.sink.plays.at(-1)!.pcm.samples) > 0.02);
  });

  test('an audio file it does not have is a 404', async () => {
    const r = await call(g.url, 'GET', rest('v1', `tts/audio/${'0'.repeat(32)}.wav`));
    assert.equal(r.status, 404);
    assert.equal(r.json.error, 404);
  });

  test("Debian's espeak-ng program works as the engine too", {
    skip: onPath('espeak-ng') ? false : "Debian's espeak-ng is not installed (apt-get install espeak-ng)",
  }, async () => {
    const engine = new EspeakEngine({ backend: 'system', store: new ClipStore() });
    const r = await engine.speak('Hello from the system voice.', 'en-us');
    assert.ok(r.ok, r.ok ? '' : r.message);
    assert.ok(rmsOf(r.value.samples) > 0.02);
    assert.ok((await engine.voices()).some((v) => v.id === 'en-us'));
  });
});
