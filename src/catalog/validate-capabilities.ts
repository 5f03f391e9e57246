/** Validation of a device's capability list (third-party DiscoveryRequest, Zigbee mapping, D2). */
import { own } from '../lib/object.ts';
import { bodyDef, capabilityDef, compiledCapability } from './catalog.ts';
import { fmt, isObject, keyPath } from './format.ts';
import { permissionCode, permissionWords } from './permissions.ts';
import { checkSettingItem } from './settings.ts';
import type { CapabilityObject, Result } from './types.ts';

const WORDS = Object.keys(permissionWords).join(', ');

/** Checks one capability object; returns the key that identifies it on the device, or undefined. */
export function checkCapabilityObject(c: unknown, path: string, errors: string[]): string | undefined {
  if (!isObject(c)) return void errors.push(`${path}: expected an object, got ${fmt(c)}`);
  const before = errors.length;
  if (c.capability === undefined) return void errors.push(`${path}.capability: required`);
  const def = typeof c.capability === 'string' ? capabilityDef(c.capability) : undefined;
  if (!def) return void errors.push(`${path}.capability: ${fmt(c.capability)} is not a known capability`);
  if (c.permission === undefined) errors.push(`${path}.permission: required`);
  else if (permissionCode(c.permission) === null)
    errors.push(
      `${path}.permission: ${fmt(c.permission)} is not a permission code (4 binary digits) or one of ${WORDS}`,
    );

  const naming = def.naming;
  if (naming.kind === 'none') {
    if (c.name !== undefined) errors.push(`${path}.name: ${def.capability} has no name level`);
  } else if (c.name === undefined) errors.push(`${path}.name: required`);
  else if (typeof c.name !== 'string') errors.push(`${path}.name: expected a string, got ${fmt(c.name)}`);
  else if (naming.kind === 'pattern' && !naming.pattern.test(c.name))
    errors.push(`${path}.name: ${fmt(c.name)} is not ${naming.describe.replace(/`/g, '')}`);
  else if (naming.kind === 'fixed' && !Object.hasOwn(naming.names, c.name))
    errors.push(`${path}.name: ${fmt(c.name)} is not one of ${Object.keys(naming.names).join(', ')}`);

  const body = bodyDef(def, typeof c.name === 'string' ? c.name : undefined);
  if (c.settings !== undefined) {
    if (!isObject(c.settings)) errors.push(`${path}.settings: expected an object, got ${fmt(c.settings)}`);
    else
      for (const [k, item] of Object.entries(c.settings))
        checkSettingItem(
          item,
          body?.settings ? own(body.settings, k) : undefined,
          keyPath(`${path}.settings`, k),
          errors,
        );
  }
  if (c.configuration !== undefined) {
    if (!isObject(c.configuration))
      errors.push(`${path}.configuration: expected an object, got ${fmt(c.configuration)}`);
    else compiledCapability(def.capability)?.configuration?.(c.configuration, `${path}.configuration`, errors);
  }
  if (errors.length > before) return undefined;
  return `${def.capability}\u0000${c.name ?? ''}`;
}

/** Validates a device's capability list (from a third-party DiscoveryRequest, a Zigbee mapping, or D2). Permission words read/write/readWrite are kept as sent (clients round-trip them) but must be a known code or word. */
export function validateCapabilities(caps: unknown, path = 'capabilities'): Result<CapabilityObject[]> {
  if (!Array.isArray(caps)) return { ok: false, errors: [`${path}: expected an array, got ${fmt(caps)}`] };
  const errors: string[] = [];
  const seen = new Map<string, number>();
  caps.forEach((c, i) => {
    const key = checkCapabilityObject(c, `${path}.${i}`, errors);
    if (key === undefined) return;
    const first = seen.get(key);
    if (first !== undefined) {
      const name = (c as CapabilityObject).name;
      errors.push(
        `${path}.${i}: duplicate of ${path}.${first} (${(c as CapabilityObject).capability}${name !== undefined ? ` ${name}` : ''})`,
      );
    } else seen.set(key, i);
  });
  return errors.length ? { ok: false, errors } : { ok: true, value: caps as CapabilityObject[] };
}
