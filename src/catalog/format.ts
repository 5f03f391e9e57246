/** Helpers shared by the validators: value rendering for messages and plain-object checks. */
import { isObject } from '../lib/object.ts';

export { fmt } from '../lib/format.ts';
export { isObject };

/** ISO 8601 date-time, with Z or an offset; seconds and fractions optional. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** True for a valid ISO 8601 date-time string. */
export function isIsoDate(v: unknown): v is string {
  return typeof v === 'string' && ISO_DATE.test(v) && !Number.isNaN(Date.parse(v));
}

/** True when v lies on base + k * step (within float noise). */
export function onStep(v: number, base: number, step: number): boolean {
  const r = (v - base) / step;
  return Math.abs(r - Math.round(r)) < 1e-9;
}

/** Whether a value has the JSON shape (object, array, scalar) a schema kind expects; unions prefer such options. */
export function sameShape(kind: string, v: unknown): boolean {
  if (kind === 'any' || kind === 'union') return true;
  if (Array.isArray(v)) return kind === 'array';
  if (isObject(v)) return kind === 'object' || kind === 'tagged' || kind === 'map';
  return kind !== 'array' && kind !== 'object' && kind !== 'tagged' && kind !== 'map';
}

/**
 * `path.key` for a key a client chose (an unknown field, a map key): a key that is not a plain word
 * is quoted as a JSON string (`path["a b"]`), with `;` written `\u003b`: messages join their
 * problems with `; `, and each still reads as path, colon, rule.
 */
export function keyPath(path: string, key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key).replace(/;/g, '\\u003b')}]`;
}
