/**
 * Compiles a schema into a lenient cleaner for what devices report: a bad field is coerced,
 * clamped or dropped on its own with a warning, so one noisy device cannot break a stream.
 * Required fields are not enforced (reports are often partial); unknown fields are dropped.
 */
import { compileStrict } from './compile-strict.ts';
import { fmt, isIsoDate, isObject, keyPath, sameShape } from './format.ts';
import type { EnumValue, ObjectSchema, Schema } from './schema.ts';

/** Marks a value the cleaner dropped. */
export const DROP: unique symbol = Symbol('drop');

/** Returns the cleaned value (or DROP) and appends one warning per change to `warnings`. */
export type Clean = (v: unknown, path: string, warnings: string[]) => unknown;

/** The lenient cleaner of a schema. */
export function compileLenient(s: Schema): Clean {
  switch (s.kind) {
    case 'number':
      return (v, path, warnings) => {
        let n = v;
        if (typeof n === 'string' && n.trim() !== '' && Number.isFinite(Number(n))) {
          n = Number(n);
          warnings.push(`${path}: ${fmt(v)} is a string, read as ${n}`);
        }
        if (typeof n !== 'number' || !Number.isFinite(n)) {
          warnings.push(`${path}: expected a number, got ${fmt(v)} (dropped)`);
          return DROP;
        }
        if (s.int && !Number.isInteger(n)) {
          const r = Math.round(n);
          warnings.push(`${path}: ${n} is not an integer, rounded to ${r}`);
          n = r;
        }
        if (s.min !== undefined && (n as number) < s.min) {
          warnings.push(`${path}: ${n} is below min ${s.min}, clamped to ${s.min}`);
          return s.min;
        }
        if (s.max !== undefined && (n as number) > s.max) {
          warnings.push(`${path}: ${n} is above max ${s.max}, clamped to ${s.max}`);
          return s.max;
        }
        return n;
      };
    case 'string':
      return (v, path, warnings) => {
        if (typeof v === 'string' && (!s.pattern || s.pattern.test(v))) return v;
        warnings.push(`${path}: ${fmt(v)} is not ${s.patternDoc ?? 'a string'} (dropped)`);
        return DROP;
      };
    case 'enum': {
      const allowed = new Set<unknown>(s.values);
      const byLower = new Map<string, EnumValue>();
      for (const x of s.values) if (typeof x === 'string') byLower.set(x.toLowerCase(), x);
      const list = s.values.join(', ');
      return (v, path, warnings) => {
        if (allowed.has(v)) return v;
        const found = typeof v === 'string' ? byLower.get(v.toLowerCase()) : undefined;
        if (found !== undefined) {
          warnings.push(`${path}: ${fmt(v)} read as ${fmt(found)}`);
          return found;
        }
        warnings.push(`${path}: ${fmt(v)} is not one of ${list} (dropped)`);
        return DROP;
      };
    }
    case 'boolean':
      return (v, path, warnings) => {
        if (typeof v === 'boolean') return v;
        if (v === 'true' || v === 'false') {
          warnings.push(`${path}: ${fmt(v)} is a string, read as ${v}`);
          return v === 'true';
        }
        warnings.push(`${path}: expected a boolean, got ${fmt(v)} (dropped)`);
        return DROP;
      };
    case 'date':
      return (v, path, warnings) => {
        if (isIsoDate(v)) return v;
        warnings.push(`${path}: ${fmt(v)} is not an ISO 8601 date (dropped)`);
        return DROP;
      };
    case 'any':
      return (v) => v;
    case 'object':
      return cleanObject(s);
    case 'array': {
      const item = compileLenient(s.items);
      return (v, path, warnings) => {
        if (!Array.isArray(v)) {
          warnings.push(`${path}: expected an array, got ${fmt(v)} (dropped)`);
          return DROP;
        }
        const out: unknown[] = [];
        for (let i = 0; i < v.length; i++) {
          const c = item(v[i], `${path}.${i}`, warnings);
          if (c !== DROP) out.push(c);
        }
        return out;
      };
    }
    case 'map': {
      const value = compileLenient(s.values);
      return (v, path, warnings) => {
        if (!isObject(v)) {
          warnings.push(`${path}: expected an object, got ${fmt(v)} (dropped)`);
          return DROP;
        }
        const out: Record<string, unknown> = {};
        for (const k in v) {
          if (s.keyPattern && !s.keyPattern.test(k)) {
            warnings.push(`${keyPath(path, k)}: key is not ${s.keyDoc ?? s.keyPattern} (dropped)`);
            continue;
          }
          const c = value(v[k], keyPath(path, k), warnings);
          if (c !== DROP) out[k] = c;
        }
        return out;
      };
    }
    case 'tagged': {
      const variants = new Map(Object.entries(s.variants).map(([k, o]) => [k as unknown, cleanObject(o)]));
      const list = Object.keys(s.variants).join(', ');
      return (v, path, warnings) => {
        const clean = isObject(v) ? variants.get(v[s.tag]) : undefined;
        if (!clean) {
          const t = isObject(v) ? fmt(v[s.tag]) : fmt(v);
          warnings.push(`${path}.${s.tag}: ${t} is not one of ${list} (dropped)`);
          return DROP;
        }
        return clean(v, path, warnings);
      };
    }
    case 'union': {
      // The option that fits best (fewest strict problems) cleans the value.
      const checks = s.options.map(compileStrict);
      const cleans = s.options.map(compileLenient);
      return (v, path, warnings) => {
        let best = 0;
        let fewest = Number.POSITIVE_INFINITY;
        for (let i = 0; i < checks.length; i++) {
          const errors: string[] = [];
          checks[i]?.(v, path, errors);
          if (errors.length === 0) return v;
          // An option of the value's own shape (object, array, scalar) is the better guess.
          if (!sameShape((s.options[i] as Schema).kind, v)) errors.length += 1000;
          if (errors.length < fewest) {
            fewest = errors.length;
            best = i;
          }
        }
        return (cleans[best] as Clean)(v, path, warnings);
      };
    }
  }
}

function cleanObject(s: ObjectSchema): Clean {
  const cleans = new Map(Object.entries(s.fields).map(([k, f]) => [k, compileLenient(f)]));
  return (v, path, warnings) => {
    if (!isObject(v)) {
      warnings.push(`${path}: expected an object, got ${fmt(v)} (dropped)`);
      return DROP;
    }
    const out: Record<string, unknown> = {};
    for (const k in v) {
      const clean = cleans.get(k);
      if (!clean) {
        warnings.push(`${keyPath(path, k)}: unknown field (dropped)`);
        continue;
      }
      const c = clean(v[k], `${path}.${k}`, warnings);
      if (c !== DROP) out[k] = c;
    }
    return out;
  };
}
