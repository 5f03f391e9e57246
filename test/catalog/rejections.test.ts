/**
 * Table-driven tests generated from the catalog, for every capability and every name of it:
 * a valid body passes; a wrong type, a value past each bound, an unknown key, a missing
 * required field and a wrong name level are rejected (commands) or repaired with a warning (reports).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type BodyDef,
  type CapabilityDef,
  type CapabilityObject,
  capabilities,
  controlSchema,
  reportSchema,
  type Schema,
  sanitizeReport,
  validateCommand,
} from '../../src/catalog/index.ts';

type ObjectSchema = Extract<Schema, { kind: 'object' }>;

/** A deterministic valid value of a schema; `full` includes optional fields. */
function sample(s: Schema, full = false): unknown {
  switch (s.kind) {
    case 'number':
      return s.min ?? s.max ?? 1;
    case 'string':
      return s.pattern ? 'rtsp://camera.local/live' : 'x';
    case 'enum':
      return s.values[0];
    case 'boolean':
      return true;
    case 'date':
      return '2024-05-01T00:00:00.000Z';
    case 'any':
      return 'x';
    case 'array':
      return [sample(s.items)];
    case 'map':
      return { '1': sample(s.values) };
    case 'union':
      return sample(s.options[0] as Schema);
    case 'tagged':
      return sample(Object.values(s.variants)[0] as Schema);
    case 'object': {
      const alt = new Set((s.exactlyOne ?? []).flat());
      const out: Record<string, unknown> = {};
      for (const [k, f] of Object.entries(s.fields)) if ((full || !f.optional) && !alt.has(k)) out[k] = sample(f, full);
      for (const g of s.exactlyOne ?? []) out[g[0] as string] = sample(s.fields[g[0] as string] as Schema, full);
      return out;
    }
  }
}

/** A value of the wrong JSON type for a schema. */
function wrongType(s: Schema): unknown {
  return s.kind === 'number' || s.kind === 'enum' || s.kind === 'date' ? 'not-a-value' : 12345;
}

const objectOf = (s: Schema): ObjectSchema | undefined =>
  s.kind === 'object' ? s : s.kind === 'tagged' ? Object.values(s.variants)[0] : undefined;

interface Target {
  title: string;
  def: CapabilityDef;
  name?: string;
  body: BodyDef;
  /** The state body holding `b` at this capability and name. */
  wrap: (b: unknown) => Record<string, unknown>;
  path: string;
  capPath: string;
  device: (permission: string) => CapabilityObject[];
}

function targets(): Target[] {
  const out: Target[] = [];
  for (const def of capabilities) {
    const c = def.capability;
    const n = def.naming;
    const add = (body: BodyDef, name?: string) =>
      out.push({
        title: name === undefined ? c : `${c} ${name}`,
        def,
        body,
        ...(name !== undefined ? { name } : {}),
        wrap: (b) => ({ [c]: name === undefined ? b : { [name]: b } }),
        path: name === undefined ? `state.${c}` : `state.${c}.${name}`,
        capPath: `state.${c}`,
        device: (permission) => [{ capability: c, permission, ...(name !== undefined ? { name } : {}) }],
      });
    if (n.kind === 'fixed') for (const [name, b] of Object.entries(n.names)) add(b, name);
    else if (def.body) add(def.body, n.kind === 'pattern' ? '1' : undefined);
  }
  return out;
}

const errorsOf = (r: { ok: boolean; errors?: string[] }) => (r.ok ? [] : (r.errors ?? []));
const hasError = (errors: string[], prefix: string) =>
  assert.ok(
    errors.some((e) => e.startsWith(prefix)),
    `expected an error starting with ${prefix}, got ${JSON.stringify(errors)}`,
  );

describe('commands are strict, for every capability and name', () => {
  for (const t of targets()) {
    const control = controlSchema(t.body);
    if (!control) {
      test(`${t.title}: has no control body, so a command is refused`, () => {
        const r = validateCommand(t.device(t.body.permission), t.wrap({}));
        hasError(errorsOf(r), `${t.path}: `);
      });
      continue;
    }
    // Force the control bit so that report-only capabilities' state shapes are checked strictly too.
    const device = t.device(`1${t.body.permission.slice(1)}`);
    const shape = objectOf(control);
    const valid = sample(control) as Record<string, unknown>;
    const check = (b: unknown) => validateCommand(device, t.wrap(b));
    describe(t.title, () => {
      test('a valid body is accepted', () => assert.equal(check(valid).ok, true, JSON.stringify(check(valid))));
      test('an unknown key is rejected', () => {
        hasError(errorsOf(check({ ...valid, zz_unknown: 1 })), `${t.path}.zz_unknown: unknown field`);
      });
      test('a wrong name level is rejected', () => {
        const wrong = t.name === undefined ? { [t.def.capability]: { '1': valid } } : { [t.def.capability]: valid };
        const errors = errorsOf(validateCommand(device, wrong));
        assert.ok(errors.length > 0);
        for (const e of errors) assert.ok(e.startsWith(`${t.capPath}.`), e);
      });
      test('a body that is not an object is rejected', () => {
        hasError(errorsOf(check('on')), `${t.path}: `);
      });
      if (!shape) return;
      const alt = new Set((shape.exactlyOne ?? []).flat());
      // Setting an alternative field (brightnessDelta) removes the others of its group.
      const withField = (k: string, v: unknown) => {
        const out: Record<string, unknown> = { ...valid };
        for (const other of shape.exactlyOne?.find((g) => g.includes(k)) ?? []) delete out[other];
        out[k] = v;
        return out;
      };
      for (const [k, f] of Object.entries(shape.fields)) {
        const p = `${t.path}.${k}`;
        test(`${k}: a wrong type is rejected`, () => hasError(errorsOf(check(withField(k, wrongType(f)))), `${p}: `));
        if (!f.optional && !alt.has(k))
          test(`${k}: missing is rejected as required`, () => {
            const { [k]: _, ...rest } = valid;
            hasError(errorsOf(check(rest)), `${p}: required`);
          });
        if (f.kind === 'enum' && f.values.length > 1)
          test(`${k}: a value outside ${f.values.join(', ')} is rejected`, () =>
            hasError(errorsOf(check(withField(k, 'not-a-value'))), `${p}: "not-a-value" is not one of`));
        if (f.kind === 'number') {
          if (f.min !== undefined) {
            const min = f.min;
            test(`${k}: min ${min} is accepted, below it is rejected`, () => {
              assert.equal(check(withField(k, min)).ok, true);
              hasError(errorsOf(check(withField(k, min - 1))), `${p}: ${min - 1} is below min ${min}`);
            });
          }
          if (f.max !== undefined) {
            const max = f.max;
            test(`${k}: max ${max} is accepted, above it is rejected`, () => {
              assert.equal(check(withField(k, max)).ok, true);
              hasError(errorsOf(check(withField(k, max + 1))), `${p}: ${max + 1} is above max ${max}`);
            });
          }
          if (f.int)
            test(`${k}: a fraction is rejected as not an integer`, () => {
              const v = (f.min ?? f.max ?? 0) + (f.max !== undefined && f.min === undefined ? -0.5 : 0.5);
              hasError(errorsOf(check(withField(k, v))), `${p}: ${v} is not an integer`);
            });
        }
        if (f.kind === 'object' || f.kind === 'tagged')
          test(`${k}: an unknown nested key is rejected`, () => {
            const inner = { ...(sample(f) as object), zz_unknown: true };
            hasError(errorsOf(check(withField(k, inner))), `${p}.zz_unknown: unknown field`);
          });
      }
    });
  }
});

describe('reports are lenient, for every capability and name', () => {
  for (const t of targets()) {
    const report = reportSchema(t.body);
    if (!report) continue;
    const device = t.device(t.body.permission);
    const shape = objectOf(report);
    const valid = sample(report, true) as Record<string, unknown>;
    const clean = (b: unknown) => sanitizeReport(device, t.wrap(b));
    const at = (r: { state: Record<string, unknown> }) => {
      const c = r.state[t.def.capability] as Record<string, unknown> | undefined;
      return (t.name === undefined ? c : c?.[t.name]) as Record<string, unknown> | undefined;
    };
    describe(t.title, () => {
      test('a valid report is kept as is', () =>
        assert.deepEqual(clean(valid), { state: t.wrap(valid), warnings: [] }));
      if (!shape) return;
      test('an unknown key is dropped with a warning', () => {
        const r = clean({ ...valid, zz_unknown: 1 });
        assert.deepEqual(at(r), valid);
        hasError(r.warnings, `${t.path}.zz_unknown: unknown field (dropped)`);
      });
      for (const [k, f] of Object.entries(shape.fields)) {
        const p = `${t.path}.${k}`;
        if (f.kind === 'number' || f.kind === 'enum' || f.kind === 'boolean' || f.kind === 'date')
          test(`${k}: a wrong type is dropped with a warning`, () => {
            const r = clean({ ...valid, [k]: [1] });
            assert.equal(at(r)?.[k], undefined);
            hasError(r.warnings, `${p}: `);
          });
        if (f.kind === 'number' && f.min !== undefined) {
          const min = f.min;
          test(`${k}: below min ${min} is clamped with a warning`, () => {
            const r = clean({ ...valid, [k]: min - 1 });
            assert.equal(at(r)?.[k], min);
            hasError(r.warnings, `${p}: ${min - 1} is below min ${min}, clamped to ${min}`);
          });
        }
        if (f.kind === 'number' && f.max !== undefined) {
          const max = f.max;
          test(`${k}: above max ${max} is clamped with a warning`, () => {
            const r = clean({ ...valid, [k]: max + 1 });
            assert.equal(at(r)?.[k], max);
            hasError(r.warnings, `${p}: ${max + 1} is above max ${max}, clamped to ${max}`);
          });
        }
      }
    });
  }
});
