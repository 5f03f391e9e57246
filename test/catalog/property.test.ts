/**
 * Property tests: bodies generated from the catalog's own schemas pass the validators; the same
 * bodies with one leaf broken, or one unknown key added, fail with the path of the change.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  type BodyDef,
  type CapabilityObject,
  capabilities,
  controlSchema,
  permissionBits,
  reportSchema,
  type Schema,
  sanitizeReport,
  validateCommand,
} from '../../src/catalog/index.ts';

/** An arbitrary of valid values of a schema. */
function arb(s: Schema): fc.Arbitrary<unknown> {
  switch (s.kind) {
    case 'number': {
      const min = s.min ?? -1e6;
      const max = s.max ?? 1e6;
      return s.int ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'string':
      return s.pattern ? fc.constant('rtsp://camera.local/live') : fc.string({ maxLength: 8 });
    case 'enum':
      return fc.constantFrom(...s.values);
    case 'boolean':
      return fc.boolean();
    case 'date':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'any':
      return fc.jsonValue();
    case 'array':
      return fc.array(arb(s.items), { minLength: s.minItems ?? 0, maxLength: 3 });
    case 'map':
      return fc.dictionary(fc.stringMatching(/^[A-Za-z0-9]{1,4}$/), arb(s.values), { maxKeys: 3 });
    case 'union':
      return fc.oneof(...s.options.map(arb));
    case 'tagged':
      return fc.oneof(...Object.values(s.variants).map(arb));
    case 'object': {
      const alt = new Set((s.exactlyOne ?? []).flat());
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      const required: string[] = [];
      for (const [k, f] of Object.entries(s.fields)) {
        if (alt.has(k)) continue;
        model[k] = arb(f);
        if (!f.optional) required.push(k);
      }
      const base = fc.record(model, { requiredKeys: required });
      const groups = (s.exactlyOne ?? []).map((g) =>
        fc.oneof(...g.map((k) => arb(s.fields[k] as Schema).map((v) => ({ [k]: v })))),
      );
      return fc.tuple(base, ...groups).map(([b, ...gs]) => Object.assign({}, b, ...gs));
    }
  }
}

interface Slot {
  capability: string;
  name?: string;
  body: BodyDef;
}

/** One slot per capability and name: the device has each capability with its default permission. */
const slots: Slot[] = capabilities.flatMap((d): Slot[] => {
  const n = d.naming;
  if (n.kind === 'fixed')
    return Object.entries(n.names).map(([name, body]) => ({ capability: d.capability, name, body }));
  if (!d.body) return [];
  if (n.kind === 'pattern')
    return ['1', '2'].map((name) => ({ capability: d.capability, name, body: d.body as BodyDef }));
  return [{ capability: d.capability, body: d.body }];
});
const device: CapabilityObject[] = slots.map((s) => ({
  capability: s.capability,
  permission: s.body.permission,
  ...(s.name !== undefined ? { name: s.name } : {}),
}));

/** An arbitrary state object over some of the slots, each body drawn from `pick(body)`. */
function stateOf(pick: (b: BodyDef) => Schema | undefined): fc.Arbitrary<Record<string, unknown>> {
  const usable = slots.flatMap((s) => {
    const schema = pick(s.body);
    return schema ? [{ s, a: arb(schema) }] : [];
  });
  return fc.subarray(usable, { minLength: 1, maxLength: 20 }).chain((chosen) =>
    fc.tuple(...chosen.map((c) => c.a)).map((values) => {
      const state: Record<string, unknown> = {};
      chosen.forEach(({ s }, i) => {
        if (s.name === undefined) state[s.capability] = values[i];
        else state[s.capability] = { ...(state[s.capability] as object), [s.name]: values[i] };
      });
      return state;
    }),
  );
}

const controllable = (b: BodyDef) => {
  const c = controlSchema(b);
  return c && (permissionBits(b.permission).control || b.control) ? c : undefined;
};

/** Every path (dotted, from `state`) to a leaf and to an object node of a JSON value. */
function paths(v: unknown, at: string, leaves: string[], objects: string[]): void {
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) paths(x, `${at}.${i}`, leaves, objects);
  } else if (typeof v === 'object' && v !== null) {
    objects.push(at);
    for (const [k, x] of Object.entries(v)) paths(x, `${at}.${k}`, leaves, objects);
  } else leaves.push(at);
}

function setAt(root: Record<string, unknown>, path: string, fn: (v: unknown) => unknown): Record<string, unknown> {
  const copy = structuredClone(root);
  const keys = path.split('.').slice(1);
  let node = copy as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) node = node[k] as Record<string, unknown>;
  const last = keys[keys.length - 1] as string;
  node[last] = fn(node[last]);
  return copy;
}

const settings = { numRuns: 300 };

describe('generated bodies', () => {
  test('the generated device is valid', () => {
    assert.equal(device.length > 60, true);
  });

  test('valid control commands pass unchanged', () => {
    fc.assert(
      fc.property(stateOf(controllable), (state) => {
        const r = validateCommand(device, state);
        assert.deepEqual(r, { ok: true, value: state });
      }),
      settings,
    );
  });

  test('valid reports are kept as is without warnings', () => {
    fc.assert(
      fc.property(stateOf(reportSchema), (state) => {
        assert.deepEqual(sanitizeReport(device, state), { state, warnings: [] });
      }),
      settings,
    );
  });

  test('a command with one leaf replaced by an object fails with that path', () => {
    const arbMutated = stateOf(controllable).chain((state) => {
      const leaves: string[] = [];
      paths(state, 'state', leaves, []);
      return fc.constantFrom(...leaves).map((leaf) => ({ state: setAt(state, leaf, () => ({ bad: 1 })), leaf }));
    });
    fc.assert(
      fc.property(arbMutated, ({ state, leaf }) => {
        const r = validateCommand(device, state);
        assert.equal(r.ok, false);
        if (!r.ok)
          assert.ok(
            r.errors.some((e) => e.startsWith(`${leaf}:`) || e.startsWith(`${leaf}.bad:`)),
            r.errors.join('\n'),
          );
      }),
      settings,
    );
  });

  test('a command with one unknown key added anywhere fails with that path', () => {
    const arbMutated = stateOf(controllable).chain((state) => {
      const objects: string[] = [];
      paths(state, 'state', [], objects);
      return fc.constantFrom(...objects).map((at) => ({
        state:
          at === 'state' ? { ...state, zz_unknown: 1 } : setAt(state, at, (o) => ({ ...(o as object), zz_unknown: 1 })),
        at,
      }));
    });
    fc.assert(
      fc.property(arbMutated, ({ state, at }) => {
        const r = validateCommand(device, state);
        assert.equal(r.ok, false);
        if (!r.ok)
          assert.ok(
            r.errors.some((e) => e.startsWith(`${at}.zz_unknown:`)),
            r.errors.join('\n'),
          );
      }),
      settings,
    );
  });

  test('a report with one leaf of the wrong type drops it with a warning naming the path', () => {
    const arbMutated = stateOf(reportSchema).chain((state) => {
      const leaves: string[] = [];
      paths(state, 'state', leaves, []);
      return fc.constantFrom(...leaves).map((leaf) => ({ state: setAt(state, leaf, () => [[]]), leaf }));
    });
    fc.assert(
      fc.property(arbMutated, ({ state, leaf }) => {
        const r = sanitizeReport(device, state);
        assert.ok(
          r.warnings.some((w) => w.startsWith(leaf)),
          `${leaf}\n${r.warnings.join('\n')}`,
        );
        assert.ok(!JSON.stringify(r.state).includes('[[]]'));
      }),
      settings,
    );
  });
});
