/**
 * The Matter bridge on the Gateway page: turning it on and off, the QR code and pairing code to
 * add it to Apple Home, Google Home, Alexa or Home Assistant, pairing mode (the code works only
 * while it is open: until a first controller has the bridge, then when opened again here for
 * another one), and the controllers that have it.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, wordsOf } from '../api.ts';
import { countdown } from '../format.ts';
import { useNow } from '../hooks.ts';
import { act, notify } from '../store.ts';
import type { MatterView } from '../types.ts';

/** Until a controller has it, the card reads itself again this often (commissioning happens on a phone). */
const WATCH_MS = 5000;

/** An 11-digit manual pairing code as home apps print it: 1234-567-8901. */
export function formatPairingCode(code: string): string {
  return /^\d{11}$/.test(code) ? `${code.slice(0, 4)}-${code.slice(4, 7)}-${code.slice(7)}` : code;
}

export function MatterCard() {
  const [m, setM] = useState<MatterView | undefined>();
  const [busy, setBusy] = useState(false);
  // Read again while it starts, and while pairing mode is open (commissioning happens on a phone).
  const waiting = m !== undefined && (m.enabled ? m.pairing.open : m.starting === true);
  const now = useNow(m?.enabled === true && m.pairing.until !== null);
  useEffect(() => {
    let current = true;
    const load = () =>
      api<MatterView>('GET', '/matter')
        .then((r) => current && setM(r))
        .catch((err) => current && notify('error', wordsOf(err)));
    void load();
    const t = waiting ? setInterval(load, WATCH_MS) : undefined;
    return () => {
      current = false;
      clearInterval(t);
    };
  }, [waiting]);
  if (!m) return <p class="muted">Loading…</p>;

  const turn = async (on: boolean) => {
    setBusy(true);
    const r = await act(on ? 'The Matter bridge is on.' : 'The Matter bridge is off.', () =>
      api<MatterView>('PUT', '/matter', { enabled: on }),
    );
    setBusy(false);
    if (r) setM(r);
  };

  if (!m.enabled && m.starting) return <p>Starting the Matter bridge…</p>;
  if (!m.enabled)
    return (
      <>
        <p>
          Off. Turned on, every device of this gateway can be added to Apple Home, Google Home, Alexa or Home Assistant,
          and controlled there, on this network.
        </p>
        <button type="button" disabled={busy} onClick={() => void turn(true)}>
          {busy ? 'Starting…' : 'Turn on the Matter bridge'}
        </button>
      </>
    );

  const remove = async (f: { index: number; label: string }) => {
    const who = f.label || `controller ${f.index}`;
    if (!confirm(`Remove ${who}? Its app loses every device of this gateway.`)) return;
    const r = await act(`${who} removed.`, () => api('DELETE', `/matter/fabrics/${f.index}`));
    if (r) setM(await api<MatterView>('GET', '/matter'));
  };

  const pairing = async (open: boolean) => {
    setBusy(true);
    const r = await act(
      open ? 'Pairing mode is open for 15 minutes: add the bridge in the other app now.' : 'Pairing mode closed.',
      () => api<MatterView>(open ? 'POST' : 'DELETE', '/matter/pairing'),
    );
    setBusy(false);
    if (r) setM(r);
  };

  return (
    <>
      <p>
        {m.running ? 'On' : 'Starting'}: {m.devices} {m.devices === 1 ? 'device' : 'devices'} bridged, UDP port {m.port}
        .
      </p>
      {m.pairing.open && m.pairing.until && (
        <div class="pairing open" role="status">
          <span>
            Pairing mode is open for another controller: <strong>{countdown(m.pairing.until, now)}</strong> left. It
            closes once one has added the bridge.
          </span>
          <button type="button" disabled={busy} onClick={() => void pairing(false)}>
            Close
          </button>
        </div>
      )}
      {m.pairing.open ? (
        <div class="matter-pairing">
          <img
            class="matter-qr"
            src={`data:image/svg+xml;utf8,${encodeURIComponent(m.qr_svg)}`}
            alt={`QR code ${m.qr_payload}`}
            width={180}
            height={180}
          />
          <div>
            <p>In your home app, add an accessory (Matter) and scan this code, or type the pairing code:</p>
            <p class="pairing-code">{formatPairingCode(m.manual_pairing_code)}</p>
            <p class="muted">This page updates when a controller has added the bridge.</p>
          </div>
        </div>
      ) : (
        <div class="matter-closed">
          <p>
            <strong>Pairing mode is closed.</strong> A controller has the bridge, and its pairing code works only while
            pairing mode is open: another home app given it now searches for a minute and gives up.
          </p>
          <button type="button" class="primary" disabled={busy} onClick={() => void pairing(true)}>
            Open pairing mode (15 minutes)
          </button>
          <p class="muted">Or share the bridge from the app that has it (Matter multi-admin).</p>
        </div>
      )}
      {m.fabrics.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Controller</th>
                <th>Vendor</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {m.fabrics.map((f) => (
                <tr key={f.index}>
                  <td>{f.label || `Controller ${f.index}`}</td>
                  <td>0x{f.vendor_id.toString(16).toUpperCase().padStart(4, '0')}</td>
                  <td>
                    <button type="button" class="small" onClick={() => void remove(f)}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <button
        type="button"
        disabled={busy}
        onClick={() => {
          if (confirm('Turn the Matter bridge off? Home apps show its devices as not responding until it is on again.'))
            void turn(false);
        }}
      >
        {busy ? 'Stopping…' : 'Turn off'}
      </button>
    </>
  );
}
