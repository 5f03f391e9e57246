/**
 * A small declarative schema language for the wire bodies of the capability catalog. Definitions
 * are plain data built with the helpers below; compile-strict.ts and compile-lenient.ts turn them
 * into validators, docs.ts into tables.
 */

interface Base {
  optional?: boolean;
  /** `null` is taken as absent (a field senders set to null rather than leave out). */
  nullable?: boolean;
  doc?: string;
  /**
   * Its name in a generated document's components: the document gives it once and refers to it
   * (a recursive one, the automations' conditions, refers to itself).
   */
  ref?: string;
}

export interface NumberSchema extends Base {
  kind: 'number';
  int?: boolean;
  min?: number;
  max?: number;
  /** Values must sit on min + k * step (device-side narrowing only). */
  step?: number;
  unit?: string;
}
export interface StringSchema extends Base {
  kind: 'string';
  /** Longest length in UTF-16 code units. */
  maxLength?: number;
  pattern?: RegExp;
  /** How the pattern reads in messages and docs. */
  patternDoc?: string;
  /** Not empty nor only spaces. */
  nonEmpty?: boolean;
}
export type EnumValue = string | number | boolean;
export interface EnumSchema<V extends EnumValue = EnumValue> extends Base {
  kind: 'enum';
  values: readonly V[];
}
export interface BooleanSchema extends Base {
  kind: 'boolean';
}
export interface DateSchema extends Base {
  kind: 'date';
}
export interface ObjectSchema extends Base {
  kind: 'object';
  fields: Readonly<Record<string, Schema>>;
  /** Groups of alternative fields of which exactly one must be present (e.g. brightness or brightnessDelta). */
  exactlyOne?: readonly (readonly string[])[];
  /** At least one of these fields must be present. */
  atLeastOne?: readonly string[];
  /**
   * Fields not declared are allowed (and ignored). Request bodies of the REST routes are open:
   * clients send fields of other gateway versions, and refusing them would break those clients.
   * Capability bodies are closed: an unknown field there is a mistake worth naming.
   */
  open?: boolean;
}
export interface ArraySchema extends Base {
  kind: 'array';
  items: Schema;
  minItems?: number;
  /** Longest list; a longer one is refused before its items are read. */
  maxItems?: number;
}
export interface MapSchema extends Base {
  kind: 'map';
  keyPattern?: RegExp;
  keyDoc?: string;
  values: Schema;
}
export interface TaggedSchema extends Base {
  kind: 'tagged';
  tag: string;
  variants: Readonly<Record<string, ObjectSchema>>;
}
export interface UnionSchema extends Base {
  kind: 'union';
  options: readonly Schema[];
}
export interface AnySchema extends Base {
  kind: 'any';
}

export type Schema =
  | NumberSchema
  | StringSchema
  | EnumSchema
  | BooleanSchema
  | DateSchema
  | ObjectSchema
  | ArraySchema
  | MapSchema
  | TaggedSchema
  | UnionSchema
  | AnySchema;

type Opts<S> = Omit<S, 'kind'>;

/** A number, optionally bounded (inclusive). */
export const num = (o: Opts<NumberSchema> = {}): NumberSchema => ({ kind: 'number', ...o });
/** An integer, optionally bounded (inclusive). */
export const int = (o: Opts<NumberSchema> = {}): NumberSchema => ({ kind: 'number', int: true, ...o });
/** One of the given values. */
export const oneOf = <const V extends EnumValue>(...values: V[]): EnumSchema<V> => ({ kind: 'enum', values });
/** A boolean. */
export const bool = (doc?: string): BooleanSchema => ({ kind: 'boolean', ...(doc ? { doc } : {}) });
/** A string, optionally matching a pattern. */
export const str = (o: Opts<StringSchema> = {}): StringSchema => ({ kind: 'string', ...o });
/** An ISO 8601 date-time string. */
export const date = (doc?: string): DateSchema => ({ kind: 'date', ...(doc ? { doc } : {}) });
/** An object with exactly these fields (required unless wrapped in opt()). */
export const obj = (fields: Record<string, Schema>, o: Omit<Opts<ObjectSchema>, 'fields'> = {}): ObjectSchema => ({
  kind: 'object',
  fields,
  ...o,
});
/** An array of items. */
export const arr = (items: Schema, o: Omit<Opts<ArraySchema>, 'items'> = {}): ArraySchema => ({
  kind: 'array',
  items,
  ...o,
});
/** An object used as a map: any keys (matching keyPattern) to values of one schema. */
export const map = (values: Schema, o: Omit<Opts<MapSchema>, 'values'> = {}): MapSchema => ({
  kind: 'map',
  values,
  ...o,
});
/** An object whose `tag` field selects the variant. */
export const tagged = (tag: string, variants: Record<string, ObjectSchema>): TaggedSchema => ({
  kind: 'tagged',
  tag,
  variants,
});
/** Any of the options. */
export const union = (...options: Schema[]): UnionSchema => ({ kind: 'union', options });
/** Any JSON value. */
export const any = (doc?: string): AnySchema => ({ kind: 'any', ...(doc ? { doc } : {}) });
/** The same schema, not required. */
export const opt = <S extends Schema>(s: S): S => ({ ...s, optional: true });
/** Absent, or null (taken as absent). */
export const optOrNull = <S extends Schema>(s: S): S => ({ ...s, optional: true, nullable: true });
/** The same schema with a doc line. */
export const doc = <S extends Schema>(s: S, text: string): S => ({ ...s, doc: text });

/** A schema named in generated documents (given once in their components, referred to elsewhere). */
export const named = <S extends Schema>(s: S, ref: string): S => ({ ...s, ref });

/** A copy of the schema in which every field named `field` (at any depth) is replaced by fn(old). */
export function mapField(schema: Schema, field: string, fn: (s: Schema) => Schema): Schema {
  switch (schema.kind) {
    case 'object': {
      const fields: Record<string, Schema> = {};
      for (const [k, v] of Object.entries(schema.fields)) fields[k] = k === field ? fn(v) : mapField(v, field, fn);
      return { ...schema, fields };
    }
    case 'tagged': {
      const variants: Record<string, ObjectSchema> = {};
      for (const [k, v] of Object.entries(schema.variants)) variants[k] = mapField(v, field, fn) as ObjectSchema;
      return { ...schema, variants };
    }
    case 'union':
      return { ...schema, options: schema.options.map((o) => mapField(o, field, fn)) };
    case 'array':
      return { ...schema, items: mapField(schema.items, field, fn) };
    case 'map':
      return { ...schema, values: mapField(schema.values, field, fn) };
    default:
      return schema;
  }
}

/** The same object schema with every field optional (a partial state, e.g. a query template). */
export function partial(schema: Schema): Schema {
  if (schema.kind === 'object') {
    const fields: Record<string, Schema> = {};
    for (const [k, v] of Object.entries(schema.fields)) fields[k] = opt(v);
    return { kind: 'object', fields, ...(schema.doc ? { doc: schema.doc } : {}) };
  }
  return schema;
}

/** One line describing the type and rule of a schema, for docs. */
export function describe(s: Schema): string {
  switch (s.kind) {
    case 'number': {
      const parts = [s.int ? 'int' : 'number'];
      if (s.min !== undefined && s.max !== undefined) parts.push(`${s.min}..${s.max}`);
      else if (s.min !== undefined) parts.push(`>= ${s.min}`);
      else if (s.max !== undefined) parts.push(`<= ${s.max}`);
      if (s.unit) parts.push(`(${s.unit})`);
      return parts.join(' ');
    }
    case 'string':
      return s.patternDoc ? `string, ${s.patternDoc}` : 'string';
    case 'enum':
      return s.values.length === 1
        ? `\`${String(s.values[0])}\``
        : `one of ${s.values.map((v) => `\`${v}\``).join(', ')}`;
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'date (ISO 8601)';
    case 'object':
      return 'object';
    case 'array':
      return `array of ${describe(s.items)}${s.minItems ? ` (at least ${s.minItems})` : ''}${s.maxItems !== undefined ? ` (at most ${s.maxItems})` : ''}`;
    case 'map':
      return `object: ${s.keyDoc ?? 'any key'} -> ${describe(s.values)}`;
    case 'tagged':
      return `object selected by \`${s.tag}\`: ${Object.keys(s.variants).join(', ')}`;
    case 'union':
      return s.options.map(describe).join(', or ');
    case 'any':
      return 'any JSON value';
  }
}
