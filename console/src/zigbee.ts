/**
 * The console's live view of the Zigbee network's upkeep (`/console/api/zigbee/...`): the
 * networks, each device's firmware, the groups, a scan running; kept current by the `zigbee#`
 * events of the console's stream. Pages read the signals; a device page follows its bindings.
 */
import { signal } from '@preact/signals';
import { api } from './api.ts';
import type { FirmwareEvent, FirmwareView, GroupView, NetworkMapEvent, NetworkStatus } from './types.ts';

/** The Zigbee networks this gateway runs (empty: none, the Zigbee pages say so). */
export const networks = signal<NetworkStatus[]>([]);
export const networksLoaded = signal(false);
/** Each Zigbee device's firmware, by serial number. */
export const firmware = signal<Record<string, FirmwareView>>({});
/** Why a device's last update or check failed, by serial number (until the next one starts). */
export const firmwareFailures = signal<Record<string, string>>({});
export const groups = signal<GroupView[]>([]);
export const groupsLoaded = signal(false);
/** The last scan event of each network (`scanning`, `done`, `failed`). */
export const scans = signal<Record<string, NetworkMapEvent>>({});
/** Bumped on every change of a device's bindings (its page reads them again). */
export const bindingsChanged = signal<{ serial: string; n: number }>({ serial: '', n: 0 });

export async function loadNetworks(): Promise<void> {
  const r = await api<{ networks: NetworkStatus[] }>('GET', '/zigbee/networks');
  networks.value = r.networks;
  networksLoaded.value = true;
}

export async function loadFirmware(): Promise<void> {
  const r = await api<{ firmware: FirmwareView[] }>('GET', '/zigbee/firmware');
  firmware.value = Object.fromEntries(r.firmware.map((f) => [f.serial_number, f]));
}

/** Reads one device's firmware again (after an event that ends a step). */
export async function loadFirmwareOf(serial: string): Promise<void> {
  try {
    const r = await api<{ firmware: FirmwareView }>('GET', `/zigbee/firmware/${encodeURIComponent(serial)}`);
    firmware.value = { ...firmware.value, [serial]: r.firmware };
  } catch {
    // not a Zigbee device (any more): nothing to show
  }
}

export async function loadGroups(): Promise<void> {
  const r = await api<{ groups: GroupView[] }>('GET', '/zigbee/groups');
  groups.value = r.groups;
  groupsLoaded.value = true;
}

/** Reads everything again (the stream opened, or came back: events may have been missed). */
export function reloadZigbee(): Promise<unknown> {
  return Promise.all([loadNetworks(), loadFirmware(), loadGroups()]).catch(() => {});
}

/** A firmware event: what it says is shown at once; a step that ends is read back whole. */
function onFirmware(e: FirmwareEvent, deviceChanged: (serial: string) => void): void {
  const serial = e.serial_number;
  const before = firmware.value[serial];
  if (e.state === 'checking' || e.state === 'queued' || e.state === 'updating') {
    const { [serial]: _gone, ...rest } = firmwareFailures.value;
    firmwareFailures.value = rest;
  }
  if (e.state === 'failed' && e.reason) firmwareFailures.value = { ...firmwareFailures.value, [serial]: e.reason };
  if (before && (e.state === 'checking' || e.state === 'queued' || e.state === 'updating')) {
    firmware.value = {
      ...firmware.value,
      [serial]: {
        ...before,
        state: e.state,
        ...(e.progress !== undefined ? { progress: e.progress } : {}),
        ...(e.remaining !== undefined ? { remaining: e.remaining } : {}),
        ...(e.position !== undefined ? { position: e.position } : {}),
      },
    };
    return;
  }
  void loadFirmwareOf(serial);
  // The device now reports another build (D3's firmware_version, which no device event carries).
  if (e.state === 'updated') deviceChanged(serial);
}

/**
 * Follows the `zigbee#` events of the console's stream (`on` adds a listener to it);
 * `deviceChanged` reads a device again.
 */
export function followZigbee(
  on: (name: string, fn: (data: Record<string, unknown>) => void) => void,
  deviceChanged: (serial: string) => void,
): void {
  on('zigbee#firmware', (d) => onFirmware(d.payload as FirmwareEvent, deviceChanged));
  on('zigbee#group', () => {
    void loadGroups().catch(() => {});
  });
  on('zigbee#bindings', (d) => {
    const serial = String((d.payload as { serial_number?: unknown }).serial_number ?? '');
    bindingsChanged.value = { serial, n: bindingsChanged.value.n + 1 };
  });
  on('zigbee#networkMap', (d) => {
    const e = d.payload as NetworkMapEvent;
    scans.value = { ...scans.value, [e.network]: e };
    void loadNetworks().catch(() => {});
  });
}
