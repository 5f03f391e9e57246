/**
 * The sound library: every file is read and checked when the gateway starts (a missing one, or one
 * that is not a WAV file, stops it naming the file); the samples are decoded the first time each
 * sound plays, so a file damaged after its header refuses that sound with the reason, and the
 * others still play.
 */
import assert from 'node:assert/strict';
import { cpSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { AudioArbiter } from '../../src/core/audio/arbiter.ts';
import { SOUNDS_DIR, SoundLibrary } from '../../src/core/audio/library.ts';
import { soundFile } from '../../src/core/audio/sound-designs.ts';
import { RecordingSink } from '../../src/drivers/audio/recording-sink.ts';
import { ManualClock } from '../helpers/audio.ts';
import { tempDir } from '../helpers/foundation.ts';

function copyOfSounds(t: { after(fn: () => void): void }): string {
  const dir = tempDir('opencube-sounds-');
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(SOUNDS_DIR, dir, { recursive: true });
  return dir;
}

test('a missing sound file, or one that is not a WAV file, stops the library naming the file', (t) => {
  const missing = copyOfSounds(t);
  unlinkSync(join(missing, soundFile('sound', 'alarm3')));
  assert.throws(() => new SoundLibrary(missing), /sound "alarm3": cannot read .*alarm3.*ENOENT/);
  const foreign = copyOfSounds(t);
  writeFileSync(join(foreign, soundFile('beep', 'bootComplete')), 'ID3 not a wave');
  assert.throws(() => new SoundLibrary(foreign), /sound "bootComplete": cannot read .*not a WAV file/);
});

test('a file cut after its header refuses that sound with the reason when it is played; the others play', (t) => {
  const dir = copyOfSounds(t);
  truncateSync(join(dir, soundFile('sound', 'doorbell2')), 20);
  const library = new SoundLibrary(dir);
  const clock = new ManualClock();
  const sink = new RecordingSink(clock);
  const arbiter = new AudioArbiter({ sink, clock, library, volume: 100 });
  const refused = arbiter.play({ layer: 'sound', name: 'doorbell2' });
  assert.equal(refused.ok, false);
  assert.match(refused.ok ? '' : refused.reason, /^sound "doorbell2": cannot read .*doorbell2.*: WAV/);
  const played = arbiter.play({ layer: 'sound', name: 'doorbell1' });
  assert.equal(played.ok, true);
  assert.deepEqual(
    sink.plays.map((p) => p.name),
    ['doorbell1'],
  );
});

test('a file removed after the start refuses that sound with the reason when it is played (files are read at first play)', (t) => {
  const dir = copyOfSounds(t);
  const library = new SoundLibrary(dir);
  unlinkSync(join(dir, soundFile('sound', 'alarm1')));
  const clock = new ManualClock();
  const arbiter = new AudioArbiter({ sink: new RecordingSink(clock), clock, library, volume: 100 });
  const refused = arbiter.play({ layer: 'sound', name: 'alarm1' });
  assert.match(refused.ok ? '' : refused.reason, /^sound "alarm1": cannot read .*alarm1.*ENOENT/);
  assert.equal(arbiter.play({ layer: 'sound', name: 'alarm2' }).ok, true);
});
