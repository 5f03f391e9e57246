/**
 * The Zigbee pages: the network map, the groups, and the firmware of every device that takes
 * updates (check them all, update one at a time per network), each under its own tab.
 */
import { api } from '../api.ts';
import { FirmwareButtons, FirmwareStatus } from '../components/firmware.tsx';
import { fileVersion } from '../format.ts';
import { act, devices } from '../store.ts';
import { firmware, firmwareFailures, networks } from '../zigbee.ts';
import { GroupsPage } from './groups.tsx';
import { NetworkMapPage } from './network-map.tsx';

const TABS = [
  ['map', 'Network map'],
  ['groups', 'Groups'],
  ['firmware', 'Firmware'],
] as const;

function FirmwarePage() {
  const rows = Object.values(firmware.value)
    .filter((f) => f.supported)
    .map((f) => ({ f, d: devices.value.find((d) => d.serial_number === f.serial_number) }))
    .filter((r) => r.d !== undefined)
    .sort((a, b) => (a.d?.name ?? '').localeCompare(b.d?.name ?? ''));
  const updating = networks.value.filter((n) => n.updating);
  return (
    <>
      <div class="toolbar">
        <button
          type="button"
          class="primary"
          onClick={() =>
            void act('Checking every device that takes updates, one after the other.', () =>
              api('POST', '/zigbee/firmware/check'),
            )
          }
        >
          Check all for updates
        </button>
        <span class="muted">
          Mains-powered devices first; a sleeping device answers when it wakes up. One update runs at a time on a
          network (the radio is shared): the others wait their turn.
        </span>
      </div>
      {updating.length > 0 && (
        <p class="muted" role="status">
          {updating
            .map(
              (n) =>
                `${devices.value.find((d) => d.serial_number === n.updating)?.name ?? n.updating} is being updated`,
            )
            .join('; ')}
          .
        </p>
      )}
      {rows.length === 0 ? (
        <p class="empty">No device here takes firmware updates.</p>
      ) : (
        <div class="table-wrap">
          <table class="firmware-table">
            <thead>
              <tr>
                <th>Device</th>
                <th>Runs</th>
                <th>Latest</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map(({ f, d }) =>
                d ? (
                  <tr key={f.serial_number} data-serial={f.serial_number}>
                    <td>
                      <a href={`#/devices/${encodeURIComponent(d.serial_number)}`}>{d.name}</a>
                      {!d.online && <span class="muted small"> (offline)</span>}
                    </td>
                    <td>
                      {d.firmware_version || '–'}
                      <div class="muted small">{fileVersion(f.installed_version)}</div>
                    </td>
                    <td>{f.latest_version === undefined ? '–' : fileVersion(f.latest_version)}</td>
                    <td>
                      <FirmwareStatus f={f} />
                      {firmwareFailures.value[f.serial_number] && (
                        <div class="error small">Failed: {firmwareFailures.value[f.serial_number]}</div>
                      )}
                    </td>
                    <td>
                      <FirmwareButtons f={f} name={d.name} online={d.online} />
                    </td>
                  </tr>
                ) : null,
              )}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

export function ZigbeePage({ tab }: { tab: string | undefined }) {
  const current = TABS.some(([id]) => id === tab) ? (tab as string) : 'map';
  return (
    <main class="zigbee-page">
      <h1>Zigbee</h1>
      <nav class="tabs" aria-label="Zigbee">
        {TABS.map(([id, label]) => (
          <a
            key={id}
            href={`#/zigbee/${id}`}
            class={current === id ? 'current' : ''}
            aria-current={current === id ? 'page' : undefined}
          >
            {label}
          </a>
        ))}
      </nav>
      {current === 'groups' ? <GroupsPage /> : current === 'firmware' ? <FirmwarePage /> : <NetworkMapPage />}
    </main>
  );
}
