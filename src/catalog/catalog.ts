/**
 * The catalog: every capability definition of spec 2.6, compiled once into validators. The
 * compiled tables are built at load time from immutable data and never change afterwards.
 */

import { deepFreeze, own } from '../lib/object.ts';
import { type Clean, compileLenient } from './compile-lenient.ts';
import { type Check, compileStrict } from './compile-strict.ts';
import { cameraCapabilities } from './defs/camera.ts';
import { climateCapabilities } from './defs/climate.ts';
import { energyCapabilities } from './defs/energy.ts';
import { irrigationCapabilities } from './defs/irrigation.ts';
import { lightingCapabilities } from './defs/lighting.ts';
import { sensorCapabilities } from './defs/sensors.ts';
import { switchingCapabilities } from './defs/switching.ts';
import { mapField, num, obj, oneOf, partial, type Schema, union } from './schema.ts';
import type { BodyDef, CapabilityDef, SettingItem } from './types.ts';

// The order of spec 2.6, which the docs follow.
const specOrder =
  `power toggle toggle-inching brightness color-temperature color-rgb percentage motor-control motor-reverse
  motor-clb startup identify power-consumption thermostat-mode-detect thermostat thermostat-target-setpoint detect
  temperature humidity battery press multi-press rssi tamper-alert illumination-level voltage inching camera-stream mode
  co2 illumination smoke contact motion water-leak gas window-detection child-lock anti-direct-blow horizontal-swing
  vertical-swing eco toggle-startup detect-hold toggle-identify toggle-voltage toggle-electric-current
  toggle-electric-power toggle-power-consumption lqi configuration system moisture barometric-pressure wind-speed
  wind-direction rainfall ultraviolet-index electrical-conductivity transmit-power pm25 voc-index irrigation`.split(
    /\s+/,
  );

/** Every capability of spec 2.6, one definition each, in the spec's order; frozen all the way down. */
export const capabilities: readonly CapabilityDef[] = deepFreeze(
  [
    ...switchingCapabilities,
    ...lightingCapabilities,
    ...energyCapabilities,
    ...climateCapabilities,
    ...sensorCapabilities,
    ...irrigationCapabilities,
    ...cameraCapabilities,
  ].sort((a, b) => specOrder.indexOf(a.capability) - specOrder.indexOf(b.capability)),
);

const byName = new Map(capabilities.map((c) => [c.capability, c]));

/** The definition of a capability, or undefined when the catalog has none. */
export function capabilityDef(name: string): CapabilityDef | undefined {
  return byName.get(name);
}

/** The names of all capabilities, in catalog order. */
export const capabilityNames: readonly string[] = Object.freeze(capabilities.map((c) => c.capability));

/** The body definition of a capability for one name (or for a capability without fixed names). */
export function bodyDef(def: CapabilityDef, name?: string): BodyDef | undefined {
  if (def.naming.kind === 'fixed') return name === undefined ? undefined : own(def.naming.names, name);
  return def.body;
}

/** Validators of one body, compiled. `control` undefined: the capability has no control body. */
export interface CompiledBody {
  def: BodyDef;
  control?: { schema: Schema; check: Check; explicit: boolean };
  report?: { schema: Schema; clean: Clean };
  query: { schema: Schema; check: Check };
}

/** The control schema of a body: explicit, else the state; none when `control` is null or there is no state. */
export function controlSchema(b: BodyDef): Schema | undefined {
  if (b.control === null) return undefined;
  return b.control ?? b.state;
}

/** The report schema of a body: explicit, else the state. */
export function reportSchema(b: BodyDef): Schema | undefined {
  return b.report ?? b.state;
}

/** The query schema of a body: explicit, else `{}` or a partial state. */
export function querySchema(b: BodyDef): Schema {
  if (b.query) return b.query;
  if (!b.state) return obj({});
  return b.state.kind === 'object' ? partial(b.state) : union(obj({}), b.state);
}

/** Compiles the validators of one body. */
export function compileBody(def: BodyDef): CompiledBody {
  const control = controlSchema(def);
  const report = reportSchema(def);
  const query = querySchema(def);
  return {
    def,
    ...(control ? { control: { schema: control, check: compileStrict(control), explicit: def.control != null } } : {}),
    ...(report ? { report: { schema: report, clean: compileLenient(report) } } : {}),
    query: { schema: query, check: compileStrict(query) },
  };
}

/** A capability with its bodies compiled. */
export interface CompiledCapability {
  def: CapabilityDef;
  body?: CompiledBody;
  names?: ReadonlyMap<string, CompiledBody>;
  query?: Check;
  result?: Clean;
  configuration?: Check;
}

const compiled: ReadonlyMap<string, CompiledCapability> = new Map(
  capabilities.map((def) => {
    const c: CompiledCapability = {
      def,
      ...(def.body ? { body: compileBody(def.body) } : {}),
      ...(def.naming.kind === 'fixed'
        ? { names: new Map(Object.entries(def.naming.names).map(([n, b]) => [n, compileBody(b)])) }
        : {}),
      ...(def.query ? { query: compileStrict(def.query) } : {}),
      ...(def.result ? { result: compileLenient(def.result) } : {}),
      ...(def.configuration ? { configuration: compileStrict(def.configuration) } : {}),
    };
    return [def.capability, c];
  }),
);

/** The compiled form of a capability. */
export function compiledCapability(name: string): CompiledCapability | undefined {
  return compiled.get(name);
}

/** The list a device's setting gives for a `values` narrowing (`values`, else an array `value`). */
export function settingList(item: SettingItem | undefined): (string | number | boolean)[] | undefined {
  if (!item) return undefined;
  const list = Array.isArray(item.values) ? item.values : Array.isArray(item.value) ? item.value : undefined;
  if (!list || list.length === 0) return undefined;
  return list.filter((x): x is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof x));
}

/**
 * The body as narrowed by a device's own settings (a range, a supported-values list), or
 * undefined when the device's settings narrow nothing.
 */
export function narrowBody(def: BodyDef, settings: Record<string, SettingItem> | undefined): BodyDef | undefined {
  if (!def.narrowing || !settings) return undefined;
  let out: BodyDef | undefined;
  for (const n of def.narrowing) {
    const item = settings[n.setting];
    if (!item) continue;
    let fn: ((s: Schema) => Schema) | undefined;
    if (n.by === 'values') {
      const list = settingList(item);
      if (list)
        fn = (s) => ({
          ...oneOf(...list),
          ...(s.optional ? { optional: true } : {}),
          ...(s.doc ? { doc: s.doc } : {}),
        });
    } else {
      const { min, max, step } = item;
      if (typeof min === 'number' || typeof max === 'number' || typeof step === 'number') {
        fn = (s) => {
          const base = s.kind === 'number' ? s : num();
          const lo = typeof min === 'number' ? Math.max(min, base.min ?? min) : base.min;
          const hi = typeof max === 'number' ? Math.min(max, base.max ?? max) : base.max;
          return {
            ...base,
            ...(lo !== undefined ? { min: lo } : {}),
            ...(hi !== undefined ? { max: hi } : {}),
            ...(typeof step === 'number' && step > 0 ? { step } : {}),
          };
        };
      }
    }
    if (!fn) continue;
    const cur: BodyDef = out ?? def;
    const apply = (s: Schema | undefined | null) => (s ? mapField(s, n.field, fn) : s);
    out = {
      ...cur,
      ...(cur.state ? { state: apply(cur.state) as Schema } : {}),
      ...(cur.control ? { control: apply(cur.control) as Schema } : {}),
      ...(cur.report ? { report: apply(cur.report) as Schema } : {}),
    };
  }
  return out;
}
