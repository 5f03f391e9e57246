/**
 * `opencube matter`: the running gateway's Matter bridge as a person pairs it: the manual pairing
 * code, the QR payload (and the QR code drawn in the terminal), whether pairing mode is open (the
 * code works only then: until a first controller has the bridge, then only when opened again),
 * the controllers (fabrics) that have it. `open` and `close` open pairing mode for another
 * controller, and close it. Asked over the control socket; matter.js is loaded only to draw the
 * QR code.
 */
import { controlRequest } from '../../lib/control-client.ts';
import type { MatterStatus } from './bridge.ts';

/**
 * What to do when the bridge is off. The console's switch, once used, is kept in the store and
 * wins over the setting (src/gateway.ts): after it, --matter-enabled changes nothing, so the
 * console is the way that always works.
 */
export const OFF_ADVICE =
  'the Matter bridge is off. Turn it on in the console: Gateway page, Matter card, "Turn on the Matter bridge".\n' +
  "Once the console's switch has been used, its choice is kept and wins over --matter-enabled " +
  '(OPENCUBE_MATTER_ENABLED); until then, that setting decides at each start (docs/matter.md).\n';

type Answer =
  | { enabled: false }
  | { enabled: true; starting: true }
  | ({ enabled: true; starting?: undefined } & MatterStatus);

/** How long `opencube matter` waits for a bridge that is starting (the gateway answers before it has started). */
export const STARTING_WAIT_MS = 60_000;

/** What to do once a controller has the bridge and pairing mode is closed. */
export const CLOSED_ADVICE =
  'To add the bridge to another controller: run `opencube matter open` (pairing mode for 15 minutes, the same code),\n' +
  'or in the console: Gateway page, Matter card, "Open pairing mode"; or share it from the app that has it\n' +
  '(Matter multi-admin: the app gives a code of its own).';

/** When pairing mode closes, as a person reads it: `14:05 (in 15 minutes)`. */
function closing(until: string, now: number): string {
  const minutes = Math.max(1, Math.round((Date.parse(until) - now) / 60_000));
  const at = new Date(until).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return `${at} (in ${minutes} minute${minutes === 1 ? '' : 's'})`;
}

/** The lines that say whether the code works now, and what to do when it does not. */
function pairingLines(r: MatterStatus, now: number): string[] {
  if (!r.commissioned) return ['pairing mode: open until a controller adds the bridge'];
  if (r.pairing.open && r.pairing.until)
    return [
      `pairing mode: open until ${closing(r.pairing.until, now)} for another controller; it closes once one has added the bridge`,
    ];
  return [
    'pairing mode: closed. A controller has the bridge, and the pairing code works only while pairing mode is open:',
    'a controller given it now searches for a minute and gives up.',
    CLOSED_ADVICE,
  ];
}

/**
 * The text `opencube matter` prints; a bridge that is starting is waited for, up to `waitMs`.
 * `pairing` opens or closes pairing mode first.
 */
export async function matterCommand(
  socket: string,
  opts: { drawQr?: boolean; waitMs?: number; pollMs?: number; pairing?: 'open' | 'close' } = {},
): Promise<string> {
  const until = Date.now() + (opts.waitMs ?? STARTING_WAIT_MS);
  let r = await controlRequest<Answer>(socket, 'GET', '/matter');
  while (r.enabled && r.starting && Date.now() < until) {
    await new Promise((done) => setTimeout(done, opts.pollMs ?? 250));
    r = await controlRequest<Answer>(socket, 'GET', '/matter');
  }
  if (!r.enabled) return OFF_ADVICE;
  if (r.starting) return 'the Matter bridge is starting; run `opencube matter` again in a moment\n';
  if (opts.pairing)
    r = await controlRequest<Answer>(socket, opts.pairing === 'open' ? 'POST' : 'DELETE', '/matter/pairing');
  if (!r.enabled || r.starting) return OFF_ADVICE;
  const lines = [
    `Matter bridge: ${r.running ? 'running' : 'not running'} on UDP port ${r.port}, ${r.devices} devices bridged`,
  ];
  if (r.fabrics.length === 0) lines.push('not yet added to any controller');
  for (const f of r.fabrics)
    lines.push(`controller (fabric ${f.index}): ${f.label || '(no label)'}, vendor ${f.vendor_id}`);
  lines.push(...pairingLines(r, Date.now()));
  // The codes always (they do not change), marked when they do not work now; the QR code drawn only when it does.
  const note = r.pairing.open ? '' : ' (works only while pairing mode is open)';
  lines.push(`manual pairing code: ${r.manual_pairing_code}${note}`, `QR payload: ${r.qr_payload}${note}`);
  if (opts.drawQr !== false && r.qr_payload && r.pairing.open) {
    const { QrCode } = await import('@matter/main/types');
    lines.push('', QrCode.get(r.qr_payload));
  }
  return `${lines.join('\n')}\n`;
}
