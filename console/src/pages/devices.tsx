/** Every device, live: search, filter by category, controls, pairing with a countdown, adding a camera. */
import { useMemo, useState } from 'preact/hooks';
import { api, wordsOf } from '../api.ts';
import { ControlView } from '../components/controls.tsx';
import { FormFooter } from '../components/form-footer.tsx';
import { at, categoryName, countdown, readingText } from '../format.ts';
import { useNow } from '../hooks.ts';
import { act, devices, devicesLoaded, notify, pairing, pairingTypes } from '../store.ts';
import type { Device } from '../types.ts';

/** How many controls and readings a card shows; the device page shows all. */
const ON_CARD = 3;
const CARD_KINDS = new Set(['switch', 'range', 'choice', 'color', 'bool']);

function DeviceCard({ d }: { d: Device }) {
  // A card shows what is used every day; the device page has every control and reading (the
  // radio's link quality among them: how well a device is heard is not what it is for).
  const controls = d.layout.controls.filter((c) => CARD_KINDS.has(c.kind)).slice(0, ON_CARD);
  const readings = d.layout.readings.filter((r) => !r.minor && at(d.state, r.path) !== undefined).slice(0, ON_CARD);
  return (
    <article class={d.online ? 'card device' : 'card device offline'} data-serial={d.serial_number}>
      <header>
        <a href={`#/devices/${encodeURIComponent(d.serial_number)}`} class="name">
          {d.name}
        </a>
        {d.online ? (
          <span class="dot online" title="online">
            <span class="sr">online</span>
          </span>
        ) : (
          <span class="dot">offline</span>
        )}
      </header>
      <p class="muted">{categoryName(d.display_category)}</p>
      {readings.length > 0 && (
        <dl class="readings">
          {readings.map((r) => (
            <div key={r.id}>
              <dt>{r.label}</dt>
              <dd>{readingText(d, r)}</dd>
            </div>
          ))}
        </dl>
      )}
      {controls.map((c) => (
        <ControlView key={c.id} d={d} c={c} />
      ))}
      {controls.length === 0 && readings.length === 0 && <p class="muted small">Nothing reported yet.</p>}
    </article>
  );
}

function Pairing() {
  const p = pairing.value;
  const now = useNow(p.open);
  const set = (enable: boolean) =>
    act(enable ? 'Zigbee joining is open: put the new device in pairing mode.' : 'Zigbee joining closed.', () =>
      api('PUT', '/pairing', { enable }),
    );
  return p.open ? (
    <div class="pairing open" role="status">
      <span>
        Joining open: <strong>{countdown(p.until, now)}</strong> left. New devices appear below.
      </span>
      <button type="button" onClick={() => void set(false)}>
        Stop
      </button>
    </div>
  ) : (
    <button type="button" class="primary" onClick={() => void set(true)}>
      Pair Zigbee devices
    </button>
  );
}

function AddCamera({ close }: { close: () => void }) {
  const [name, setName] = useState('');
  const [protocol, setProtocol] = useState('RTSP');
  const [url, setUrl] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    try {
      await api('POST', '/cameras', { name, protocol, stream_url: url });
      notify('ok', `Camera ${name} added.`);
      close();
    } catch (err) {
      setError(wordsOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card form" onSubmit={submit}>
      <h2>Add a camera</h2>
      <label>
        Name
        <input name="name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required />
      </label>
      <label>
        Kind
        <select name="protocol" value={protocol} onChange={(e) => setProtocol((e.target as HTMLSelectElement).value)}>
          <option value="RTSP">RTSP camera</option>
          <option value="ESP32-CAM">ESP32-CAM board</option>
        </select>
      </label>
      <label>
        Stream address
        <input
          name="stream_url"
          value={url}
          placeholder={
            protocol === 'RTSP' ? 'rtsp://user:password@192.168.1.20:554/stream1' : 'http://192.168.1.30/stream'
          }
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          required
        />
      </label>
      <FormFooter
        error={error}
        label="Add camera"
        busy={busy}
        busyLabel="Checking the camera…"
        onCancel={close}
        ownRow
      />
    </form>
  );
}

export function Devices() {
  const [search, setSearch] = useState('');
  const [category, setCategory] = useState('');
  const [adding, setAdding] = useState(false);
  const all = devices.value;
  const zigbee = pairingTypes.value.includes('zigbee');
  const categories = useMemo(() => [...new Set(all.map((d) => d.display_category))].sort(), [all]);
  const words = search.trim().toLowerCase();
  const shown = all
    .filter((d) => !category || d.display_category === category)
    .filter(
      (d) =>
        !words ||
        [d.name, d.model, d.manufacturer, categoryName(d.display_category)].some((t) =>
          t.toLowerCase().includes(words),
        ),
    )
    .sort((a, b) => a.name.localeCompare(b.name));
  return (
    <main>
      <div class="toolbar">
        <h1>Devices</h1>
        {zigbee && <Pairing />}
        <button type="button" onClick={() => setAdding(!adding)}>
          Add camera
        </button>
      </div>
      {adding && <AddCamera close={() => setAdding(false)} />}
      <div class="filters">
        <input
          type="search"
          placeholder="Search by name, model, kind"
          aria-label="Search devices"
          value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
        />
        <select
          aria-label="Filter by kind"
          value={category}
          onChange={(e) => setCategory((e.target as HTMLSelectElement).value)}
        >
          <option value="">Every kind</option>
          {categories.map((c) => (
            <option key={c} value={c}>
              {categoryName(c)}
            </option>
          ))}
        </select>
        <span class="muted">
          {shown.length} of {all.length}
        </span>
      </div>
      {!devicesLoaded.value ? (
        <p class="muted">Loading devices…</p>
      ) : all.length === 0 ? (
        <p class="empty">
          {zigbee
            ? 'No devices yet. Pair a Zigbee device or add a camera.'
            : 'No devices yet. Add a camera, or connect a Zigbee network (the setting zigbee.mode, then a restart).'}
        </p>
      ) : (
        <div class="grid">
          {shown.map((d) => (
            <DeviceCard key={d.serial_number} d={d} />
          ))}
        </div>
      )}
    </main>
  );
}
