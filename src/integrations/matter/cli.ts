/**
 * `opencube matter`: the running gateway's Matter bridge as a person pairs it: the manual pairing
 * code, the QR payload (and the QR code drawn in the terminal), the controllers (fabrics) that
 * have it. Asked over the control socket; matter.js is loaded only to draw the QR code.
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

/** The text `opencube matter` prints; a bridge that is starting is waited for, up to `waitMs`. */
export async function matterCommand(
  socket: string,
  opts: { drawQr?: boolean; waitMs?: number; pollMs?: number } = {},
): Promise<string> {
  const until = Date.now() + (opts.waitMs ?? STARTING_WAIT_MS);
  let r = await controlRequest<Answer>(socket, 'GET', '/matter');
  while (r.enabled && r.starting && Date.now() < until) {
    await new Promise((done) => setTimeout(done, opts.pollMs ?? 250));
    r = await controlRequest<Answer>(socket, 'GET', '/matter');
  }
  if (!r.enabled) return OFF_ADVICE;
  if (r.starting) return 'the Matter bridge is starting; run `opencube matter` again in a moment\n';
  const lines = [
    `Matter bridge: ${r.running ? 'running' : 'not running'} on UDP port ${r.port}, ${r.devices} devices bridged`,
    `manual pairing code: ${r.manual_pairing_code}`,
    `QR payload: ${r.qr_payload}`,
  ];
  if (opts.drawQr !== false && r.qr_payload) {
    const { QrCode } = await import('@matter/main/types');
    lines.push('', QrCode.get(r.qr_payload));
  }
  if (r.fabrics.length === 0) lines.push('not yet added to any controller');
  for (const f of r.fabrics)
    lines.push(`controller (fabric ${f.index}): ${f.label || '(no label)'}, vendor ${f.vendor_id}`);
  return `${lines.join('\n')}\n`;
}
