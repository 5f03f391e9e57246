/**
 * Compiles a schema into a strict checker: every problem is one message `path: rule`, and all
 * problems of a body are reported together. Used for what clients send (D4, D6, settings).
 */
import { fmt, isIsoDate, isObject, keyPath, onStep, sameShape } from './format.ts';
import type { ObjectSchema, Schema } from './schema.ts';

/** Appends one message per problem of `v` at `path` to `errors`. */
export type Check = (v: unknown, path: string, errors: string[]) => void;

/** The strict checker of a schema. */
export function compileStrict(s: Schema): Check {
  return compileWith(s, new Map());
}

/**
 * The checker of `s`, each schema object compiled once: a part used in several places shares one
 * checker. The automations' conditions nest their groups by reusing one schema three times a
 * level; compiled anew each time they made 3^depth copies (8 MB of closures in an idle gateway).
 */
function compileWith(s: Schema, memo: Map<Schema, Check>): Check {
  const known = memo.get(s);
  if (known) return known;
  const check = build(s, memo);
  memo.set(s, check);
  return check;
}

function build(s: Schema, memo: Map<Schema, Check>): Check {
  if (s.nullable) {
    const check = compileWith({ ...s, nullable: false }, memo);
    return (v, path, errors) => {
      if (v !== null) check(v, path, errors);
    };
  }
  switch (s.kind) {
    case 'number':
      return (v, path, errors) => {
        if (typeof v !== 'number' || !Number.isFinite(v)) errors.push(`${path}: expected a number, got ${fmt(v)}`);
        else if (s.int && !Number.isInteger(v)) errors.push(`${path}: ${v} is not an integer`);
        else if (s.min !== undefined && v < s.min) errors.push(`${path}: ${v} is below min ${s.min}`);
        else if (s.max !== undefined && v > s.max) errors.push(`${path}: ${v} is above max ${s.max}`);
        else if (s.step !== undefined && s.step > 0 && !onStep(v, s.min ?? 0, s.step))
          errors.push(`${path}: ${v} is not on step ${s.step} from ${s.min ?? 0}`);
      };
    case 'string':
      return (v, path, errors) => {
        if (typeof v !== 'string') errors.push(`${path}: expected a string, got ${fmt(v)}`);
        else if (s.nonEmpty && v.trim() === '') errors.push(`${path}: must not be empty`);
        else if (s.maxLength !== undefined && v.length > s.maxLength)
          errors.push(`${path}: longer than ${s.maxLength} characters`);
        else if (s.pattern && !s.pattern.test(v)) errors.push(`${path}: ${fmt(v)} is not ${s.patternDoc ?? s.pattern}`);
      };
    case 'enum': {
      const allowed = new Set(s.values);
      const list = s.values.join(', ');
      if (s.values.length === 1) {
        const only = s.values[0];
        return (v, path, errors) => {
          if (v !== only) errors.push(`${path}: must be ${String(only)}, got ${fmt(v)}`);
        };
      }
      return (v, path, errors) => {
        if (!allowed.has(v as string)) errors.push(`${path}: ${fmt(v)} is not one of ${list}`);
      };
    }
    case 'boolean':
      return (v, path, errors) => {
        if (typeof v !== 'boolean') errors.push(`${path}: expected a boolean, got ${fmt(v)}`);
      };
    case 'date':
      return (v, path, errors) => {
        if (!isIsoDate(v)) errors.push(`${path}: ${fmt(v)} is not an ISO 8601 date`);
      };
    case 'any':
      return () => {};
    case 'object':
      return compileObject(s, memo);
    case 'array': {
      const item = compileWith(s.items, memo);
      return (v, path, errors) => {
        if (!Array.isArray(v)) return void errors.push(`${path}: expected an array, got ${fmt(v)}`);
        // Too long: one message, not one per item of a list that may hold a whole body's worth.
        if (s.maxItems !== undefined && v.length > s.maxItems)
          return void errors.push(`${path}: ${v.length} items is above max ${s.maxItems}`);
        if (s.minItems !== undefined && v.length < s.minItems)
          errors.push(`${path}: needs at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`);
        for (let i = 0; i < v.length; i++) item(v[i], `${path}.${i}`, errors);
      };
    }
    case 'map': {
      const value = compileWith(s.values, memo);
      return (v, path, errors) => {
        if (!isObject(v)) return void errors.push(`${path}: expected an object, got ${fmt(v)}`);
        for (const k in v) {
          if (s.keyPattern && !s.keyPattern.test(k))
            errors.push(`${keyPath(path, k)}: key is not ${s.keyDoc ?? s.keyPattern}`);
          else value(v[k], keyPath(path, k), errors);
        }
      };
    }
    case 'tagged': {
      const variants = new Map(Object.entries(s.variants).map(([k, o]) => [k as unknown, compileObject(o, memo)]));
      const list = Object.keys(s.variants).join(', ');
      return (v, path, errors) => {
        if (!isObject(v)) return void errors.push(`${path}: expected an object, got ${fmt(v)}`);
        const t = v[s.tag];
        if (t === undefined) return void errors.push(`${path}.${s.tag}: required`);
        const check = variants.get(t);
        if (!check) return void errors.push(`${path}.${s.tag}: ${fmt(t)} is not one of ${list}`);
        check(v, path, errors);
      };
    }
    case 'union': {
      const options = s.options.map((o) => ({ kind: o.kind, check: compileWith(o, memo) }));
      return (v, path, errors) => {
        // The errors of the best-fitting option: of the value's own shape first, then fewest problems.
        let best: string[] | undefined;
        let bestScore = Number.POSITIVE_INFINITY;
        for (const { kind, check } of options) {
          const mine: string[] = [];
          check(v, path, mine);
          if (mine.length === 0) return;
          const score = mine.length + (sameShape(kind, v) ? 0 : 1000);
          if (score < bestScore) {
            best = mine;
            bestScore = score;
          }
        }
        if (best) errors.push(...best);
      };
    }
  }
}

/**
 * The strict checker of one part of a request (its body, query, path or a payload), as a list
 * of messages: `field: rule` for what is inside it, `whole: rule` for the part itself.
 */
export function compileTop(s: Schema, whole: string): (v: unknown) => string[] {
  const check = compileStrict(s);
  return (v) => {
    const errors: string[] = [];
    check(v, '', errors);
    return errors.map((e) => (e.startsWith('.') ? e.slice(1) : e.startsWith(': ') ? `${whole}${e}` : e));
  };
}

function compileObject(s: ObjectSchema, memo: Map<Schema, Check>): Check {
  const keys = Object.keys(s.fields);
  const known = new Set(keys);
  const checks = keys.map((k) => compileWith(s.fields[k] as Schema, memo));
  const alternative = new Set((s.exactlyOne ?? []).flat());
  const required = keys.map((k) => !s.fields[k]?.optional && !alternative.has(k));
  const groups = s.exactlyOne ?? [];
  const atLeastOne = s.atLeastOne;
  return (v, path, errors) => {
    if (!isObject(v)) return void errors.push(`${path}: expected an object, got ${fmt(v)}`);
    if (!s.open) for (const k in v) if (!known.has(k)) errors.push(`${keyPath(path, k)}: unknown field`);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const val = v[k];
      if (val === undefined) {
        if (required[i]) errors.push(`${path}.${k}: required`);
      } else (checks[i] as Check)(val, `${path}.${k}`, errors);
    }
    for (const group of groups) {
      let present = 0;
      for (const k of group) if (v[k] !== undefined) present++;
      if (present === 0) errors.push(`${path}.${group[0]}: required (or ${group.slice(1).join(', or ')})`);
      else if (present > 1) errors.push(`${path}: give only one of ${group.join(', ')}`);
    }
    if (atLeastOne && !atLeastOne.some((k) => v[k] !== undefined))
      errors.push(`${path}: needs at least one of ${atLeastOne.join(', ')}`);
  };
}
