/**
 * Large files for the attack runs (test/security/, scripts/reliability/): WAVs of a given size in
 * the form that is slowest to decode, and a backup grown to a given size in small rows, as a store
 * with years of history is.
 */
import Database from 'better-sqlite3';
import { contentDigest } from '../../src/core/maintenance/store-backup.ts';

/**
 * A WAV file of at most `bytes` bytes in the form that costs the most to decode: 8-bit mono at
 * 8 kHz, which becomes the most samples at the gateway's 22050 Hz (600 s of them, the most kept);
 * a tone that depends on `seed`.
 */
export function bigWav(bytes: number, seed = 1): Buffer {
  const data = Buffer.alloc(bytes - 44);
  const step = (2 * Math.PI * (200 + 37 * seed)) / 8000;
  for (let i = 0; i < data.length; i++) data[i] = 128 + Math.round(90 * Math.sin(i * step));
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(8000, 24);
  h.writeUInt32LE(8000, 28);
  h.writeUInt16LE(1, 32);
  h.writeUInt16LE(8, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

/**
 * Grows the backup `file` (written by the gateway) to about `bytes`: kv rows of 1 KiB of JSON
 * text, as the console's settings and matter.js's values are kept, and its digest written again
 * so that it is a backup as taken.
 */
export function growBackup(file: string, bytes: number): void {
  const db = new Database(file);
  const put = db.prepare('INSERT INTO kv (key, value) VALUES (?, ?)');
  const row = JSON.stringify({ note: 'x'.repeat(1000) });
  db.transaction(() => {
    for (let i = 0; i * (row.length + 12) < bytes; i++) put.run(`filler-${i}`, row);
  })();
  db.prepare("UPDATE opencube_backup SET value = ? WHERE key = 'digest'").run(JSON.stringify(contentDigest(db)));
  db.close();
}
