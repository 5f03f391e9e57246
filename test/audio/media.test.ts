/**
 * Audio by URL: WAV in its many forms and MP3 decoded to the gateway's format, bad bytes refused
 * with a reason, and `POST media/audio-player` fetching from a server on 127.0.0.1 within its limits.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { decodeAudio } from '../../src/core/audio/decode.ts';
import { dominantHz, rmsOf } from '../../src/core/audio/measure.ts';
import { durationMs, SAMPLE_RATE } from '../../src/core/audio/pcm.ts';
import { AudioFormatError, decodeWav, encodeWav } from '../../src/core/audio/wav.ts';
import { type AudioGateway, sine, startAudioGateway } from '../helpers/audio.ts';
import { advanceUntil } from '../helpers/clock.ts';
import { call, rest } from '../helpers/foundation.ts';

const MP3 = readFileSync(new URL('../fixtures/audio/tone-440hz-stereo-44k.mp3', import.meta.url));

/** A WAV with any layout, its samples computed from `f(t)` in -1..1. */
function wav(
  opts: { rate?: number; channels?: number; bits?: number; float?: boolean; extensible?: boolean; ms?: number },
  f = (t: number) => 0.5 * Math.sin(2 * Math.PI * 440 * t),
) {
  const { rate = 44100, channels = 1, bits = 16, float = false, extensible = false, ms = 500 } = opts;
  const frames = Math.round((rate * ms) / 1000);
  const bytes = bits / 8;
  const data = Buffer.alloc(frames * channels * bytes);
  for (let i = 0; i < frames; i++) {
    const v = f(i / rate);
    for (let c = 0; c < channels; c++) {
      const at = (i * channels + c) * bytes;
      if (float) bits === 32 ? data.writeFloatLE(v, at) : data.writeDoubleLE(v, at);
      else if (bits === 8) data[at] = Math.round(v * 127 + 128);
      else if (bits === 16) data.writeInt16LE(Math.round(v * 32767), at);
      else if (bits === 24) data.writeIntLE(Math.round(v * 8388607), at, 3);
      else data.writeInt32LE(Math.round(v * 2147483647), at);
    }
  }
  const fmtSize = extensible ? 40 : 16;
  const fmt = Buffer.alloc(8 + fmtSize);
  fmt.write('fmt ', 0);
  fmt.writeUInt32LE(fmtSize, 4);
  fmt.writeUInt16LE(extensible ? 0xfffe : float ? 3 : 1, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(rate, 12);
  fmt.writeUInt32LE(rate * channels * bytes, 16);
  fmt.writeUInt16LE(channels * bytes, 20);
  fmt.writeUInt16LE(bits, 22);
  if (extensible) {
    fmt.writeUInt16LE(22, 24);
    fmt.writeUInt16LE(bits, 26);
    fmt.writeUInt16LE(float ? 3 : 1, 32);
  }
  const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([5, 0, 0, 0]), Buffer.from('INFOx'), Buffer.from([0])]);
  const head = Buffer.concat([
    Buffer.from('RIFF'),
    Buffer.alloc(4),
    Buffer.from('WAVE'),
    fmt,
    list,
    Buffer.from('data'),
    Buffer.alloc(4),
  ]);
  head.writeUInt32LE(head.length - 8 + data.length, 4);
  head.writeUInt32LE(data.length, head.length - 4);
  return Buffer.concat([head, data]);
}

describe('decoding', () => {
  const forms: [string, Parameters<typeof wav>[0]][] = [
    ['16-bit mono 44.1 kHz', {}],
    ['8-bit mono 8 kHz', { bits: 8, rate: 8000 }],
    ['24-bit stereo 48 kHz', { bits: 24, channels: 2, rate: 48000 }],
    ['32-bit integer stereo', { bits: 32, channels: 2 }],
    ['32-bit float mono 16 kHz', { bits: 32, float: true, rate: 16000 }],
    ['64-bit float', { bits: 64, float: true }],
    ['WAVE_FORMAT_EXTENSIBLE 6 channels', { channels: 6, extensible: true }],
  ];
  for (const [what, opts] of forms) {
    test(`a WAV of ${what} becomes 440 Hz mono at ${SAMPLE_RATE} Hz, same length and loudness`, async () => {
      const pcm = await decodeAudio(wav(opts));
      assert.equal(pcm.rate, SAMPLE_RATE);
      assert.ok(Math.abs(durationMs(pcm) - 500) < 1, `${durationMs(pcm)} ms`);
      assert.ok(Math.abs(dominantHz(pcm) - 440) < 3, `${dominantHz(pcm)} Hz`);
      assert.ok(Math.abs(rmsOf(pcm.samples) - 0.5 / Math.SQRT2) < 0.01, `RMS ${rmsOf(pcm.samples)}`);
    });
  }

  test('channels are mixed down: opposite channels cancel out', async () => {
    const b = wav({ channels: 2 }, () => 0);
    // Left +0.5, right -0.5 in every frame of the data (the file's last bytes).
    const data = b.subarray(b.length - Math.round(44100 * 0.5) * 4);
    for (let i = 0; i < data.length; i += 4) {
      data.writeInt16LE(16000, i);
      data.writeInt16LE(-16000, i + 2);
    }
    assert.equal(rmsOf((await decodeAudio(b)).samples), 0);
  });

  test('a streamed WAV whose data size says "unknown" is read to its end', async () => {
    const b = encodeWav(sine(300, 200));
    b.writeUInt32LE(0xffffffff, 40);
    assert.equal(durationMs(decodeWav(b)), 200);
  });

  test('an MP3 (44.1 kHz stereo, from LAME) decodes to one second of 440 Hz', async () => {
    const pcm = await decodeAudio(MP3);
    assert.equal(pcm.rate, SAMPLE_RATE);
    assert.ok(Math.abs(durationMs(pcm) - 1000) < 60, `${durationMs(pcm)} ms`);
    assert.ok(Math.abs(dominantHz(pcm) - 440) < 3, `${dominantHz(pcm)} Hz`);
    assert.ok(Math.abs(rmsOf(pcm.samples) - 12000 / 32768 / Math.SQRT2) < 0.02, `RMS ${rmsOf(pcm.samples)}`);
  });

  test('decoding keeps at most the longest audio allowed', async () => {
    assert.equal(durationMs(await decodeAudio(wav({ ms: 3000 }), 1)), 1000);
    assert.ok(durationMs(await decodeAudio(MP3, 0.5)) <= 500);
  });

  const good = encodeWav(sine(440, 100));
  const bad: [string, Buffer, RegExp][] = [
    // Never the bytes themselves: they may be any page of the network (test/security/fetches.test.ts).
    ['nothing', Buffer.alloc(0), /^not WAV or MP3 audio$/],
    ['text', Buffer.from('<html>not found</html>'), /^not WAV or MP3 audio$/],
    ['JSON', Buffer.from('{"error":404}'), /not WAV or MP3/],
    ['a RIFF that is not WAVE', Buffer.from('RIFF\0\0\0\0AVI LIST'), /not WAV or MP3/],
    ['a header cut short', good.subarray(0, 20), /has no fmt chunk|fmt chunk is truncated/],
    ['no data chunk', good.subarray(0, 36), /has no data chunk/],
    [
      'data before fmt',
      Buffer.concat([Buffer.from('RIFF\x20\0\0\0WAVEdata\x04\0\0\0\0\0\0\0')]),
      /before its fmt chunk/,
    ],
    ['zero channels', Buffer.from(good).fill(0, 22, 24), /0 channels/],
    ['a sample rate of 0', Buffer.from(good).fill(0, 24, 28), /sample rate 0 Hz/],
    [
      '12-bit samples',
      (() => {
        const b = Buffer.from(good);
        b.writeUInt16LE(12, 34);
        return b;
      })(),
      /encoding 1 with 12 bits/,
    ],
    [
      'A-law',
      (() => {
        const b = Buffer.from(good);
        b.writeUInt16LE(6, 20);
        return b;
      })(),
      /encoding 6/,
    ],
    ['an MP3 frame header and nothing more', Buffer.from([0xff, 0xfb, 0x90, 0x00]), /no decodable audio/],
    ['an MP3 cut after its first bytes', MP3.subarray(0, 100), /no decodable audio/],
    [
      'an ID3 tag and nothing else',
      Buffer.concat([Buffer.from('ID3\x04\0\0\0\0\0\x0a'), Buffer.alloc(10)]),
      /no decodable audio/,
    ],
  ];
  for (const [what, bytes, reason] of bad) {
    test(`${what} is refused with a reason`, async () => {
      await assert.rejects(
        decodeAudio(bytes),
        (err: Error) => err instanceof AudioFormatError && reason.test(err.message),
      );
    });
  }

  test('random bytes never crash the decoders (500 tries)', async () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 500; i++) {
      const b = Buffer.alloc(next() % 3000);
      for (let j = 0; j < b.length; j++) b[j] = next() & 0xff;
      // Half of them start like a WAV or an MP3, so the parsers behind the sniffing are reached.
      if (i % 3 === 1) good.copy(b, 0, 0, Math.min(b.length, 44));
      if (i % 3 === 2 && b.length > 4) b.set([0xff, 0xfb, 0x90, 0x64]);
      try {
        await decodeAudio(b);
      } catch (err) {
        assert.ok(err instanceof AudioFormatError, `try ${i}: ${(err as Error).stack}`);
      }
    }
  });
});

describe('POST media/audio-player', () => {
  let g: AudioGateway;
  let token: string;
  let server: Server;
  let base: string;
  const big = Buffer.alloc(200_000, 1);
  before(async () => {
    g = await startAudioGateway({ overrides: { audio: { media_max_bytes: 100_000, media_timeout_ms: 1000 } } });
    token = g.token();
    server = createServer((req, res) => {
      const send = (type: string, body: Buffer | string, status = 200) => {
        res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
        res.end(body);
      };
      switch (req.url) {
        case '/tone.wav':
          return send('audio/wav', encodeWav(sine(880, 1500)));
        case '/tone.mp3':
          return send('audio/mpeg', MP3);
        case '/mislabelled':
          return send('text/html', MP3);
        case '/moved':
          res.writeHead(302, { location: '/tone.wav' });
          return res.end();
        case '/loop':
          res.writeHead(302, { location: '/loop' });
          return res.end();
        case '/to-file':
          res.writeHead(302, { location: 'file:///etc/passwd' });
          return res.end();
        case '/big':
          return send('audio/wav', big);
        case '/big-chunked': {
          res.writeHead(200, { 'content-type': 'audio/wav', 'transfer-encoding': 'chunked' });
          for (let i = 0; i < 20; i++) res.write(Buffer.alloc(10_000));
          return res.end();
        }
        case '/empty':
          return send('audio/wav', '');
        case '/page':
          return send('text/html', '<html>hello</html>');
        case '/slow':
          return; // never answers
        default:
          return send('text/plain', 'no', 404);
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await g.stop();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const play = (body: unknown, v = 'v1') => call(g.url, 'POST', rest(v, 'media/audio-player'), { token, body });

  for (const [what, path, hz] of [
    ['a WAV', '/tone.wav', 880],
    ['an MP3', '/tone.mp3', 440],
    ['an MP3 served as text/html', '/mislabelled', 440],
    ['a WAV behind a redirect', '/moved', 880],
  ] as const) {
    test(`plays ${what} once at media priority, on v1 and v2`, async () => {
      for (const v of ['v1', 'v2']) {
        g.gateway.audio.stop();
        const r = await play({ audio_url: `${base}${path}` }, v);
        assert.deepEqual(r.json, { error: 0, data: {}, message: 'success' }, r.text);
        const rec = g.sink.plays.at(-1)!;
        assert.deepEqual([rec.layer, rec.loop, rec.name], ['media', false, `${base}${path}`]);
        assert.ok(Math.abs(dominantHz(rec.pcm) - hz) < 5);
      }
    });
  }

  test('plays at the volume asked, under the gateway volume', async () => {
    const r = await play({ audio_url: `${base}/tone.wav`, volume: 30 });
    assert.equal(r.json.error, 0, r.text);
    assert.equal(g.sink.plays.at(-1)?.gain, 0.5 * 0.3);
  });

  const refused: [string, unknown, RegExp][] = [
    ['no audio_url', {}, /^audio_url: required$/],
    ['a number', { audio_url: 5 }, /^audio_url: expected a string, got 5$/],
    ['an empty string', { audio_url: '' }, /must be a non-empty string/],
    ['not a URL', { audio_url: 'tone.wav' }, /"tone.wav" is not a URL/],
    ['a file URL', { audio_url: 'file:///etc/passwd' }, /file: URLs are not fetched \(http and https only\)/],
    ['an ftp URL', { audio_url: 'ftp://127.0.0.1/a.wav' }, /ftp: URLs are not fetched/],
    ['a URL of 3000 characters', { audio_url: `http://127.0.0.1/${'a'.repeat(3000)}` }, /longer than 2048 characters/],
    ['a volume of 101', { audio_url: 'http://127.0.0.1/a.wav', volume: 101 }, /^volume: 101 is above max 100$/],
  ];
  for (const [what, body, message] of refused) {
    test(`refuses ${what} with 400`, async () => {
      const r = await play(body);
      assert.equal(r.json.error, 400, r.text);
      assert.match(r.json.message, message);
    });
  }

  // The same words whatever the server did (a client must not learn what listens at an address:
  // test/security/fetches.test.ts); the debug log has the detail.
  const unreachable =
    /^audio_url: the audio could not be fetched \(the server could not be reached, did not answer in time, or answered with an error or a redirect it may not take\)$/;
  const notAudio = /^audio_url: the answer is not audio this gateway plays \(WAV or MP3\)$/;
  const tooLarge = /^audio_url: the audio is larger than the 100000 bytes allowed \(audio\.media_max_bytes\)$/;
  const failing: [string, string, RegExp][] = [
    ['a 404', '/missing', unreachable],
    ['a page that is not audio', '/page', notAudio],
    ['an empty answer', '/empty', notAudio],
    ['a file larger than allowed (by Content-Length)', '/big', tooLarge],
    ['a file larger than allowed (chunked)', '/big-chunked', tooLarge],
    ['a redirect loop', '/loop', unreachable],
    ['a redirect to a file URL', '/to-file', unreachable],
    ['a server that never answers (within the 1 s set)', '/slow', unreachable],
  ];
  for (const [what, path, message] of failing) {
    test(`answers ${what} with an error saying why, and plays nothing`, async () => {
      const before = g.sink.plays.length;
      // The gateway's clock moves only for the server that never answers (the 1 s it is allowed).
      const asked = play({ audio_url: `${base}${path}` });
      const r = path === '/slow' ? (await advanceUntil(g.clock, asked)).value : await asked;
      assert.equal(r.json.error, 400, r.text);
      assert.match(r.json.message, message);
      assert.equal(g.sink.plays.length, before);
    });
  }

  test('a port where nothing listens is an error, not a hang', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    const r = await play({ audio_url: `http://127.0.0.1:${port}/a.wav` });
    assert.equal(r.json.error, 400);
    assert.match(r.json.message, unreachable);
  });

  test('under a sounding alarm, media is not played and the answer says so', async () => {
    g.gateway.audio.play({ layer: 'alarm', name: 'alarm1', repeat: { until: null } });
    const r = await play({ audio_url: `${base}/tone.wav` });
    assert.deepEqual([r.json.error, r.json.message], [500, 'not played: alarm "alarm1" is playing, above media']);
    g.gateway.audio.stop('alarm');
  });
});
