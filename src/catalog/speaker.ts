/** Speaker vocabulary (spec 2.8) and the limits of spec 8 that the catalog owns. */

/** Sound names: alert1..5, doorbell1..5, alarm1..5. */
export const soundNames: readonly string[] = Object.freeze(
  ['alert', 'doorbell', 'alarm'].flatMap((k) => [1, 2, 3, 4, 5].map((i) => `${k}${i}`)),
);

/** Beep names as the spec spells them (two with a space). */
export const beepNames: readonly string[] = Object.freeze([
  'bootComplete',
  'networkConnected',
  'networkDisconnected',
  'systemShutdown',
  'deviceDiscovered',
  'system Armed',
  'system Disarmed',
  'factoryReset',
]);

// Clients send `systemArmed`/`systemDisarmed` (COMPAT.md); both forms name the same beep.
const beepByForm = new Map<string, string>(
  beepNames.flatMap((b) => [[b, b] as const, [b.replace(' ', ''), b] as const]),
);

/** Accepts 'system Armed' and 'systemArmed' forms, returns the spec spelling, or null when unknown. */
export function normalizeBeepName(name: unknown): string | null {
  return typeof name === 'string' ? (beepByForm.get(name) ?? null) : null;
}

/** True for a sound name. */
export function isSoundName(name: unknown): boolean {
  return typeof name === 'string' && soundNames.includes(name);
}

/** Limits of spec 8 (inclusive). `countdown: -1` means "until cancelled" (COMPAT.md). */
export const limits = Object.freeze({
  volume: { min: 0, max: 100 },
  countdown: { min: 0, max: 1799, untilCancelled: -1 },
  tokenWindowMs: 5 * 60 * 1000,
  groups: 50,
  thirdPartyReplyMs: 3000,
  browserEventConnections: 6,
});
