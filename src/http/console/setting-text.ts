/**
 * A device's setting (spec 2.6 `settings`) in words for the console: a range as `4–35 °C`, a list
 * of supported values as `Manual, Auto, Eco`, a temperature unit as `°C`, a structure as its
 * named parts. Never JSON: what a person reads on a device's page.
 */
import type { SettingItem } from '../../catalog/types.ts';
import { isObject } from '../../lib/object.ts';
import { humanize } from './humanize.ts';

const TEMPERATURE_UNITS: Record<string, string> = { c: '°C', f: '°F' };
/** Units of settings the spec names without a unit field (its text gives them). */
const KNOWN_UNITS: Record<string, string> = { resolution: 's', timeZoneOffset: 'h' };

/** Deepest level of a structure put into words; below it, "…". */
const DEPTH = 4;

function number(n: number, unit: string | undefined): string {
  return unit ? `${n} ${unit}` : String(n);
}

/** Any value in words: scalars as they read, lists joined, objects as `Name value` parts. */
export function valueWords(v: unknown, unit?: string, depth = 0): string {
  if (v === undefined || v === null || v === '') return '–';
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  if (typeof v === 'number') return number(v, unit);
  // An identifier (`singlePress`, `AUTO`) reads as words; any other text (an address) as it is.
  if (typeof v === 'string') return /^[A-Za-z][A-Za-z0-9_-]*$/.test(v) ? humanize(v) : v;
  if (depth >= DEPTH) return '…';
  if (Array.isArray(v)) return v.length === 0 ? 'none' : v.map((x) => valueWords(x, unit, depth + 1)).join(', ');
  if (isObject(v)) {
    if (typeof v.min === 'number' && typeof v.max === 'number' && Object.keys(v).length === 2)
      return `${v.min}–${number(v.max, unit)}`;
    const parts = Object.entries(v).map(([k, w]) => `${humanize(k)} ${valueWords(w, unit, depth + 1)}`);
    return parts.length === 0 ? '–' : parts.join('; ');
  }
  return String(v);
}

/**
 * A setting's value in words. `unit` is the unit of the capability's own value (a range or a
 * calibration of temperatures is in °C), used when the setting does not name its own.
 */
export function settingText(key: string, item: SettingItem, unit: string | undefined): string {
  if (/unit$/i.test(key) && typeof item.value === 'string') return TEMPERATURE_UNITS[item.value] ?? item.value;
  const own =
    typeof item.unit === 'string'
      ? item.unit
      : (KNOWN_UNITS[key] ?? (/(range|calibration)$/i.test(key) ? unit : undefined));
  if (item.value !== undefined) return valueWords(item.value, own);
  if (Array.isArray(item.values)) return valueWords(item.values);
  if (typeof item.min === 'number' || typeof item.max === 'number')
    return `${item.min ?? '…'}–${item.max === undefined ? '…' : number(item.max, own)}`;
  return valueWords(item.default, own);
}
