/**
 * The protocol vocabulary of spec 2.3 to 2.8 as data, and the validators compiled from it.
 * This file is the public surface of the catalog.
 */
export { applySettingsUpdate } from './apply-settings.ts';
export {
  bodyDef,
  capabilities,
  capabilityDef,
  capabilityNames,
  controlSchema,
  narrowBody,
  querySchema,
  reportSchema,
  settingList,
} from './catalog.ts';
export { modePresets } from './defs/climate.ts';
export { displayCategories, isDisplayCategory } from './display-categories.ts';
export { renderCapabilitiesDoc } from './docs.ts';
export { withEveryChannel } from './every-channel.ts';
export { capabilitiesTooLarge, deviceLimits, jsonChars, tooLarge } from './limits.ts';
export {
  isSettingPermission,
  permissionBits,
  permissionCode,
  permissionCodes,
  permissionWords,
  settingPermissionBits,
  settingPermissionCodes,
} from './permissions.ts';
export { sanitizeReport } from './sanitize-report.ts';
export type {
  ArraySchema,
  EnumSchema,
  EnumValue,
  MapSchema,
  NumberSchema,
  ObjectSchema,
  Schema,
  StringSchema,
  TaggedSchema,
  UnionSchema,
} from './schema.ts';
export { describe as describeSchema } from './schema.ts';
export { beepNames, isSoundName, limits, normalizeBeepName, soundNames } from './speaker.ts';
export { validateTags } from './tags.ts';
export type {
  BodyDef,
  CapabilityDef,
  CapabilityObject,
  Examples,
  Naming,
  Narrowing,
  Result,
  SettingDef,
  SettingItem,
  SettingType,
} from './types.ts';
export { validateCapabilities } from './validate-capabilities.ts';
export { validateCommand } from './validate-command.ts';
export { validateQuery } from './validate-query.ts';
