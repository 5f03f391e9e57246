/**
 * The console's live state: signals filled from the API once, then kept current by the one event
 * stream of this console (`/console/api/events`). Device states are merged as the events carry
 * them; a device whose information changed is read again (its layout may have changed).
 */
import { computed, signal } from '@preact/signals';
import { ApiError, api, whenLoggedOut, wordsOf } from './api.ts';
import type { AlarmStatus, Device, Window } from './types.ts';
import { followZigbee, reloadZigbee } from './zigbee.ts';

export type AuthState = 'loading' | 'login' | 'setup' | 'in';

export const auth = signal<AuthState>('loading');
export const gatewayName = signal('opencube');
/** How the gateway's user sets the console password on its machine, as the gateway was started (`npm run opencube -- passwd`). */
export const passwdCommand = signal('opencube passwd');
/** When the gateway's store was restored from a backup (within the last day), or null: the login says so. */
export const restoredAt = signal<string | null>(null);
export const devices = signal<Device[]>([]);
export const devicesLoaded = signal(false);
export const waiting = signal<string[]>([]);
export const linkWindow = signal<Window>({ open: false, until: null });
export const pairing = signal<Window>({ open: false, until: null });
/** What this gateway's drivers pair (`zigbee`); empty when nothing does (no pairing button then). */
export const pairingTypes = signal<string[]>([]);
export const alarm = signal<AlarmStatus | null>(null);
export const live = signal<'connecting' | 'live' | 'lost'>('connecting');
/** Bumped on every arm or alarm event: the security page reads itself again. */
export const securityVersion = signal(0);
/** Bumped when tokens change. */
export const tokensVersion = signal(0);
/** Bumped on every event of scenes and automations (saved, run, finished...): their pages read themselves again. */
export const automationsVersion = signal(0);

export const alarming = computed(() => alarm.value?.alarm_state === 'alarming');

export interface Toast {
  id: number;
  kind: 'ok' | 'error' | 'info';
  text: string;
}
export const toasts = signal<Toast[]>([]);
let toastId = 0;

/** Shows a short message: what was done, or why not. */
export function notify(kind: Toast['kind'], text: string): void {
  const id = ++toastId;
  // The same words again (a form saved twice in a row) replace the older toast rather than stack.
  const others = toasts.value.filter((t) => t.kind !== kind || t.text !== text);
  toasts.value = [...others.slice(-3), { id, kind, text }];
  setTimeout(() => dismiss(id), kind === 'error' ? 8000 : 3500);
}

export function dismiss(id: number): void {
  toasts.value = toasts.value.filter((t) => t.id !== id);
}

/** Runs an action and says how it went. */
export async function act<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    const r = await fn();
    notify('ok', what);
    return r;
  } catch (err) {
    notify('error', wordsOf(err));
    return undefined;
  }
}

type DeviceListener = (serial: string, type: string, data: unknown) => void;
const deviceListeners = new Set<DeviceListener>();

/** Follows device events (a device page shows them as they come). */
export function onDeviceEvent(fn: DeviceListener): () => void {
  deviceListeners.add(fn);
  return () => deviceListeners.delete(fn);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A state delta merged per capability and name level, as the gateway merges reports. */
export function mergeState(state: Record<string, unknown>, delta: Record<string, unknown>): Record<string, unknown> {
  const out = { ...state };
  for (const [cap, v] of Object.entries(delta)) {
    const old = out[cap];
    if (isObject(v) && isObject(old)) {
      const inner: Record<string, unknown> = { ...old };
      for (const [k, w] of Object.entries(v)) inner[k] = isObject(w) && isObject(inner[k]) ? { ...inner[k], ...w } : w;
      out[cap] = inner;
    } else out[cap] = v;
  }
  return out;
}

function replaceDevice(d: Device): void {
  const list = devices.value;
  const i = list.findIndex((x) => x.serial_number === d.serial_number);
  devices.value = i === -1 ? [...list, d] : [...list.slice(0, i), d, ...list.slice(i + 1)];
}

function patchDevice(serial: string, fn: (d: Device) => Device): void {
  const list = devices.value;
  const i = list.findIndex((x) => x.serial_number === serial);
  if (i === -1) return;
  devices.value = [...list.slice(0, i), fn(list[i] as Device), ...list.slice(i + 1)];
}

/** Reads one device again (its layout follows its capabilities and tags). */
export async function refreshDevice(serial: string): Promise<void> {
  try {
    const r = await api<{ device: Device }>('GET', `/devices/${encodeURIComponent(serial)}`);
    replaceDevice(r.device);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404)
      devices.value = devices.value.filter((d) => d.serial_number !== serial);
  }
}

export async function loadDevices(): Promise<void> {
  const r = await api<{ devices: Device[]; pairing: Window; pairing_types: string[] }>('GET', '/devices');
  devices.value = r.devices;
  pairing.value = r.pairing;
  pairingTypes.value = r.pairing_types;
  devicesLoaded.value = true;
}

/** Loads of the alarm asked for: answers can arrive out of order, only the latest one's counts. */
let alarmLoads = 0;

export async function loadAlarm(): Promise<void> {
  const n = ++alarmLoads;
  const r = await api<{ alarm: AlarmStatus }>('GET', '/security');
  if (n === alarmLoads) alarm.value = r.alarm;
}

/** Counts the link events of each kind: an answer read before one is older than what it says. */
const linkEvents = { waiting: 0, window: 0 };

async function loadLink(): Promise<void> {
  const seen = { ...linkEvents };
  const r = await api<{ waiting: string[]; window: Window }>('GET', '/link');
  if (seen.waiting === linkEvents.waiting) waiting.value = r.waiting;
  if (seen.window === linkEvents.window) linkWindow.value = r.window;
}

let stream: EventSource | undefined;
let retry: ReturnType<typeof setTimeout> | undefined;

function on(es: EventSource, name: string, fn: (data: Record<string, unknown>) => void): void {
  es.addEventListener(name, (e) => fn(JSON.parse((e as MessageEvent<string>).data) as Record<string, unknown>));
}

function endpointSerial(data: Record<string, unknown>): string {
  return String((data.endpoint as { serial_number?: unknown } | undefined)?.serial_number ?? '');
}

/** Opens this console's event stream (and reads everything again, so nothing missed while it was closed is lost). */
export function connect(): void {
  stream?.close();
  clearTimeout(retry);
  live.value = 'connecting';
  const es = new EventSource('/console/api/events');
  stream = es;
  es.onopen = () => {
    live.value = 'live';
    // What changed while the stream was closed is read again (the automations' pages too).
    automationsVersion.value++;
    void Promise.all([loadDevices(), loadLink(), loadAlarm()]).catch((err) => notify('error', wordsOf(err)));
    void reloadZigbee();
  };
  es.onerror = () => {
    if (es.readyState !== EventSource.CLOSED) {
      live.value = 'lost';
      return;
    }
    // Closed for good (the session ended, or the gateway restarted): check the session, then come back.
    live.value = 'lost';
    retry = setTimeout(() => void checkAuth(), 2000);
  };
  on(es, 'device#addDevice', (d) => {
    const payload = d.payload as { serial_number: string; name: string };
    notify('info', `New device: ${payload.name}`);
    void refreshDevice(payload.serial_number);
    for (const l of deviceListeners) l(payload.serial_number, 'addDevice', d);
  });
  on(es, 'device#updateDeviceState', (d) => {
    const serial = endpointSerial(d);
    patchDevice(serial, (x) => ({ ...x, state: mergeState(x.state, d.payload as Record<string, unknown>) }));
    for (const l of deviceListeners) l(serial, 'updateDeviceState', d);
  });
  on(es, 'device#updateDeviceInfo', (d) => {
    const serial = endpointSerial(d);
    void refreshDevice(serial);
    for (const l of deviceListeners) l(serial, 'updateDeviceInfo', d);
  });
  on(es, 'device#updateDeviceOnline', (d) => {
    const serial = endpointSerial(d);
    const online = (d.payload as { online: boolean }).online;
    patchDevice(serial, (x) => ({ ...x, online }));
    for (const l of deviceListeners) l(serial, 'updateDeviceOnline', d);
  });
  on(es, 'device#deleteDevice', (d) => {
    const serial = endpointSerial(d);
    devices.value = devices.value.filter((x) => x.serial_number !== serial);
    for (const l of deviceListeners) l(serial, 'deleteDevice', d);
  });
  on(es, 'link#waiting', (d) => {
    linkEvents.waiting++;
    waiting.value = (d.payload as { apps: string[] }).apps;
  });
  on(es, 'link#window', (d) => {
    linkEvents.window++;
    linkWindow.value = d.payload as Window;
  });
  on(es, 'pairing#window', (d) => {
    pairing.value = d.payload as Window;
  });
  const security = () => {
    securityVersion.value++;
    void loadAlarm().catch(() => {});
  };
  on(es, 'security#updateArmState', security);
  on(es, 'bridge#updateAlarmState', security);
  followZigbee(
    (name, fn) => on(es, name, fn),
    (serial) => void refreshDevice(serial),
  );
  const automation = () => automationsVersion.value++;
  for (const name of ['automation#changed', 'automation#runStarted', 'automation#runFinished'])
    on(es, name, automation);
  on(es, 'automation#notify', (d) => {
    automation();
    const p = d.payload as { name: string; message: string };
    notify('info', `${p.name}: ${p.message}`);
  });
  on(es, 'token#revoked', () => tokensVersion.value++);
  on(es, 'token#cleared', () => tokensVersion.value++);
}

export function disconnect(): void {
  stream?.close();
  stream = undefined;
  clearTimeout(retry);
}

/** Asks the gateway whether this browser is logged in, and starts the live console when it is. */
export async function checkAuth(): Promise<void> {
  try {
    const r = await api<{
      password_set: boolean;
      logged_in: boolean;
      name: string;
      restored_at: string | null;
      passwd_command?: string;
    }>('GET', '/auth');
    gatewayName.value = r.name;
    restoredAt.value = r.restored_at;
    if (r.passwd_command) passwdCommand.value = r.passwd_command;
    if (r.logged_in) {
      auth.value = 'in';
      connect();
    } else {
      disconnect();
      auth.value = r.password_set ? 'login' : 'setup';
    }
  } catch {
    // The gateway is away (restarting): try again shortly.
    live.value = 'lost';
    retry = setTimeout(() => void checkAuth(), 2000);
  }
}

whenLoggedOut(() => {
  if (auth.value === 'in') {
    disconnect();
    auth.value = 'login';
    notify('info', 'Your session ended: log in again.');
  }
});
