/** Words and numbers as a person reads them. */

import { humanize } from '../../src/http/console/humanize.ts';
import type { Device, Reading } from './types.ts';

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

/** A reading's value with its unit, or a dash when the device has not said. */
export function readingText(d: Device, r: Reading): string {
  const v = at(d.state, r.path);
  if (v === undefined || v === null) return '–';
  if (typeof v === 'boolean') return r.words ? (v ? r.words[0] : r.words[1]) : v ? 'Yes' : 'No';
  if (typeof v === 'number') {
    const n = r.scale ? v * r.scale : v;
    const text = Number.isInteger(n) ? String(n) : n.toFixed(Math.abs(n) < 10 ? 2 : 1).replace(/\.?0+$/, '');
    return r.unit ? `${text} ${r.unit}` : text;
  }
  return humanize(String(v));
}

/** Seconds left until an ISO time, as `m:ss`. */
export function countdown(until: string | null, now: number): string {
  if (!until) return '';
  const left = Math.max(0, Math.round((Date.parse(until) - now) / 1000));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
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
