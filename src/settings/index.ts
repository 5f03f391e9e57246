import { compileStrict } from '../catalog/compile-strict.ts';
import { type EnumSchema, obj, type Schema } from '../catalog/schema.ts';
import { type SettingDef, type SettingSchema, settingDefs, settingRange, settingType } from './schema.ts';

export { type SettingDef, type SettingType, settingDefs, settingRange, settingType } from './schema.ts';

/** The value a setting's schema allows. */
type ValueOf<S> =
  S extends EnumSchema<infer V>
    ? V
    : S extends { kind: 'number' }
      ? number
      : S extends { kind: 'boolean' }
        ? boolean
        : S extends { kind: 'array' }
          ? string[]
          : string;

/** `a.b.c` with value V as `{a: {b: {c: V}}}`. */
type Nested<K extends string, V> = K extends `${infer Head}.${infer Tail}`
  ? { [P in Head]: Nested<Tail, V> }
  : { [P in K]: V };

type Intersected<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** One object type out of an intersection, for readable messages and hovers. */
type Flat<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]: Flat<T[K]> } : T;

type Def = (typeof settingDefs)[number];

/** The validated settings of one gateway: derived from the schema of settings (src/settings/schema.ts). */
export type Settings = Flat<
  Intersected<Def extends infer D ? (D extends Def ? Nested<D['key'], ValueOf<D['schema']>> : never) : never>
>;

/** Raised when a setting has a value its schema refuses; the message names the setting and the source. */
export class SettingsError extends Error {}

/** Environment variable of a setting: OPENCUBE_ plus the key in upper case, dots as underscores. */
export function envName(def: SettingDef): string {
  return `OPENCUBE_${def.key.replace(/\./g, '_').toUpperCase()}`;
}

/** CLI flag of a setting, without dashes. */
export function flagName(def: SettingDef): string {
  return def.flag ?? def.key.replace(/[._]/g, '-');
}

/**
 * A value as the flags and the environment write it, read into the schema's type: a number from
 * its digits, a boolean from its words, a list from comma-separated text. What cannot be read so
 * is refused here, in words for that text; what can is checked against the schema afterwards.
 */
function readText(def: SettingDef, raw: unknown, where: string): unknown {
  switch (settingType(def)) {
    case 'int': {
      const n =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && /^-?\d+$/.test(raw.trim())
            ? Number(raw)
            : Number.NaN;
      if (!Number.isInteger(n)) throw new SettingsError(`${where}: ${JSON.stringify(raw)} is not an integer`);
      return n;
    }
    case 'bool': {
      if (typeof raw === 'boolean') return raw;
      const s = String(raw).trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(s)) return true;
      if (['0', 'false', 'no', 'off'].includes(s)) return false;
      throw new SettingsError(`${where}: ${JSON.stringify(raw)} is not a boolean (true/false)`);
    }
    case 'list': {
      const items = Array.isArray(raw) ? raw.map(String) : String(raw).split(',');
      const list = items.map((s) => s.trim()).filter((s) => s.length > 0);
      if (list.length === 0) throw new SettingsError(`${where}: needs at least one value`);
      return list;
    }
    case 'enum':
      return String(raw);
    default: {
      if (typeof raw !== 'string' && typeof raw !== 'number')
        throw new SettingsError(`${where}: ${JSON.stringify(raw)} is not a string`);
      const rule = def.check?.(String(raw));
      if (rule) throw new SettingsError(`${where}: ${JSON.stringify(raw)} ${rule}`);
      return String(raw);
    }
  }
}

/** The compiled check of each setting's schema (by key). */
const checks = new Map(
  (settingDefs as readonly SettingDef[]).map((def) => [def.key, compileStrict(def.schema)] as const),
);

/** One value of a setting, read and checked against its schema; throws SettingsError naming the setting and `source`. */
export function parseValue(def: SettingDef, raw: unknown, source: string): unknown {
  const where = `${def.key} (from ${source})`;
  const value = readText(def, raw, where);
  const errors: string[] = [];
  checks.get(def.key)?.(value, where, errors);
  if (errors.length > 0) throw new SettingsError(errors.join('; '));
  return value;
}

/** The schema of the whole settings object, nested by the keys' dots (every setting required). */
function settingsSchema(): Schema {
  const root: Record<string, unknown> = {};
  for (const def of settingDefs as readonly SettingDef[]) setPath(root, def.key, def.schema);
  const build = (node: Record<string, unknown>): Schema =>
    obj(
      Object.fromEntries(
        Object.entries(node).map(([k, v]) => [
          k,
          'kind' in (v as object) ? (v as SettingSchema) : build(v as Record<string, unknown>),
        ]),
      ),
    );
  return build(root);
}

const checkSettings = compileStrict(settingsSchema());

/** Whether `v` holds every setting, each as its schema says: what makes it a Settings. */
function isSettings(v: unknown): v is Settings {
  const errors: string[] = [];
  checkSettings(v, 'settings', errors);
  if (errors.length > 0) throw new SettingsError(errors.join('; '));
  return true;
}

/** Sets a dotted key in a nested object. */
export function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1] as string] = value;
}

/** Reads a dotted key from a nested object. */
export function getPath(source: Record<string, unknown>, key: string): unknown {
  let node: unknown = source;
  for (const part of key.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

export interface SettingsSources {
  /** Values given in code (tests) as a nested object; they win over everything. */
  overrides?: Record<string, unknown>;
  /** Values from CLI flags, by flag name. */
  flags?: Record<string, string | boolean>;
  /** The environment (process.env by default in main). */
  env?: Record<string, string | undefined>;
}

/** Loads settings: defaults, then environment, then CLI flags, then code overrides; validates each. */
export function loadSettings(sources: SettingsSources = {}): Settings {
  const out: Record<string, unknown> = {};
  for (const def of settingDefs as readonly SettingDef[]) {
    let value: unknown = def.default;
    const env = sources.env?.[envName(def)];
    if (env !== undefined && env !== '') value = parseValue(def, env, `environment ${envName(def)}`);
    const flag = sources.flags?.[flagName(def)];
    if (flag !== undefined) value = parseValue(def, flag, `flag --${flagName(def)}`);
    const override = sources.overrides ? getPath(sources.overrides, def.key) : undefined;
    if (override !== undefined) value = parseValue(def, override, 'code');
    setPath(out, def.key, Array.isArray(value) ? [...value] : value);
  }
  // Checked as a whole against the schema, defaults included: the object is a Settings by proof, not by a cast.
  if (!isSettings(out)) throw new SettingsError('settings: not valid');
  return out;
}

/** The configuration table for the README, generated from the schema. */
export function settingsTable(): string {
  const rows = (settingDefs as readonly SettingDef[]).map((def) => {
    const dflt = Array.isArray(def.default) ? def.default.join(',') : String(def.default);
    const type = settingType(def);
    const { min, max, values } = settingRange(def);
    const range = type === 'enum' ? values?.join(' \\| ') : type === 'int' ? `int ${min ?? ''}..${max ?? ''}` : type;
    return `| \`--${flagName(def)}\` | \`${envName(def)}\` | \`${dflt}\` | ${range} | ${def.description} |`;
  });
  return ['| Flag | Environment | Default | Values | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

/**
 * The settings that differ from their defaults, as environment variables (`OPENCUBE_ZIGBEE_MODE`
 * -> `z2m`), without `data_dir` (a backup restored elsewhere keeps its new folder). A backup
 * records them.
 */
export function changedSettings(settings: Settings): Record<string, string> {
  const out: Record<string, string> = {};
  for (const def of settingDefs as readonly SettingDef[]) {
    if (def.key === 'data_dir') continue;
    const value = getPath(settings as unknown as Record<string, unknown>, def.key);
    const text = Array.isArray(value) ? value.join(',') : String(value);
    const dflt = Array.isArray(def.default) ? def.default.join(',') : String(def.default);
    if (text !== dflt) out[envName(def)] = text;
  }
  return out;
}
