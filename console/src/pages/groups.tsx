/**
 * Zigbee groups: one command, one radio frame, every bulb of a room at once. Each group with its
 * switch (it is a device of the device list too), its members (devices, or one channel of a
 * multi-channel switch), rename, add and remove members, delete; and a form to make one.
 */
import { useState } from 'preact/hooks';
import { api, wordsOf } from '../api.ts';
import { channelsOf } from '../components/bindings.tsx';
import { ControlView } from '../components/controls.tsx';
import { FormFooter } from '../components/form-footer.tsx';
import { at } from '../format.ts';
import { act, devices } from '../store.ts';
import type { Device, GroupView } from '../types.ts';
import { groups, groupsLoaded, networks } from '../zigbee.ts';

/** Kinds of device a group takes (those with a Groups cluster: lights, switches, plugs, covers). */
const GROUPABLE = new Set(['light', 'switch', 'plug', 'curtain', 'fanLight']);

/**
 * Each groupable Zigbee device, or each channel of a multi-channel one (with several networks, the
 * gateway refuses a device of another network than the group's, saying so).
 */
function candidates(): { key: string; label: string; serial: string; channel?: string }[] {
  return devices.value
    .filter((d) => d.protocol === 'zigbee' && d.model !== 'Zigbee group' && GROUPABLE.has(d.display_category))
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((d) => {
      const channels = channelsOf(d);
      return channels.length > 1
        ? channels.map((c) => ({
            key: `${d.serial_number}/${c.id}`,
            label: `${d.name} · channel ${c.label}`,
            serial: d.serial_number,
            channel: c.id,
          }))
        : [{ key: d.serial_number, label: d.name, serial: d.serial_number }];
    });
}

const ref = (g: GroupView) => encodeURIComponent(g.group);
const memberName = (m: GroupView['members'][number]) =>
  `${m.name ?? m.ieee_address}${m.channel ? ` · channel ${m.channel}` : ''}`;

/** Whether a member is on now (its own state: a group's state follows its members). */
function MemberPower({ m }: { m: GroupView['members'][number] }) {
  const d = devices.value.find((x) => x.serial_number === m.serial_number);
  const on = m.channel ? at(d?.state, ['toggle', m.channel, 'toggleState']) : at(d?.state, ['power', 'powerState']);
  if (on !== 'on' && on !== 'off') return null;
  return <span class={`member-state ${on}`}>{on}</span>;
}

function NewGroup({ close }: { close(): void }) {
  const nets = networks.value;
  const [name, setName] = useState('');
  const [network, setNetwork] = useState(nets[0]?.network ?? '');
  const [chosen, setChosen] = useState<string[]>([]);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const list = candidates();
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const members = list
        .filter((c) => chosen.includes(c.key))
        .map((c) => ({ serial_number: c.serial, ...(c.channel ? { channel: c.channel } : {}) }));
      await api('POST', '/zigbee/groups', { name, ...(nets.length > 1 ? { network } : {}), members });
      close();
    } catch (err) {
      setError(wordsOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card form" onSubmit={submit} aria-label="New group">
      <h2>New group</h2>
      <label>
        Name
        <input name="name" value={name} required onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </label>
      {nets.length > 1 && (
        <label>
          Network
          <select value={network} onChange={(e) => setNetwork((e.target as HTMLSelectElement).value)}>
            {nets.map((n) => (
              <option key={n.network}>{n.network}</option>
            ))}
          </select>
        </label>
      )}
      <fieldset>
        <legend>Members (lights, switches, plugs, covers: they must share something to switch together)</legend>
        {list.length === 0 ? (
          <p class="muted">No light, switch, plug or cover on this network yet.</p>
        ) : (
          <div class="member-checks">
            {list.map((c) => (
              <label class="check" key={c.key}>
                <input
                  type="checkbox"
                  checked={chosen.includes(c.key)}
                  onChange={(e) =>
                    setChosen(
                      (e.target as HTMLInputElement).checked ? [...chosen, c.key] : chosen.filter((k) => k !== c.key),
                    )
                  }
                />
                {c.label}
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <FormFooter
        error={error}
        label="Make the group"
        busy={busy}
        busyLabel="Making the group…"
        onCancel={close}
        ownRow
      />
    </form>
  );
}

function GroupCard({ g }: { g: GroupView }) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(g.name);
  const [adding, setAdding] = useState('');
  const device: Device | undefined = devices.value.find((d) => d.serial_number === g.serial_number);
  // What switches the room, as on its device card: power, brightness, colour.
  const controls =
    device?.layout.controls.filter((c) => ['switch', 'range', 'color'].includes(c.kind)).slice(0, 3) ?? [];
  const list = candidates().filter(
    (c) => !g.members.some((m) => m.serial_number === c.serial && (m.channel ?? undefined) === c.channel),
  );
  const rename = async (e: Event) => {
    e.preventDefault();
    const done = await act(`Renamed to ${name}.`, () => api('PUT', `/zigbee/groups/${ref(g)}`, { name }));
    if (done) setRenaming(false);
  };
  const add = async () => {
    const c = list.find((x) => x.key === adding);
    if (!c) return;
    const done = await act(`${c.label} added to ${g.name}.`, () =>
      api('POST', `/zigbee/groups/${ref(g)}/members`, {
        serial_number: c.serial,
        ...(c.channel ? { channel: c.channel } : {}),
      }),
    );
    if (done) setAdding('');
  };
  const remove = (m: GroupView['members'][number]) =>
    act(`${memberName(m)} left ${g.name}.`, () =>
      api(
        'DELETE',
        `/zigbee/groups/${ref(g)}/members/${encodeURIComponent(m.serial_number ?? m.ieee_address)}${m.channel ? `?channel=${encodeURIComponent(m.channel)}` : ''}`,
      ),
    );
  const drop = () => {
    if (!confirm(`Delete the group ${g.name}? Its members stay paired; bindings to the group stop working.`)) return;
    void act(`${g.name} deleted.`, () => api('DELETE', `/zigbee/groups/${ref(g)}`));
  };
  return (
    <article class="card group" data-group={g.group}>
      {renaming ? (
        <form class="row" onSubmit={rename}>
          <input
            aria-label="New name"
            value={name}
            required
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
          <FormFooter label="Save" small onCancel={() => setRenaming(false)} />
        </form>
      ) : (
        <header>
          <h2 class="group-name">{g.name}</h2>
          <button
            type="button"
            class="small"
            onClick={() => {
              setName(g.name);
              setRenaming(true);
            }}
          >
            Rename
          </button>
        </header>
      )}
      <p class="muted">
        {g.members.length} {g.members.length === 1 ? 'member' : 'members'} · Zigbee group {g.id} on {g.network}
        {device && (
          <>
            {' · '}
            <a href={`#/devices/${encodeURIComponent(device.serial_number)}`}>its device</a>
          </>
        )}
      </p>
      {device && controls.map((c) => <ControlView key={c.id} d={device} c={c} />)}
      {g.members.length === 0 ? (
        <p class="muted">No member yet: it is not in the device list until it has one.</p>
      ) : (
        <ul class="members">
          {g.members.map((m) => (
            <li key={`${m.ieee_address}/${m.endpoint}`}>
              <span>
                {memberName(m)} <MemberPower m={m} />
              </span>
              <button type="button" class="small" onClick={() => void remove(m)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="row">
        <select
          aria-label={`Add to ${g.name}`}
          value={adding}
          onChange={(e) => setAdding((e.target as HTMLSelectElement).value)}
        >
          <option value="">Add a member…</option>
          {list.map((c) => (
            <option key={c.key} value={c.key}>
              {c.label}
            </option>
          ))}
        </select>
        <button type="button" disabled={!adding} onClick={() => void add()}>
          Add
        </button>
      </div>
      <button type="button" class="danger small" onClick={drop}>
        Delete group
      </button>
    </article>
  );
}

export function GroupsPage() {
  const [making, setMaking] = useState(false);
  if (networks.value.length === 0)
    return (
      <p class="empty">No Zigbee network runs here (the setting zigbee.mode is off, or its driver is starting).</p>
    );
  const list = [...groups.value].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <>
      <div class="toolbar">
        <button type="button" class="primary" onClick={() => setMaking(!making)}>
          New group
        </button>
        <span class="muted">
          A group is switched with one Zigbee command: every member at once. It is a device of the device list too, so
          every app can switch it.
        </span>
      </div>
      {making && <NewGroup close={() => setMaking(false)} />}
      {!groupsLoaded.value ? (
        <p class="muted">Loading the groups…</p>
      ) : list.length === 0 ? (
        <p class="empty">No group yet.</p>
      ) : (
        <div class="grid wide">
          {list.map((g) => (
            <GroupCard key={g.group} g={g} />
          ))}
        </div>
      )}
    </>
  );
}

/** On a group's device page: its members, and where to change them. */
export function GroupSection({ d }: { d: Device }) {
  const g = groups.value.find((x) => x.serial_number === d.serial_number);
  if (!g) return null;
  return (
    <section aria-labelledby="group-title">
      <h2 id="group-title">Group</h2>
      <p class="muted">
        One Zigbee command switches every member (group {g.id} on {g.network}). It is on when any member is on.
      </p>
      <ul class="members">
        {g.members.map((m) => (
          <li key={`${m.ieee_address}/${m.endpoint}`}>
            {m.serial_number ? (
              <a href={`#/devices/${encodeURIComponent(m.serial_number)}`}>{memberName(m)}</a>
            ) : (
              memberName(m)
            )}
          </li>
        ))}
      </ul>
      <a href="#/zigbee/groups">Change the members on the groups page</a>
    </section>
  );
}
