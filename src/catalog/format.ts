/** Helpers shared by the validators: value rendering for messages and plain-object checks. */

/** A value as messages show it: strings quoted, numbers plain, containers by kind. */
export function fmt(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : typeof v;
}

/** True for a JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

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
