/** Tags (spec 2.7): a free object kept verbatim; two keys have a fixed meaning and are checked. */
import { fmt, isObject } from './format.ts';
import type { Result } from './types.ts';

/** Accepts any JSON object (nested, any keys); `toggle` must map channel names to string labels, `temperature_unit` be c/f. */
export function validateTags(tags: unknown, path = 'tags'): Result<Record<string, unknown>> {
  if (!isObject(tags)) return { ok: false, errors: [`${path}: expected an object, got ${fmt(tags)}`] };
  const errors: string[] = [];
  const toggle = tags.toggle;
  if (toggle !== undefined) {
    if (!isObject(toggle)) errors.push(`${path}.toggle: expected an object, got ${fmt(toggle)}`);
    else
      for (const [k, label] of Object.entries(toggle))
        if (typeof label !== 'string') errors.push(`${path}.toggle.${k}: expected a string, got ${fmt(label)}`);
  }
  const unit = tags.temperature_unit;
  if (unit !== undefined && unit !== 'c' && unit !== 'f')
    errors.push(`${path}.temperature_unit: ${fmt(unit)} is not one of c, f`);
  return errors.length ? { ok: false, errors } : { ok: true, value: tags };
}
