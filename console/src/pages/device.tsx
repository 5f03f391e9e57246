/**
 * One device: controls, readings, rename, capabilities, settings, tags, a camera's picture and
 * stream, recent events (each with its time, those loaded with the page too), delete.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, wordsOf } from '../api.ts';
import { BindingsSection } from '../components/bindings.tsx';
import { CameraSections } from '../components/camera.tsx';
import { ControlView } from '../components/controls.tsx';
import { FirmwareSection } from '../components/firmware.tsx';
import { FormFooter } from '../components/form-footer.tsx';
import { lazy } from '../components/lazy.tsx';
import { TagsForm } from '../components/tags-form.tsx';
import { categoryName, describeState, humanize, readingText, shownReadings, timeOf } from '../format.ts';
import { act, devices, notify, onDeviceEvent } from '../store.ts';
import type { Device } from '../types.ts';
import { GroupSection } from './groups.tsx';

const DeviceHistory = lazy(() => import('../components/history-chart.tsx').then((m) => m.DeviceHistory));

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
      <FormFooter label="Save" onCancel={() => setEditing(false)} />
    </form>
  );
}

/** An event of a device in words: what happened (`State`, `Changed`), and what it says. */
function describeEvent(d: Device, e: DeviceEvent): [string, string] {
  const payload = (e.data.payload ?? {}) as Record<string, unknown>;
  switch (e.type) {
    case 'updateDeviceState':
      return ['State', describeState(d, payload)];
    case 'updateDeviceOnline':
      return payload.online ? ['Online', 'came online'] : ['Offline', 'went offline'];
    case 'updateDeviceInfo': {
      // The event carries the name always, and tags or capabilities when they are what changed.
      const what = ['tags', 'capabilities'].filter((k) => k in payload && payload[k] !== undefined);
      return ['Changed', what.length > 0 ? what.join(' and ') : `name: ${String(payload.name)}`];
    }
    case 'addDevice':
      return ['Added', ''];
    case 'deleteDevice':
      return ['Removed', ''];
    default:
      return [humanize(e.type), ''];
  }
}

export function DevicePage({ serial }: { serial: string }) {
  const d = devices.value.find((x) => x.serial_number === serial);
  const [events, setEvents] = useState<DeviceEvent[]>([]);
  const [missing, setMissing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [forgetHistory, setForgetHistory] = useState(false);
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

  const remove = async (forget: boolean) => {
    const serial = encodeURIComponent(d.serial_number);
    try {
      await api('DELETE', `/devices/${serial}`);
    } catch (err) {
      notify('error', wordsOf(err));
      return;
    }
    try {
      // Kept unless asked: a removed device's history stays in the Logbook and Energy pages.
      if (forget) await api('DELETE', `/history/devices/${serial}`);
      notify('ok', forget ? `${d.name} deleted, with its history.` : `${d.name} deleted; its history is kept.`);
    } catch (err) {
      notify('error', `${d.name} deleted, but its history was not: ${wordsOf(err)}`);
    }
    location.hash = '#/devices';
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
      {d.layout.camera && <CameraSections d={d} cam={d.layout.camera} />}
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
      <section>
        <h2>History</h2>
        <DeviceHistory
          key={d.serial_number}
          serial={d.serial_number}
          labels={Object.fromEntries(d.layout.capabilities.map((c) => [c.id, c.label]))}
        />
      </section>
      {d.layout.readings.length > 0 && (
        <section>
          <h2>Readings</h2>
          <dl class="readings wide">
            {shownReadings(d).map((r) => (
              <div key={r.id}>
                <dt>{r.label}</dt>
                <dd>{readingText(d, r)}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
      {d.protocol === 'zigbee' && d.model === 'Zigbee group' && <GroupSection d={d} />}
      {d.protocol === 'zigbee' && <FirmwareSection d={d} />}
      {d.protocol === 'zigbee' && d.model !== 'Zigbee group' && <BindingsSection d={d} />}
      <section>
        <h2>Capabilities</h2>
        <ul class="chips">
          {d.layout.capabilities.map((c) => (
            <li key={c.id} title={`permission ${c.permission}`}>
              {c.label}
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
                  <td>{s.text}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <section>
        <h2>Tags</h2>
        <TagsForm d={d} />
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
            {events.map((e) => {
              const [what, text] = describeEvent(d, e);
              return (
                <li key={e.id}>
                  {e.at && <time dateTime={e.at}>{timeOf(e.at)} </time>}
                  <strong>{what}</strong> {text}
                </li>
              );
            })}
          </ol>
        )}
      </section>
      <section class="danger">
        {deleting ? (
          <form
            class="delete-dialog"
            aria-labelledby="delete-title"
            onSubmit={(e) => {
              e.preventDefault();
              void remove(forgetHistory);
            }}
          >
            <p id="delete-title">
              <strong>Delete {d.name}?</strong> It leaves the gateway (a Zigbee device leaves its network).
            </p>
            <label>
              <input
                type="checkbox"
                name="forget"
                checked={forgetHistory}
                onChange={(e) => setForgetHistory((e.target as HTMLInputElement).checked)}
              />{' '}
              Also delete its history (its charts, logbook entries and energy); otherwise it is kept
            </label>
            <FormFooter label="Delete" kind="danger" onCancel={() => setDeleting(false)} ownRow />
          </form>
        ) : (
          <button type="button" class="danger" onClick={() => setDeleting(true)}>
            Delete device
          </button>
        )}
      </section>
    </main>
  );
}
