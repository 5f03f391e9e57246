/**
 * A Zigbee device's bindings on its page: what it sends straight to another device or a group (a
 * remote to a bulb, a switch to a plug), per cluster, working even while the gateway is down; each
 * removable, and a form to add one. The gateway checks each end (one sends the cluster, the other
 * serves it) and says why when they do not match.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, wordsOf } from '../api.ts';
import { humanize } from '../format.ts';
import { act, devices } from '../store.ts';
import type { BindingView, Device } from '../types.ts';
import { bindingsChanged, groups } from '../zigbee.ts';
import { FormFooter } from './form-footer.tsx';

/** The clusters a binding carries, in words (the order Zigbee2MQTT offers them). */
export const CLUSTERS: Record<string, string> = {
  genOnOff: 'On/off',
  genLevelCtrl: 'Brightness',
  lightingColorCtrl: 'Colour',
  closuresWindowCovering: 'Cover',
  genScenes: 'Scenes',
  hvacThermostat: 'Thermostat',
  msTemperatureMeasurement: 'Temperature',
  msRelativeHumidity: 'Humidity',
  msIlluminanceMeasurement: 'Illuminance',
  msSoilMoisture: 'Soil moisture',
  msCO2: 'CO₂',
};

export const clusterName = (c: string) => CLUSTERS[c] ?? humanize(c);

/** A device's channels (`1`, `2`), with their labels (`tags.toggle`), for a multi-channel device. */
export function channelsOf(d: Device): { id: string; label: string }[] {
  const labels = (d.tags?.toggle ?? {}) as Record<string, unknown>;
  const ids = [
    ...new Set(d.capabilities.filter((c) => c.capability === 'toggle' && c.name).map((c) => c.name as string)),
  ];
  return ids.map((id) => ({ id, label: typeof labels[id] === 'string' ? `${id} (${labels[id]})` : id }));
}

/** Where a binding sends, in words. */
function targetText(b: BindingView): string {
  const t = b.target;
  if (t.type === 'coordinator') return 'the gateway (reports)';
  if (t.type === 'group') return `group ${groups.value.find((g) => g.group === t.group)?.name ?? t.group}`;
  const d = devices.value.find((x) => x.serial_number === t.serial_number);
  const name = d?.name ?? t.ieee_address;
  return t.channel ? `${name}, channel ${t.channel}` : name;
}

function AddBinding({ d, done }: { d: Device; done(): void }) {
  const zigbee = devices.value
    .filter((x) => x.protocol === 'zigbee' && x.serial_number !== d.serial_number && x.model !== 'Zigbee group')
    .sort((a, b) => a.name.localeCompare(b.name));
  const [target, setTarget] = useState('');
  const [clusters, setClusters] = useState<string[]>([]);
  const [sourceChannel, setSourceChannel] = useState('');
  const [targetChannel, setTargetChannel] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const targetDevice = devices.value.find((x) => x.serial_number === target);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await api('POST', '/zigbee/bind', {
        source: d.serial_number,
        target,
        ...(sourceChannel ? { source_channel: sourceChannel } : {}),
        ...(targetChannel && targetDevice ? { target_channel: targetChannel } : {}),
        ...(clusters.length > 0 ? { clusters } : {}),
      });
      setClusters([]);
      done();
    } catch (err) {
      setError(wordsOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="bind-form" onSubmit={submit} aria-label="Add a binding">
      <label>
        Send to
        <select
          name="target"
          value={target}
          required
          onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}
        >
          <option value="">Choose a device or a group</option>
          {groups.value.length > 0 && (
            <optgroup label="Groups">
              {groups.value.map((g) => (
                <option key={g.group} value={g.group}>
                  {g.name}
                </option>
              ))}
            </optgroup>
          )}
          <optgroup label="Devices">
            {zigbee.map((x) => (
              <option key={x.serial_number} value={x.serial_number}>
                {x.name}
              </option>
            ))}
          </optgroup>
        </select>
      </label>
      {channelsOf(d).length > 1 && (
        <label>
          From its channel
          <select value={sourceChannel} onChange={(e) => setSourceChannel((e.target as HTMLSelectElement).value)}>
            <option value="">the one that sends</option>
            {channelsOf(d).map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
      )}
      {targetDevice && channelsOf(targetDevice).length > 1 && (
        <label>
          To its channel
          <select value={targetChannel} onChange={(e) => setTargetChannel((e.target as HTMLSelectElement).value)}>
            <option value="">the first that takes it</option>
            {channelsOf(targetDevice).map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
      )}
      <fieldset>
        <legend>What it sends (none ticked: everything the two share)</legend>
        <div class="chip-checks">
          {Object.entries(CLUSTERS).map(([c, words]) => (
            <label class="check" key={c}>
              <input
                type="checkbox"
                checked={clusters.includes(c)}
                onChange={(e) =>
                  setClusters(
                    (e.target as HTMLInputElement).checked ? [...clusters, c] : clusters.filter((x) => x !== c),
                  )
                }
              />
              {words}
            </label>
          ))}
        </div>
      </fieldset>
      <FormFooter error={error} label="Bind" busy={busy} busyLabel="Binding…" disabled={!target} />
    </form>
  );
}

/** The bindings section of a Zigbee device's page. */
export function BindingsSection({ d }: { d: Device }) {
  const [list, setList] = useState<BindingView[] | null | undefined>();
  const [adding, setAdding] = useState(false);
  const changed = bindingsChanged.value;
  const load = () =>
    api<{ bindings: BindingView[] }>('GET', `/zigbee/bindings/${encodeURIComponent(d.serial_number)}`)
      .then((r) => setList(r.bindings))
      // Not a Zigbee device the network lists (yet): no section.
      .catch(() => setList(null));
  useEffect(() => {
    void load();
  }, [d.serial_number, changed.serial === d.serial_number ? changed.n : 0]);
  if (list === null || list === undefined) return null;
  const unbind = (b: BindingView) => {
    const target =
      b.target.type === 'group' ? b.target.group : b.target.type === 'device' ? b.target.serial_number : '';
    if (!target) return;
    void act(`${clusterName(b.cluster)} to ${targetText(b)}: unbound.`, () =>
      api('POST', '/zigbee/unbind', {
        source: d.serial_number,
        target,
        clusters: [b.cluster],
        ...(b.source_channel ? { source_channel: b.source_channel } : {}),
        ...(b.target.type === 'device' && b.target.channel ? { target_channel: b.target.channel } : {}),
      }),
    ).then(load);
  };
  return (
    <section class="bindings" aria-labelledby="bindings-title">
      <h2 id="bindings-title">Bindings</h2>
      <p class="muted small">
        What this device commands directly, without the gateway: it keeps working while the gateway is down.
      </p>
      {list.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ul class="binding-list">
          {list.map((b) => (
            <li key={`${b.source_endpoint}/${b.cluster}/${JSON.stringify(b.target)}`}>
              <span>
                <strong>{clusterName(b.cluster)}</strong>
                {b.source_channel ? ` (channel ${b.source_channel})` : ''} → {targetText(b)}
              </span>
              {b.target.type !== 'coordinator' && (
                <button type="button" class="small" onClick={() => unbind(b)}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {adding ? (
        <AddBinding
          d={d}
          done={() => {
            setAdding(false);
            void load();
          }}
        />
      ) : (
        <button type="button" onClick={() => setAdding(true)}>
          Add a binding
        </button>
      )}
    </section>
  );
}
