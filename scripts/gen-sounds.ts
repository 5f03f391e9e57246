/**
 * Renders the 15 sounds and 8 beeps of src/core/audio/sound-designs.ts to assets/sounds/ as mono
 * 16-bit WAV files at the gateway's sample rate. Run `npm run sounds` after changing a design and
 * commit the files; test/audio/sounds.test.ts checks that this script reproduces them byte for byte.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SOUNDS_DIR } from '../src/core/audio/library.ts';
import { soundDesigns, soundFile } from '../src/core/audio/sound-designs.ts';
import { render } from '../src/core/audio/synth.ts';
import { encodeWav } from '../src/core/audio/wav.ts';

/** Every sound and beep file as it must be on disk: file name to bytes. */
export function renderSoundFiles(): Map<string, Buffer> {
  return new Map(soundDesigns.map((d) => [soundFile(d.kind, d.name), encodeWav(render(d.steps))]));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  mkdirSync(SOUNDS_DIR, { recursive: true });
  let bytes = 0;
  for (const [file, wav] of renderSoundFiles()) {
    writeFileSync(join(SOUNDS_DIR, file), wav);
    bytes += wav.length;
  }
  console.log(`wrote ${soundDesigns.length} files (${bytes} bytes) to ${SOUNDS_DIR}`);
}
