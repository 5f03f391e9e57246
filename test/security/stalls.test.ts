/**
 * Issue 24, finding 4: work that held the event loop, and with it every client of the gateway.
 * An 8 MiB WAV (stereo, 48 kHz: half a second of decoding and resampling) and eight at once are
 * decoded while the loop goes on turning, into the same samples as decoding in place; a restore of
 * a large backup is checked while it turns too. No timing is asserted: on the event loop, those
 * decodes and the restore let no turn run at all (a count of setImmediate turns tells them apart);
 * the stalls themselves are measured by `npm run soak` (scripts/reliability/stalls.ts).
 */
import assert from 'node:assert/strict';
import { rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { decodeAudio } from '../../src/core/audio/decode.ts';
import { AudioDecoder } from '../../src/core/audio/decoder.ts';
import { AudioFormatError } from '../../src/core/audio/wav.ts';
import { type AudioGateway, startAudioGateway } from '../helpers/audio.ts';
import { bigWav, growBackup } from '../helpers/big-files.ts';
import { call, rest, startGateway, tempDir } from '../helpers/foundation.ts';

/** Runs `work` and counts the turns of the event loop (setImmediate) made while it ran. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ turns: number; value: T }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    turns++;
    if (!done) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { value: await work(), turns };
  } finally {
    done = true;
  }
}

describe('decoding large audio files', () => {
  const decoder = new AudioDecoder();
  after(() => decoder.close());

  test('an 8 MiB WAV decodes while the event loop goes on turning, into the samples of decoding in place', async () => {
    const wav = bigWav(8 * 1024 * 1024, 1);
    const { turns, value } = await turnsDuring(() => decoder.decode(wav, 600));
    assert.ok(turns > 100, `${turns} turns of the event loop while it decoded`);
    const here = await decodeAudio(wav, 600);
    assert.equal(value.rate, here.rate);
    assert.deepEqual(value.samples, here.samples);
    assert.equal(wav.length, 8 * 1024 * 1024, 'the bytes handed in are still the caller’s');
    assert.equal(decoder.running, false, 'no thread is left once nothing is to be decoded');
  });

  test('eight at once are decoded one after the other, each into its own samples, and no thread is left', async () => {
    const wavs = Array.from({ length: 8 }, (_, i) => bigWav(2 * 1024 * 1024, i + 2));
    const { turns, value } = await turnsDuring(() => Promise.all(wavs.map((w) => decoder.decode(w, 600))));
    assert.ok(turns > 100, `${turns} turns`);
    for (const [i, pcm] of value.entries())
      assert.deepEqual(pcm.samples, (await decodeAudio(wavs[i] as Buffer, 600)).samples);
    assert.equal(decoder.running, false);
  });

  test('a large file that is not audio is refused with the decoder’s words, and the next one still decodes', async () => {
    const junk = Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVEfmt '), Buffer.alloc(200_000, 7)]);
    await assert.rejects(decoder.decode(junk, 600), (err) => err instanceof AudioFormatError);
    const ok = await decoder.decode(bigWav(200_000, 9), 600);
    assert.ok(ok.samples.length > 0);
  });

  test('small files are decoded in place, with no thread started', async () => {
    const pcm = await decoder.decode(bigWav(32 * 1024, 3), 600);
    assert.ok(pcm.samples.length > 0);
    assert.equal(decoder.running, false);
  });
});

describe('the gateway decodes in its worker', () => {
  let g: AudioGateway;
  after(() => g?.stop());

  test('media/audio-player plays an 8 MiB WAV, decoded off the event loop', async (t) => {
    g = await startAudioGateway();
    const wav = bigWav(8 * 1024 * 1024, 4);
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(wav));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => new Promise((r) => server.close(r)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/big.wav`;
    const r = await call(g.url, 'POST', rest('v2', 'media/audio-player'), {
      token: g.token(),
      body: { audio_url: url },
    });
    assert.equal(r.json.error, 0, r.text);
    const played = g.sink.plays.at(-1);
    assert.ok(played, 'it played');
    assert.equal(played.pcm.samples.length, (await decodeAudio(wav, 600)).samples.length);
  });
});

describe('audio URLs sent all at once', () => {
  test('two are fetched and decoded at a time; the others are refused at once, holding nothing', async (t) => {
    const g = await startAudioGateway();
    t.after(() => g.stop());
    const wav = bigWav(256 * 1024, 5);
    const held: (() => void)[] = [];
    let holding = true;
    const server = createServer((_req, res) => {
      const answer = () => res.writeHead(200, { 'content-type': 'audio/wav' }).end(wav);
      if (holding) held.push(answer);
      else answer();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => new Promise((r) => server.close(r)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a.wav`;
    const token = g.token();
    const play = () => call(g.url, 'POST', rest('v2', 'media/audio-player'), { token, body: { audio_url: url } });
    const first = [play(), play()];
    // Both reached the server: two loads are under way.
    while (held.length < 2) await new Promise((r) => setTimeout(r, 10));
    const more = await Promise.all([play(), play(), play()]);
    for (const r of more)
      assert.deepEqual(
        [r.json.error, r.json.message],
        [400, 'audio_url: the gateway is fetching or decoding 2 other audio files: try again in a moment'],
      );
    assert.equal(held.length, 2, 'the refused ones fetched nothing');
    holding = false;
    for (const release of held) release();
    for (const r of await Promise.all(first)) assert.equal(r.json.error, 0, r.text);
    assert.equal((await play()).json.error, 0, 'once they are done, the next is played');
  });
});

describe('restoring a large backup', () => {
  test('a 16 MiB backup is checked while the event loop goes on turning, and staged', async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    const dir = tempDir('opencube-big-backup-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'big.backup');
    await g.gateway.backup(file);
    growBackup(file, 16 * 1024 * 1024);
    assert.ok(statSync(file).size >= 16 * 1024 * 1024);
    const { turns, value } = await turnsDuring(async () => g.gateway.stageRestore(file, 'big.backup'));
    assert.equal(value.ok, true, JSON.stringify(value));
    assert.ok(turns > 100, `${turns} turns while it was checked`);
    rmSync(`${g.gateway.paths.db}.restore`, { force: true });
  });
});
