/**
 * A Zigbee device's firmware, on its page and in the firmware list: what it runs and what the
 * index offers, the state (checked, available, queued, the progress of an update with its time
 * left), the reason a step failed, and the buttons to check, update and cancel.
 */
import { useEffect } from 'preact/hooks';
import { api } from '../api.ts';
import { fileVersion, timeLeft, when } from '../format.ts';
import { act } from '../store.ts';
import type { Device, FirmwareView } from '../types.ts';
import { firmware, firmwareFailures, loadFirmwareOf } from '../zigbee.ts';

const path = (serial: string, what: string) => `/zigbee/firmware/${encodeURIComponent(serial)}/${what}`;

/** What the firmware's state says, in words. */
export function FirmwareStatus({ f }: { f: FirmwareView }) {
  switch (f.state) {
    case 'updating':
      return (
        <div class="firmware-progress" role="status">
          <progress max={100} value={f.progress ?? 0} aria-label="Update progress" />
          <span>
            Updating: <strong>{Math.round(f.progress ?? 0)} %</strong> · {timeLeft(f.remaining)}
          </span>
        </div>
      );
    case 'queued':
      return <span role="status">Waiting for the update before it on the network (place {f.position ?? 1}).</span>;
    case 'checking':
      return <span role="status">Checking… (a sleeping device answers when it wakes up)</span>;
    case 'available':
      return <strong class="available">A newer firmware is available.</strong>;
    case 'idle':
      return <span>Up to date.</span>;
    default:
      return <span class="muted">Not checked yet.</span>;
  }
}

/** Check, update and cancel, as the state allows. */
export function FirmwareButtons({ f, name, online }: { f: FirmwareView; name: string; online: boolean }) {
  const serial = f.serial_number;
  const busy = f.state === 'checking' || f.state === 'queued' || f.state === 'updating';
  const update = () => {
    if (
      !confirm(
        `Install the new firmware on ${name}? It takes minutes (up to an hour on a slow device); ${name} keeps working meanwhile and restarts into the new firmware at the end.`,
      )
    )
      return;
    void act(`The update of ${name} has started.`, () => api('POST', path(serial, 'update')));
  };
  return (
    <div class="buttons">
      <button
        type="button"
        disabled={busy || !online}
        onClick={() => void act(`${name} was checked.`, () => api('POST', path(serial, 'check')))}
      >
        Check for update
      </button>
      {f.state === 'available' && (
        <button type="button" class="primary" disabled={!online} onClick={update}>
          Update
        </button>
      )}
      {(f.state === 'queued' || f.state === 'updating') && (
        <button
          type="button"
          onClick={() =>
            void act(
              f.state === 'queued'
                ? `The update of ${name} was taken out of the queue.`
                : `The update of ${name} is stopped.`,
              () => api('DELETE', path(serial, 'update')),
            )
          }
        >
          {f.state === 'queued' ? 'Cancel' : 'Stop the update'}
        </button>
      )}
    </div>
  );
}

/** The firmware section of a device's page (Zigbee devices whose model takes updates). */
export function FirmwareSection({ d }: { d: Device }) {
  const f = firmware.value[d.serial_number];
  const failure = firmwareFailures.value[d.serial_number];
  useEffect(() => {
    if (d.protocol === 'zigbee') void loadFirmwareOf(d.serial_number);
  }, [d.serial_number]);
  if (!f?.supported) return null;
  return (
    <section class="firmware" aria-labelledby="firmware-title">
      <h2 id="firmware-title">Firmware</h2>
      <table class="values">
        <tbody>
          <tr>
            <th>Installed</th>
            <td>
              {d.firmware_version || '–'}{' '}
              <span class="muted small">(file version {fileVersion(f.installed_version)})</span>
            </td>
          </tr>
          <tr>
            <th>Latest</th>
            <td>
              {f.latest_version === undefined ? 'not checked yet' : `file version ${fileVersion(f.latest_version)}`}
            </td>
          </tr>
          <tr>
            <th>Last check</th>
            <td>{when(f.checked_at)}</td>
          </tr>
        </tbody>
      </table>
      <FirmwareStatus f={f} />
      {failure && (
        <p class="error" role="alert">
          The last attempt failed: {failure}. The device keeps its firmware and works as before.
        </p>
      )}
      {!d.online && <p class="muted">The device is offline: it can be checked and updated once it is back.</p>}
      <FirmwareButtons f={f} name={d.name} online={d.online} />
    </section>
  );
}
