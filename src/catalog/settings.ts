/** Validation of settings items (spec 2.4) against the generic rules and what the catalog knows of each item. */
import { compileStrict } from './compile-strict.ts';
import { fmt, isObject } from './format.ts';
import { isSettingPermission, settingPermissionBits } from './permissions.ts';
import type { SettingDef, SettingType } from './types.ts';

const TYPES: readonly SettingType[] = ['enum', 'numeric', 'object', 'boolean', 'string'];
const NUMERIC_ONLY = ['min', 'max', 'step', 'precision'] as const;

/** Checks one value (or default) of a setting item against its type, its own bounds and the catalog. */
export function checkSettingValue(
  item: Record<string, unknown>,
  def: SettingDef | undefined,
  v: unknown,
  path: string,
  errors: string[],
): void {
  const values = Array.isArray(item.values) ? item.values : undefined;
  switch (item.type) {
    case 'enum': {
      const list = Array.isArray(v) ? v : [v];
      for (const x of list) {
        if (values && !values.includes(x)) errors.push(`${path}: ${fmt(x)} is not one of ${values.join(', ')}`);
        else if (def?.values && !def.values.includes(x as string))
          errors.push(`${path}: ${fmt(x)} is not one of ${def.values.join(', ')}`);
      }
      return;
    }
    case 'numeric': {
      if (typeof v !== 'number' || !Number.isFinite(v))
        return void errors.push(`${path}: expected a number, got ${fmt(v)}`);
      if (typeof item.min === 'number' && v < item.min)
        return void errors.push(`${path}: ${v} is below min ${item.min}`);
      if (typeof item.max === 'number' && v > item.max)
        return void errors.push(`${path}: ${v} is above max ${item.max}`);
      break;
    }
    case 'boolean':
      if (typeof v !== 'boolean') return void errors.push(`${path}: expected a boolean, got ${fmt(v)}`);
      break;
    case 'string':
      if (typeof v !== 'string') return void errors.push(`${path}: expected a string, got ${fmt(v)}`);
      break;
    case 'object':
      if (!isObject(v)) return void errors.push(`${path}: expected an object, got ${fmt(v)}`);
      break;
  }
  if (def?.value) compileStrict(def.value)(v, path, errors);
}

/** Checks one settings item (`settings.<key>`) of a capability object; `def` is the catalog's, if any. */
export function checkSettingItem(item: unknown, def: SettingDef | undefined, path: string, errors: string[]): void {
  if (!isObject(item)) return void errors.push(`${path}: expected an object, got ${fmt(item)}`);
  const before = errors.length;
  if (item.permission === undefined) errors.push(`${path}.permission: required`);
  else if (!isSettingPermission(item.permission))
    errors.push(`${path}.permission: ${fmt(item.permission)} is not one of 01, 10, 11`);
  if (item.type === undefined) errors.push(`${path}.type: required`);
  else if (!TYPES.includes(item.type as SettingType))
    errors.push(`${path}.type: ${fmt(item.type)} is not one of ${TYPES.join(', ')}`);
  else if (def && item.type !== def.type) errors.push(`${path}.type: must be ${def.type}, got ${fmt(item.type)}`);
  if (errors.length > before) return;

  if (item.values !== undefined) {
    if (item.type !== 'enum') errors.push(`${path}.values: only enum settings have values`);
    else if (!Array.isArray(item.values)) errors.push(`${path}.values: expected an array, got ${fmt(item.values)}`);
    else if (def?.values)
      item.values.forEach((x, i) => {
        if (!def.values?.includes(x as string))
          errors.push(`${path}.values.${i}: ${fmt(x)} is not one of ${def.values?.join(', ')}`);
      });
  }
  for (const k of NUMERIC_ONLY) {
    if (item[k] === undefined) continue;
    if (item.type !== 'numeric') errors.push(`${path}.${k}: only numeric settings have ${k}`);
    else if (typeof item[k] !== 'number' || !Number.isFinite(item[k]))
      errors.push(`${path}.${k}: expected a number, got ${fmt(item[k])}`);
  }
  if (item.unit !== undefined) {
    if (item.type !== 'numeric') errors.push(`${path}.unit: only numeric settings have unit`);
    else if (typeof item.unit !== 'string') errors.push(`${path}.unit: expected a string, got ${fmt(item.unit)}`);
  }
  if (typeof item.step === 'number' && item.step <= 0) errors.push(`${path}.step: ${item.step} is not above 0`);
  if (typeof item.min === 'number' && typeof item.max === 'number') {
    if (def?.range ? item.min >= item.max : item.min > item.max)
      errors.push(`${path}: min ${item.min} is not less than max ${item.max}`);
  }
  if (errors.length > before) return;

  if (item.value === undefined) {
    if (settingPermissionBits(item.permission as string).modify) errors.push(`${path}.value: required`);
  } else checkSettingValue(item, def, item.value, `${path}.value`, errors);
  if (item.default !== undefined) checkSettingValue(item, def, item.default, `${path}.default`, errors);
}
