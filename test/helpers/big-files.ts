/**
 * Large files for the attack runs (test/security/, scripts/reliability/): WAVs of a given size in
 * the form that is slowest to decode (16-bit stereo at 48 kHz: mixed down and resampled), each
 * seed its own tone; and a backup grown to a given size, as a store with years of history is.
 */
import Database from 'better-sqlite3';
import { contentDigest } from '../../src/core/maintenance/store-backup.ts';

/** A WAV file of at most `bytes` bytes (16-bit stereo, 48 kHz), a tone that depends on `seed`. */
export function bigWav(bytes: number, seed = 1): Buffer {
  const frames = Math.floor((bytes - 44) / 4);
  const data = Buffer.alloc(frames * 4);
  const step = (2 * Math.PI * (200 + 37 * seed)) / 48000;
  for (let i = 0; i < frames; i++) {
    const v = Math.round(12000 * Math.sin(i * step));
    data.writeInt16LE(v, i * 4);
    data.writeInt16LE(-v, i * 4 + 2);
  }
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(2, 22);
  h.writeUInt32LE(48000, 24);
  h.writeUInt32LE(48000 * 4, 28);
  h.writeUInt16LE(4, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

/**
 * Grows the backup `file` (written by the gateway) to about `bytes`: kv rows of JSON text, as the
 * console's settings are kept, and its digest written again so that it is a backup as taken.
 */
export function growBackup(file: string, bytes: number): void {
  const db = new Database(file);
  const put = db.prepare('INSERT INTO kv (key, value) VALUES (?, ?)');
  const chunk = JSON.stringify('x'.repeat(64 * 1024 - 16));
  db.transaction(() => {
    for (let i = 0; i * chunk.length < bytes; i++) put.run(`filler-${i}`, chunk);
  })();
  db.prepare("UPDATE opencube_backup SET value = ? WHERE key = 'digest'").run(JSON.stringify(contentDigest(db)));
  db.close();
}
