/** Building blocks shared by the capability definitions. */
import { permissionBits } from '../permissions.ts';
import { num, type ObjectSchema, obj, oneOf, opt, type Schema } from '../schema.ts';
import type { BodyDef, CapabilityDef, CapabilityObject, Naming, SettingDef } from '../types.ts';

/** Channel names: `1`..`4` or any letters/digits. */
export const CHANNEL: Naming = {
  kind: 'pattern',
  pattern: /^[A-Za-z0-9]+$/,
  describe: 'a channel: `1`..`4` or any letters/digits',
};

/** Channel names `1`..`4` only. */
export const CHANNEL_1_4: Naming = { kind: 'pattern', pattern: /^[1-4]$/, describe: 'a channel `1`..`4`' };

export const NONE: Naming = { kind: 'none' };

export const onOff = (): Schema => oneOf('on', 'off');

/** A numeric `*Range` setting (`01`): min, max (min less than max), step. */
export const rangeSetting = (doc: string): SettingDef => ({ type: 'numeric', permission: '01', doc, range: true });

/** A numeric setting a user may change (`11`). */
export const numericSetting = (doc: string): SettingDef => ({ type: 'numeric', permission: '11', doc });

/** The temperatureUnit setting (enum c/f, `11`). */
export const temperatureUnit: SettingDef = {
  type: 'enum',
  permission: '11',
  doc: 'unit of temperatures: `c` or `f`',
  values: ['c', 'f'],
};

/**
 * A control body that also takes `<field>Delta` (-100..100) instead of the absolute value:
 * the spec names the alternative; exactly one of the two is given.
 */
export function withDelta(state: ObjectSchema, field: string): ObjectSchema {
  const base = state.fields[field] as Schema;
  return obj(
    { [field]: opt(base), [`${field}Delta`]: opt(num({ min: -100, max: 100, doc: `relative change of ${field}` })) },
    { exactlyOne: [[field, `${field}Delta`]] },
  );
}

/** A capability without a name level whose body is its state, with examples derived from one state value. */
export function plain(
  capability: string,
  permission: string,
  doc: string,
  state: ObjectSchema,
  example: Record<string, unknown>,
  more: Partial<BodyDef> & { settingsExample?: CapabilityObject['settings'] } = {},
): CapabilityDef {
  const { settingsExample, ...rest } = more;
  const body: BodyDef = { permission, state, ...rest };
  const bits = permissionBits(permission);
  const declaration: CapabilityObject = {
    capability,
    permission,
    ...(settingsExample ? { settings: settingsExample } : {}),
  };
  return {
    capability,
    doc,
    naming: NONE,
    body,
    examples: {
      declaration: [declaration],
      ...(bits.control && body.control !== null ? { control: [{ [capability]: example }] } : {}),
      ...(bits.report ? { report: [{ [capability]: example }] } : {}),
    },
  };
}

/** A sensor (`0100` unless given): one state field, reported only. */
export function sensor(
  capability: string,
  field: string,
  schema: Schema,
  value: unknown,
  doc: string,
  more: Partial<BodyDef> & { permission?: string; settingsExample?: CapabilityObject['settings'] } = {},
): CapabilityDef {
  const { permission = '0100', ...rest } = more;
  return plain(capability, permission, doc, obj({ [field]: schema }), { [field]: value }, rest);
}
