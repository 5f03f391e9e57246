import { badRequest } from './envelope.ts';

/** Checks an integer field; `required` fails when it is absent. Returns the value or undefined. */
export function intField(
  body: Record<string, unknown>,
  key: string,
  opts: { required?: boolean; min?: number; max?: number; path?: string } = {},
): number | undefined {
  const path = opts.path ? `${opts.path}.${key}` : key;
  const v = body[key];
  if (v === undefined) {
    if (opts.required) badRequest(`${path}: required`);
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) badRequest(`${path}: ${JSON.stringify(v)} is not an integer`);
  if (opts.min !== undefined && v < opts.min) badRequest(`${path}: ${v} is below min ${opts.min}`);
  if (opts.max !== undefined && v > opts.max) badRequest(`${path}: ${v} is above max ${opts.max}`);
  return v;
}

/** Checks a string field, optionally against a list of allowed values. */
export function stringField(
  body: Record<string, unknown>,
  key: string,
  opts: { required?: boolean; values?: readonly string[]; path?: string; maxLength?: number } = {},
): string | undefined {
  const path = opts.path ? `${opts.path}.${key}` : key;
  const v = body[key];
  if (v === undefined) {
    if (opts.required) badRequest(`${path}: required`);
    return undefined;
  }
  if (typeof v !== 'string') badRequest(`${path}: ${JSON.stringify(v)} is not a string`);
  if (opts.maxLength !== undefined && v.length > opts.maxLength)
    badRequest(`${path}: longer than ${opts.maxLength} characters`);
  if (opts.values && !opts.values.includes(v))
    badRequest(`${path}: ${JSON.stringify(v)} is not one of ${opts.values.join(', ')}`);
  return v;
}

/** Checks a boolean field. */
export function boolField(
  body: Record<string, unknown>,
  key: string,
  opts: { required?: boolean; path?: string } = {},
): boolean | undefined {
  const path = opts.path ? `${opts.path}.${key}` : key;
  const v = body[key];
  if (v === undefined) {
    if (opts.required) badRequest(`${path}: required`);
    return undefined;
  }
  if (typeof v !== 'boolean') badRequest(`${path}: ${JSON.stringify(v)} is not a boolean`);
  return v;
}

/** Checks an object field (a JSON object, not an array). */
export function objectField(
  body: Record<string, unknown>,
  key: string,
  opts: { required?: boolean; path?: string } = {},
): Record<string, unknown> | undefined {
  const path = opts.path ? `${opts.path}.${key}` : key;
  const v = body[key];
  if (v === undefined) {
    if (opts.required) badRequest(`${path}: required`);
    return undefined;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    badRequest(`${path}: ${JSON.stringify(v)} is not an object`);
  return v as Record<string, unknown>;
}
