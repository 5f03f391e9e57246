/**
 * The sinks on real processes: aplay on ALSA's null device, a command that writes what it gets
 * to a file, and the choice of sink from the settings. No test needs a sound card.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SoundLibrary } from '../../src/core/audio/library.ts';
import type { SinkClip } from '../../src/core/audio/sink.ts';
import { scalePcm } from '../../src/core/audio/volume.ts';
import { decodeWav, encodeWav } from '../../src/core/audio/wav.ts';
import {
  aplaySink,
  commandSink,
  createSink,
  hasSoundCard,
  NullSink,
  onPath,
  ProcessSink,
} from '../../src/drivers/audio/index.ts';
import { sine } from '../helpers/audio.ts';
import { call, eventually, rest, startGateway } from '../helpers/foundation.ts';

const dir = mkdtempSync(join(tmpdir(), 'opencube-sinks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const library = new SoundLibrary();
const beep: SinkClip = {
  pcm: library.get('beep', 'bootComplete')!,
  loop: false,
  info: { name: 'bootComplete', layer: 'beep', gain: 1 },
};
const loop: SinkClip = { pcm: sine(440, 200), loop: true, info: { name: 'tone', layer: 'sound', gain: 1 } };

/** aplay from Debian's alsa-utils: installed for this test when missing and apt can install it. */
function haveAplay(): boolean {
  if (onPath('aplay')) return true;
  if (process.getuid?.() !== 0 || !onPath('apt-get')) return false;
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'alsa-utils'], {
      stdio: 'ignore',
      timeout: 300_000,
    });
  if (install().status !== 0) {
    spawnSync('apt-get', ['update'], { stdio: 'ignore', timeout: 300_000 });
    install();
  }
  return onPath('aplay') !== undefined;
}

describe('aplay', () => {
  const skip = haveAplay() ? false : 'aplay is not installed and could not be installed (Debian package alsa-utils)';

  test("plays a clip on ALSA's null device to its end", { skip }, async () => {
    const sink = aplaySink('null');
    const played = sink.play(beep);
    assert.deepEqual(await played.ended, { kind: 'finished' });
    await sink.close();
  });

  test('a loop goes on until stopped, and a new clip takes over from the previous process', { skip }, async () => {
    const sink = aplaySink('null');
    const first = sink.play(loop);
    const second = sink.play(beep);
    assert.deepEqual(await first.ended, { kind: 'stopped' });
    assert.deepEqual(await second.ended, { kind: 'finished' });
    const third = sink.play(loop);
    await sink.close();
    assert.deepEqual(await third.ended, { kind: 'stopped' });
  });

  test('a device that does not exist is reported as a failure with what aplay said', { skip }, async () => {
    const sink = aplaySink('no-such-device');
    const r = await sink.play(beep).ended;
    assert.equal(r.kind, 'failed');
    assert.match((r as { reason: string }).reason, /aplay exited with 1: .*no-such-device/s);
    await sink.close();
  });
});

describe('a configured command', () => {
  test('gets each clip as a complete WAV file on stdin', async () => {
    const file = join(dir, 'once.wav');
    const sink = commandSink(`cat > '${file}'`);
    assert.deepEqual(await sink.play(beep).ended, { kind: 'finished' });
    assert.ok(readFileSync(file).equals(encodeWav(beep.pcm)), 'exactly the WAV of the clip');
    await sink.close();
  });

  test('gets a loop again and again until it is stopped; stopping ends the whole command', async () => {
    const file = join(dir, 'loop.wav');
    const sink = commandSink(`cat > '${file}'`);
    const playing = sink.play(loop);
    // The loop streams: wait (bounded) until several passes have arrived, then stop it.
    const until = Date.now() + 10_000;
    while ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) < 10 * loop.pcm.samples.length * 2) {
      assert.ok(Date.now() < until, 'the loop did not stream');
      await new Promise((r) => setTimeout(r, 10));
    }
    playing.stop();
    assert.deepEqual(await playing.ended, { kind: 'stopped' });
    const got = decodeWav(readFileSync(file));
    const n = loop.pcm.samples.length;
    assert.ok(got.samples.length >= 10 * n);
    assert.deepEqual(got.samples.subarray(5 * n, 6 * n), loop.pcm.samples, 'the sixth pass is the clip again');
    const size = statSync(file).size;
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(statSync(file).size, size, 'nothing is written after the stop: cat is gone too');
    await sink.close();
  });

  test('a node script can be the command (e.g. a bridge to a networked speaker)', async () => {
    const script = join(dir, 'count.mjs');
    const out = join(dir, 'count.txt');
    writeFileSync(
      script,
      `let n = 0; for await (const c of process.stdin) n += c.length; (await import('node:fs')).writeFileSync(${JSON.stringify(out)}, String(n));`,
    );
    const sink = commandSink(`'${process.execPath}' '${script}'`);
    assert.deepEqual(await sink.play(beep).ended, { kind: 'finished' });
    assert.equal(readFileSync(out, 'utf8'), String(44 + beep.pcm.samples.length * 2));
    await sink.close();
  });

  test('a failing command is reported with its exit code and what it printed', async () => {
    const sink = commandSink('echo speaker unplugged >&2; exit 3');
    const r = await sink.play(beep).ended;
    assert.deepEqual(r, { kind: 'failed', reason: 'sh exited with 3: speaker unplugged' });
    await sink.close();
  });

  test('a command that does not exist is a failure, not a crash', async () => {
    const sink = commandSink('/nonexistent/player');
    const r = await sink.play(beep).ended;
    assert.equal(r.kind, 'failed');
    assert.match((r as { reason: string }).reason, /exited with 127/);
    await sink.close();
  });

  test('a command that ignores SIGTERM is killed all the same', async () => {
    const sink = commandSink("trap '' TERM; cat >/dev/null; sleep 30");
    const playing = sink.play(loop);
    await new Promise((r) => setTimeout(r, 100)); // let the trap be set (a guard, not a measurement)
    await sink.close();
    assert.deepEqual(await playing.ended, { kind: 'stopped' });
  });

  test('a clip stopped before its process started never starts one', async () => {
    const file = join(dir, 'never.wav');
    const sink = commandSink(`cat > '${file}'`);
    const first = sink.play(loop);
    const second = sink.play(beep);
    second.stop();
    assert.deepEqual(await second.ended, { kind: 'stopped' });
    assert.deepEqual(await first.ended, { kind: 'stopped' });
    await sink.close();
  });
});

test('a player that is not installed is a failure naming it, not a crash', async () => {
  const sink = new ProcessSink({ kind: 'aplay', command: '/nonexistent/aplay', args: [] });
  assert.deepEqual(await sink.play(beep).ended, {
    kind: 'failed',
    reason: '/nonexistent/aplay: spawn /nonexistent/aplay ENOENT',
  });
  await sink.close();
});

test('a gateway set to a command sink plays a G9 beep into it, scaled by the volume', async (t) => {
  const file = join(dir, 'gateway.wav');
  const g = await startGateway({
    overrides: { audio: { sink: 'command', command: `cat > '${file}'`, beeps: { boot_complete: false } } },
  });
  t.after(() => g.stop());
  const token = g.token();
  await call(g.url, 'PUT', rest('v2', 'bridge/config'), { token, body: { volume: 100 } });
  const r = await call(g.url, 'POST', rest('v2', 'hardware/speaker'), {
    token,
    body: { type: 'play_beep', beep: { name: 'systemDisarmed', volume: 50 } },
  });
  assert.equal(r.json.error, 0, r.text);
  const want = encodeWav(scalePcm(library.get('beep', 'system Disarmed')!, 0.5));
  await eventually(() => statSync(file, { throwIfNoEntry: false })?.size === want.length, 10_000, 'the beep written');
  assert.ok(readFileSync(file).equals(want));
});

describe('choosing the sink', () => {
  test('auto is null on a machine without a sound card', () => {
    const s = createSink({ sink: 'auto', aplay_device: '', command: '' });
    assert.equal(s.kind, hasSoundCard() && onPath('aplay') ? 'aplay' : 'null');
  });

  test('a sound card is seen in the ALSA card list', () => {
    const cards = join(dir, 'cards');
    writeFileSync(cards, ' 0 [PCH            ]: HDA-Intel - HDA Intel PCH\n');
    assert.equal(hasSoundCard(cards), true);
    writeFileSync(cards, '--- no soundcards ---\n');
    assert.equal(hasSoundCard(cards), false);
    assert.equal(hasSoundCard(join(dir, 'missing')), false);
  });

  test('each setting gives its sink; a command sink needs a command', () => {
    assert.equal(createSink({ sink: 'null', aplay_device: '', command: '' }).kind, 'null');
    assert.equal(createSink({ sink: 'aplay', aplay_device: 'null', command: '' }).kind, 'aplay');
    assert.equal(createSink({ sink: 'command', aplay_device: '', command: 'cat >/dev/null' }).kind, 'command');
    assert.throws(() => createSink({ sink: 'command', aplay_device: '', command: ' ' }), /audio.command: required/);
  });

  test('the null sink finishes a clip at once and a loop when stopped', async () => {
    const s = new NullSink();
    assert.deepEqual(await s.play(beep).ended, { kind: 'finished' });
    const l = s.play(loop);
    s.play(beep);
    assert.deepEqual(await l.ended, { kind: 'stopped' });
  });
});

test('the machine has no stray players left', () => {
  const ps = execFileSync('ps', ['-eo', 'ppid,comm'], { encoding: 'utf8' });
  const mine = ps
    .split('\n')
    .filter((l) => l.trim().startsWith(`${process.pid} `))
    .filter((l) => /aplay|cat|sh/.test(l));
  assert.deepEqual(mine, []);
});
