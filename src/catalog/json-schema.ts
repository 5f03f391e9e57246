/**
 * The catalog's schema language as JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1 and
 * AsyncAPI 3): the generated API documents describe every body with the very schemas that
 * validate it.
 */
import type { Schema } from './schema.ts';

export type JsonSchema = Record<string, unknown>;

function withDoc(out: JsonSchema, s: Schema): JsonSchema {
  return s.doc ? { ...out, description: s.doc } : out;
}

/**
 * The JSON Schema of a catalog schema. With `defs` (a document's `components.schemas`), a named
 * schema (`ref`) is given there once, under its name, and referred to by `$ref` wherever it
 * appears (a recursive one refers to itself); without, it is given inline.
 */
export function toJsonSchema(s: Schema, defs?: Record<string, JsonSchema>): JsonSchema {
  if (s.ref && defs) {
    const $ref = `#/components/schemas/${s.ref}`;
    if (!(s.ref in defs)) {
      // Claimed first: a schema nested in itself refers to the entry being made.
      defs[s.ref] = {};
      defs[s.ref] = toJsonSchema({ ...s, ref: undefined }, defs);
    }
    return s.nullable ? { anyOf: [{ $ref }, { type: 'null' }] } : { $ref };
  }
  const inner = (x: Schema) => toJsonSchema(x, defs);
  if (s.nullable) return { anyOf: [inner({ ...s, nullable: false }), { type: 'null' }] };
  switch (s.kind) {
    case 'number': {
      const out: JsonSchema = { type: s.int ? 'integer' : 'number' };
      if (s.min !== undefined) out.minimum = s.min;
      if (s.max !== undefined) out.maximum = s.max;
      if (s.unit) out['x-unit'] = s.unit;
      return withDoc(out, s);
    }
    case 'string': {
      const out: JsonSchema = { type: 'string' };
      if (s.pattern) out.pattern = s.pattern.source;
      if (s.maxLength !== undefined) out.maxLength = s.maxLength;
      if (s.nonEmpty) out.minLength = 1;
      if (s.patternDoc) out.description = s.patternDoc;
      return withDoc(out, s);
    }
    case 'enum':
      return withDoc(s.values.length === 1 ? { const: s.values[0] } : { enum: [...s.values] }, s);
    case 'boolean':
      return withDoc({ type: 'boolean' }, s);
    case 'date':
      return withDoc({ type: 'string', format: 'date-time' }, s);
    case 'any':
      return withDoc({}, s);
    case 'object': {
      const properties: Record<string, JsonSchema> = {};
      const alternatives = new Set((s.exactlyOne ?? []).flat());
      const required: string[] = [];
      for (const [k, v] of Object.entries(s.fields)) {
        properties[k] = inner(v);
        if (!v.optional && !alternatives.has(k)) required.push(k);
      }
      const out: JsonSchema = { type: 'object', properties };
      if (required.length > 0) out.required = required;
      if (!s.open) out.additionalProperties = false;
      const all: JsonSchema[] = [];
      for (const group of s.exactlyOne ?? []) all.push({ oneOf: group.map((k) => ({ required: [k] })) });
      if (s.atLeastOne) all.push({ anyOf: s.atLeastOne.map((k) => ({ required: [k] })) });
      if (all.length === 1) Object.assign(out, all[0]);
      else if (all.length > 1) out.allOf = all;
      return withDoc(out, s);
    }
    case 'array': {
      const out: JsonSchema = { type: 'array', items: inner(s.items) };
      if (s.minItems !== undefined) out.minItems = s.minItems;
      if (s.maxItems !== undefined) out.maxItems = s.maxItems;
      return withDoc(out, s);
    }
    case 'map': {
      const out: JsonSchema = { type: 'object', additionalProperties: inner(s.values) };
      if (s.keyPattern) out.propertyNames = { pattern: s.keyPattern.source };
      return withDoc(out, s);
    }
    case 'tagged':
      return withDoc(
        {
          oneOf: Object.entries(s.variants).map(([tag, variant]) => {
            const v = inner(variant);
            const props = { ...(v.properties as Record<string, JsonSchema>), [s.tag]: { const: tag } };
            return { ...v, properties: props };
          }),
        },
        s,
      );
    case 'union':
      return withDoc({ anyOf: s.options.map(inner) }, s);
  }
}
