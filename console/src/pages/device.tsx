/** One device: controls, readings, rename, capabilities, settings, tags, a camera's picture, recent events, delete. */
import { useEffect, useState } from 'preact/hooks';
import { api, wordsOf } from '../api.ts';
import { ControlView } from '../components/controls.tsx';
import { categoryName, humanize, readingText } from '../format.ts';
import { act, devices, notify, onDeviceEvent } from '../store.ts';
import type { Device } from '../types.ts';

interface DeviceEvent {
  id: number;
  type: string;
  data: { payload?: unknown };
  at?: string;
}

function Rename({ d }: { d: Device }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(d.name);
  if (!editing)
    return (
      <div class="title">
        <h1>{d.name}</h1>
        <button
          type="button"
          onClick={() => {
            setName(d.name);
            setEditing(true);
          }}
        >
          Rename
        </button>
      </div>
    );
  return (
    <form
      class="title"
      onSubmit={async (e) => {
        e.preventDefault();
        const done = await act(`Renamed to ${name}.`, () =>
          api('PUT', `/devices/${encodeURIComponent(d.serial_number)}`, { name }),
        );
        if (done) setEditing(false);
      }}
    >
      <input
        name="name"
        aria-label="New name"
        value={name}
        onInput={(e) => setName((e.target as HTMLInputElement).value)}
        required
      />
      <button type="submit" class="primary">
        Save
      </button>
      <button type="button" onClick={() => setEditing(false)}>
        Cancel
      </button>
    </form>
  );
}

function Tags({ d }: { d: Device }) {
  const [text, setText] = useState(JSON.stringify(d.tags ?? {}, null, 2));
  const [error, setError] = useState('');
  useEffect(() => setText(JSON.stringify(d.tags ?? {}, null, 2)), [d.tags]);
  return (
    <form
      class="tags"
      onSubmit={async (e) => {
        e.preventDefault();
        setError('');
        let tags: unknown;
        try {
          tags = JSON.parse(text);
        } catch (err) {
          setError(`These tags are not JSON: ${wordsOf(err)}`);
          return;
        }
        await act('Tags saved.', () => api('PUT', `/devices/${encodeURIComponent(d.serial_number)}`, { tags }));
      }}
    >
      <textarea
        aria-label="Tags (JSON)"
        rows={4}
        value={text}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
      />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit">Save tags</button>
    </form>
  );
}

function Camera({ d }: { d: Device }) {
  const [stamp, setStamp] = useState(Date.now());
  const [liveView, setLiveView] = useState(false);
  const base = `/console/api/cameras/${encodeURIComponent(d.serial_number)}`;
  return (
    <section>
      <h2>Picture</h2>
      {liveView ? (
        <img class="camera" src={`${base}/live`} alt={`Live view of ${d.name}`} />
      ) : (
        <img class="camera" src={`${base}/snapshot?t=${stamp}`} alt={`Snapshot of ${d.name}`} />
      )}
      <div class="buttons">
        <button type="button" onClick={() => setStamp(Date.now())} disabled={liveView}>
          New snapshot
        </button>
        <button type="button" onClick={() => setLiveView(!liveView)}>
          {liveView ? 'Stop live view' : 'Live view'}
        </button>
      </div>
    </section>
  );
}

/** `{power:{powerState:'on'}}` -> `power state on`. */
function flat(v: unknown, prefix = ''): string[] {
  if (typeof v !== 'object' || v === null) return [`${prefix}${String(v)}`];
  return Object.entries(v).flatMap(([k, w]) =>
    flat(w, typeof w === 'object' && w !== null ? `${prefix}` : `${prefix}${humanize(k).toLowerCase()} `),
  );
}

function describeEvent(e: DeviceEvent): string {
  const payload = e.data.payload;
  switch (e.type) {
    case 'updateDeviceState':
      return flat(payload).join(', ');
    case 'updateDeviceOnline':
      return (payload as { online: boolean }).online ? 'came online' : 'went offline';
    case 'updateDeviceInfo':
      return `information changed (name ${(payload as { name: string }).name})`;
    case 'addDevice':
      return 'added';
    case 'deleteDevice':
      return 'removed';
    default:
      return e.type;
  }
}

export function DevicePage({ serial }: { serial: string }) {
  const d = devices.value.find((x) => x.serial_number === serial);
  const [events, setEvents] = useState<DeviceEvent[]>([]);
  const [missing, setMissing] = useState(false);
  useEffect(() => {
    let alive = true;
    api<{ events: DeviceEvent[] }>('GET', `/devices/${encodeURIComponent(serial)}`)
      .then((r) => alive && setEvents(r.events))
      .catch(() => alive && setMissing(true));
    const off = onDeviceEvent((s, type, data) => {
      if (s === serial)
        setEvents((list) =>
          [{ id: Date.now(), type, data: data as DeviceEvent['data'], at: new Date().toISOString() }, ...list].slice(
            0,
            50,
          ),
        );
    });
    return () => {
      alive = false;
      off();
    };
  }, [serial]);

  if (!d)
    return (
      <main>
        <p class="empty">{missing ? 'This device does not exist (any more).' : 'Loading…'}</p>
        <a href="#/devices">Back to the devices</a>
      </main>
    );

  const remove = async () => {
    if (!confirm(`Delete ${d.name}? It leaves the gateway (a Zigbee device leaves its network).`)) return;
    try {
      await api('DELETE', `/devices/${encodeURIComponent(d.serial_number)}`);
      notify('ok', `${d.name} deleted.`);
      location.hash = '#/devices';
    } catch (err) {
      notify('error', wordsOf(err));
    }
  };

  return (
    <main class="device-page">
      <a href="#/devices" class="back">
        ← Devices
      </a>
      <Rename d={d} />
      <p class="muted">
        {categoryName(d.display_category)} · {d.manufacturer} {d.model} ·{' '}
        <span class={d.online ? 'dot online' : 'dot'}>{d.online ? 'online' : 'offline'}</span>
      </p>
      {d.display_category === 'camera' && <Camera d={d} />}
      {d.layout.controls.length > 0 && (
        <section>
          <h2>Control</h2>
          <div class="controls">
            {d.layout.controls.map((c) => (
              <ControlView key={c.id} d={d} c={c} />
            ))}
          </div>
        </section>
      )}
      {d.layout.readings.length > 0 && (
        <section>
          <h2>Readings</h2>
          <dl class="readings wide">
            {d.layout.readings.map((r) => (
              <div key={r.id}>
                <dt>{r.label}</dt>
                <dd>{readingText(d, r)}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
      <section>
        <h2>Capabilities</h2>
        <ul class="chips">
          {d.capabilities.map((c) => (
            <li key={`${c.capability}/${c.name ?? ''}`} title={`permission ${c.permission}`}>
              {humanize(c.capability)}
              {c.name !== undefined ? ` (${c.name})` : ''}
            </li>
          ))}
        </ul>
      </section>
      {d.layout.settings.length > 0 && (
        <section>
          <h2>Settings</h2>
          <table class="values">
            <tbody>
              {d.layout.settings.map((s) => (
                <tr key={`${s.capability}/${s.name ?? ''}/${s.key}`}>
                  <th>{s.label}</th>
                  <td>
                    {typeof s.value === 'object' ? JSON.stringify(s.value) : String(s.value ?? '–')}
                    {s.unit ? ` ${s.unit}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <section>
        <h2>Tags</h2>
        <Tags d={d} />
      </section>
      <section>
        <h2>About</h2>
        <table>
          <tbody>
            <tr>
              <th>Serial number</th>
              <td>{d.serial_number}</td>
            </tr>
            {d.protocol && (
              <tr>
                <th>Protocol</th>
                <td>{d.protocol}</td>
              </tr>
            )}
            {d.firmware_version && (
              <tr>
                <th>Firmware</th>
                <td>{d.firmware_version}</td>
              </tr>
            )}
            {d.app_name && (
              <tr>
                <th>Added by</th>
                <td>{d.app_name}</td>
              </tr>
            )}
          </tbody>
        </table>
      </section>
      <section>
        <h2>Recent events</h2>
        {events.length === 0 ? (
          <p class="muted">None kept.</p>
        ) : (
          <ol class="events">
            {events.map((e) => (
              <li key={e.id}>
                {e.at && <time>{new Date(e.at).toLocaleTimeString()} </time>}
                <strong>{humanize(e.type.replace(/^update/, ''))}</strong> {describeEvent(e)}
              </li>
            ))}
          </ol>
        )}
      </section>
      <section class="danger">
        <button type="button" class="danger" onClick={() => void remove()}>
          Delete device
        </button>
      </section>
    </main>
  );
}
