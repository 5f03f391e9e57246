/** The wire shapes of spec 2.4 and the shape of one capability definition in the catalog. */
import type { EnumValue, ObjectSchema, Schema } from './schema.ts';

/** An expected outcome: a value, or the list of problems (each `path: rule`). */
export type Result<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** One configuration item of a capability (spec 2.4, settings). */
export interface SettingItem {
  permission: string;
  type: 'enum' | 'numeric' | 'object' | 'boolean' | 'string';
  value?: unknown;
  default?: unknown;
  values?: unknown[];
  min?: number;
  max?: number;
  step?: number;
  precision?: number;
  unit?: string;
  [k: string]: unknown;
}

/** One entry of a device's `capabilities` (spec 2.4). */
export interface CapabilityObject {
  capability: string;
  permission: string;
  name?: string;
  settings?: Record<string, SettingItem>;
  configuration?: Record<string, unknown>;
}

export type SettingType = SettingItem['type'];

/** What the catalog knows of one setting of a capability. */
export interface SettingDef {
  type: SettingType;
  /** The permission the spec gives it (`01`, `10`, `11`); a device may declare another valid code. */
  permission: '01' | '10' | '11';
  doc: string;
  /** For `object` settings: the shape of `value`; for `numeric`: bounds of `value`. */
  value?: Schema;
  /** For `enum` settings with a closed vocabulary: the only values a device may list or set. */
  values?: readonly EnumValue[];
  /** For `enum` settings that list what the device supports: the list assumed when none is given. */
  defaults?: readonly EnumValue[];
  /** A `*Range` setting: its own `min` must be less than its `max`. */
  range?: boolean;
}

/** How a device's own setting narrows one state field for commands and reports. */
export interface Narrowing {
  setting: string;
  field: string;
  /** `range`: the setting's min/max/step bound the field; `values`: the setting's list replaces the field's values. */
  by: 'range' | 'values';
}

/** The bodies of one capability (or of one fixed name of it). */
export interface BodyDef {
  /** Default permission code of spec 2.6. */
  permission: string;
  /** The state (what `state` holds and what reports carry unless `report` is given). */
  state?: Schema;
  /** Control body when it differs from the state (e.g. identify's countdown); `null`: not controllable. */
  control?: Schema | null;
  /** Report body when it differs from the state. */
  report?: Schema;
  /** Query body (D6) when the capability has one at this level. */
  query?: Schema;
  settings?: Readonly<Record<string, SettingDef>>;
  narrowing?: readonly Narrowing[];
  /** Preset values of `mode` names and the firmware version that brought them. */
  presets?: { values: readonly string[]; since?: string };
}

/** How the `name` level of a capability is formed. */
export type Naming =
  | { kind: 'none' }
  | { kind: 'pattern'; pattern: RegExp; describe: string }
  | { kind: 'fixed'; names: Readonly<Record<string, BodyDef>> };

/** Example bodies of one capability, each as it appears on the wire (keyed by the capability name). */
export interface Examples {
  /** The capability objects of a device that has it (one per name used below). */
  declaration: CapabilityObject[];
  control?: Record<string, unknown>[];
  report?: Record<string, unknown>[];
  /** D6 `query_state` bodies. */
  query?: Record<string, unknown>[];
}

/** One capability of spec 2.6. */
export interface CapabilityDef {
  capability: string;
  doc: string;
  naming: Naming;
  /** The body for capabilities without fixed names (for `pattern`, the body of each channel). */
  body?: BodyDef;
  /** A query body at capability level, above any name (irrigation). */
  query?: Schema;
  /** A query result at capability level (irrigation), accepted in reports. */
  result?: Schema;
  /** The `configuration` object of the capability object (camera-stream). */
  configuration?: ObjectSchema;
  examples: Examples;
}
