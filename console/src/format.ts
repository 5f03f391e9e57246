/** Words and numbers as a person reads them. */

import { humanize } from '../../src/http/console/humanize.ts';
import type { Control, Device, Reading } from './types.ts';

export { humanize };

const CATEGORIES: Record<string, string> = {
  plug: 'Plug',
  switch: 'Switch',
  light: 'Light',
  curtain: 'Curtain',
  contactSensor: 'Door/window sensor',
  motionSensor: 'Motion sensor',
  temperatureSensor: 'Temperature sensor',
  humiditySensor: 'Humidity sensor',
  temperatureAndHumiditySensor: 'Climate sensor',
  waterLeakDetector: 'Water leak detector',
  smokeDetector: 'Smoke detector',
  button: 'Button',
  camera: 'Camera',
  sensor: 'Sensor',
  fanLight: 'Fan light',
  airConditioner: 'Air conditioner',
  fan: 'Fan',
  thermostat: 'Thermostat',
};

export function categoryName(c: string): string {
  return CATEGORIES[c] ?? humanize(c);
}

/** The value at a path of a state. */
export function at(state: unknown, path: readonly string[] | undefined): unknown {
  if (!path) return undefined;
  let v: unknown = state;
  for (const k of path) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** A number as a person reads it: whole, or with two decimals below 10 and one above. */
function numberText(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(Math.abs(n) < 10 ? 2 : 1).replace(/\.?0+$/, '');
}

/** A reading's value with its unit, or a dash when the device has not said. */
export function readingValue(r: Reading, v: unknown): string {
  if (v === undefined || v === null) return '–';
  if (typeof v === 'boolean') return r.words ? (v ? r.words[0] : r.words[1]) : v ? 'Yes' : 'No';
  if (typeof v === 'number') {
    const text = numberText(r.scale ? v * r.scale : v);
    return r.unit ? `${text} ${r.unit}` : text;
  }
  return humanize(String(v));
}

/** A reading of a device, from its live state. */
export function readingText(d: Device, r: Reading): string {
  return readingValue(r, at(d.state, r.path));
}

function hex(n: unknown): string {
  const v = typeof n === 'number' ? Math.max(0, Math.min(255, Math.round(n))) : 0;
  return v.toString(16).padStart(2, '0');
}

/** A colour value `{red, green, blue}` as `#rrggbb`. */
export function colourHex(v: unknown): string {
  const rgb = (v ?? {}) as { red?: number; green?: number; blue?: number };
  return `#${hex(rgb.red)}${hex(rgb.green)}${hex(rgb.blue)}`;
}

/** A controlled value in words: `on`, `Manual`, `40 %`, `#ff8800`. */
export function controlValue(c: Control, v: unknown): string {
  if (v === undefined || v === null) return '–';
  if (c.kind === 'color') return colourHex(v);
  if (c.kind === 'switch') return String(v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'number') return c.unit ? `${numberText(v)} ${c.unit}` : numberText(v);
  return humanize(String(v));
}

/**
 * What a state report says, in the device's own words (its layout's labels, units and words):
 * `Power: on, Brightness: 40 %`. Fields the layout does not show are left out; a report of none
 * of them reads as its fields, humanized.
 */
export function describeState(d: Device, payload: unknown): string {
  const parts: string[] = [];
  for (const c of d.layout.controls) {
    const v = c.path && at(payload, c.path);
    if (v !== undefined) parts.push(`${c.label}: ${controlValue(c, v)}`);
  }
  for (const r of d.layout.readings) {
    const v = at(payload, r.path);
    if (v !== undefined) parts.push(`${r.label}: ${readingValue(r, v)}`);
  }
  return parts.length > 0 ? parts.join(', ') : flat(payload).join(', ');
}

/** `{power:{powerState:'on'}}` -> `power state on`. */
function flat(v: unknown, prefix = ''): string[] {
  if (typeof v !== 'object' || v === null) return [`${prefix}${String(v)}`];
  return Object.entries(v).flatMap(([k, w]) =>
    flat(w, typeof w === 'object' && w !== null ? `${prefix}` : `${prefix}${humanize(k).toLowerCase()} `),
  );
}

/**
 * The readings a device's page shows: every one the device has reported, and of a capability
 * that has reported nothing yet its first (a dash), so that a plug's four power figures do not
 * show three dashes forever.
 */
export function shownReadings(d: Device): Reading[] {
  const reported = new Set<string>();
  for (const r of d.layout.readings) if (at(d.state, r.path) !== undefined) reported.add(r.path.slice(0, -1).join('/'));
  const first = new Set<string>();
  return d.layout.readings.filter((r) => {
    if (at(d.state, r.path) !== undefined) return true;
    const group = r.path.slice(0, -1).join('/');
    if (reported.has(group) || first.has(group)) return false;
    first.add(group);
    return true;
  });
}

/** Seconds left until an ISO time, as `m:ss`. */
export function countdown(until: string | null, now: number): string {
  if (!until) return '';
  const left = Math.max(0, Math.round((Date.parse(until) - now) / 1000));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
}

/** A time of today as its time, of another day with its date. */
export function timeOf(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toDateString() === new Date().toDateString()
    ? d.toLocaleTimeString()
    : d.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
}

/** A date as local date and time, or `never`. */
export function when(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
}

/** An app name as the pop-up shows it. */
export function appLabel(app: string): string {
  return app === '' ? 'An app without a name' : app;
}

/** An OTA file version as Zigbee tools write it: `0x01001000`. */
export function fileVersion(v: number | undefined): string {
  return v === undefined ? '–' : `0x${v.toString(16).padStart(8, '0')}`;
}

/** Seconds left in words: `about 12 min`, `40 s`, `about 1 h 5 min`. */
export function timeLeft(seconds: number | undefined): string {
  if (seconds === undefined) return 'time left unknown yet';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s left`;
  const m = Math.round(s / 60);
  return m < 60 ? `about ${m} min left` : `about ${Math.floor(m / 60)} h ${m % 60} min left`;
}
