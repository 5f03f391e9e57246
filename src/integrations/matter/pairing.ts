/**
 * The bridge's setup passcode and discriminator: drawn once at random (a fixed well-known code
 * would let any neighbour pair while the window is open), kept in `matter_storage` beside
 * matter.js's own data so that the pairing code stays the same across restarts and comes back
 * with a restored backup.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { Db } from '../../store/db.ts';

export interface PairingSecrets {
  passcode: number;
  discriminator: number;
}

/** The bridge's persistent unique id (Basic Information `uniqueId`), drawn once like the secrets. */
export function bridgeUniqueId(db: Db): string {
  const row = db.prepare('SELECT value FROM matter_storage WHERE context = ? AND key = ?').get(CONTEXT, 'unique_id') as
    | { value: string }
    | undefined;
  const stored = row ? (JSON.parse(row.value) as unknown) : undefined;
  if (typeof stored === 'string' && /^[0-9a-f]{32}$/.test(stored)) return stored;
  const fresh = randomBytes(16).toString('hex');
  db.prepare(
    'INSERT INTO matter_storage (context, key, value) VALUES (?, ?, ?) ON CONFLICT (context, key) DO UPDATE SET value = excluded.value',
  ).run(CONTEXT, 'unique_id', JSON.stringify(fresh));
  return fresh;
}

/** Passcodes the Matter specification forbids (5.1.7.1): trivial sequences. */
const FORBIDDEN = new Set([
  0, 11111111, 22222222, 33333333, 44444444, 55555555, 66666666, 77777777, 88888888, 99999999, 12345678, 87654321,
]);

/** Whether a number is a passcode the specification allows. */
export function validPasscode(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= 99999998 && !FORBIDDEN.has(n);
}

/** A random allowed passcode and a random 12-bit discriminator. */
export function drawSecrets(random: (max: number) => number = (max) => randomInt(max)): PairingSecrets {
  let passcode = 0;
  while (!validPasscode(passcode)) passcode = 1 + random(99999998);
  return { passcode, discriminator: random(4096) };
}

const CONTEXT = 'opencube';

/** The stored secrets, drawn and stored on first use (an unusable stored value is drawn again). */
export function pairingSecrets(db: Db, draw: () => PairingSecrets = drawSecrets): PairingSecrets {
  const get = db.prepare('SELECT value FROM matter_storage WHERE context = ? AND key = ?');
  const read = (key: string) => {
    const row = get.get(CONTEXT, key) as { value: string } | undefined;
    const n = row ? Number(row.value) : Number.NaN;
    return Number.isInteger(n) ? n : undefined;
  };
  const passcode = read('passcode');
  const discriminator = read('discriminator');
  if (
    passcode !== undefined &&
    validPasscode(passcode) &&
    discriminator !== undefined &&
    discriminator >= 0 &&
    discriminator < 4096
  )
    return { passcode, discriminator };
  const fresh = draw();
  const put = db.prepare(
    'INSERT INTO matter_storage (context, key, value) VALUES (?, ?, ?) ON CONFLICT (context, key) DO UPDATE SET value = excluded.value',
  );
  db.transaction(() => {
    put.run(CONTEXT, 'passcode', String(fresh.passcode));
    put.run(CONTEXT, 'discriminator', String(fresh.discriminator));
  })();
  return fresh;
}
