/**
 * Validating a 20-capability control command with the catalog's compiled validators, against a
 * hand-written check of the same body (same rules: types, ranges, enums, unknown keys, channels)
 * measured in the same run. Prints catalog ops/s divided by hand-written ops/s.
 */
import { type CapabilityObject, sanitizeReport, validateCommand } from '../src/catalog/index.ts';
import { opsPerSecond, report } from './lib.ts';

const device: CapabilityObject[] = [
  { capability: 'power', permission: '1100' },
  { capability: 'toggle', permission: '1100', name: '1' },
  { capability: 'toggle', permission: '1100', name: '2' },
  { capability: 'brightness', permission: '1100' },
  { capability: 'color-temperature', permission: '1100' },
  { capability: 'color-rgb', permission: '1100' },
  { capability: 'percentage', permission: '1100' },
  { capability: 'motor-control', permission: '1100' },
  { capability: 'motor-reverse', permission: '1100' },
  { capability: 'startup', permission: '1100' },
  { capability: 'identify', permission: '0100' },
  { capability: 'thermostat', permission: '1100', name: 'thermostat-mode' },
  { capability: 'thermostat-target-setpoint', permission: '1110', name: 'manual-mode' },
  { capability: 'mode', permission: '1100', name: 'fanLevel' },
  { capability: 'window-detection', permission: '1100' },
  { capability: 'child-lock', permission: '1100' },
  { capability: 'anti-direct-blow', permission: '1100' },
  { capability: 'horizontal-swing', permission: '1100' },
  { capability: 'vertical-swing', permission: '1100' },
  { capability: 'eco', permission: '1100' },
  { capability: 'toggle-startup', permission: '1100', name: '1' },
];

const command = {
  power: { powerState: 'on' },
  toggle: { '1': { toggleState: 'on' }, '2': { toggleState: 'off' } },
  brightness: { brightness: 80 },
  'color-temperature': { colorTemperature: 40 },
  'color-rgb': { red: 255, green: 120, blue: 0 },
  percentage: { percentage: 50 },
  'motor-control': { motorControl: 'open' },
  'motor-reverse': { motorReverse: true },
  startup: { startup: 'stay' },
  identify: { countdown: 5 },
  thermostat: { 'thermostat-mode': { thermostatMode: 'AUTO' } },
  'thermostat-target-setpoint': { 'manual-mode': { targetSetpoint: 21.5 } },
  mode: { fanLevel: { modeValue: 'high' } },
  'window-detection': { powerState: 'on' },
  'child-lock': { powerState: 'off' },
  'anti-direct-blow': { powerState: 'on' },
  'horizontal-swing': { powerState: 'off' },
  'vertical-swing': { powerState: 'on' },
  eco: { powerState: 'off' },
  'toggle-startup': { '1': { startup: 'on' } },
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The same rules written by hand for exactly this device: what a careful engineer would code without a catalog. */
function handCheck(caps: CapabilityObject[], state: unknown): string[] {
  const errors: string[] = [];
  if (!isObj(state)) return ['state: expected an object'];
  const has = new Map<string, Set<string>>();
  for (const c of caps) {
    let s = has.get(c.capability);
    if (!s) {
      s = new Set();
      has.set(c.capability, s);
    }
    if (c.name !== undefined) s.add(c.name);
  }
  const only = (o: Obj, path: string, keys: string[]) => {
    for (const k in o) if (!keys.includes(k)) errors.push(`${path}.${k}: unknown field`);
  };
  const field = (o: unknown, path: string, key: string, rule: (v: unknown) => string | null) => {
    if (!isObj(o)) return void errors.push(`${path}: expected an object`);
    only(o, path, [key]);
    const v = o[key];
    if (v === undefined) return void errors.push(`${path}.${key}: required`);
    const e = rule(v);
    if (e) errors.push(`${path}.${key}: ${e}`);
  };
  const oneOf =
    (...vals: unknown[]) =>
    (v: unknown) =>
      vals.includes(v) ? null : `${JSON.stringify(v)} is not one of ${vals.join(', ')}`;
  const range = (min?: number, max?: number) => (v: unknown) =>
    typeof v !== 'number' || !Number.isFinite(v)
      ? 'expected a number'
      : min !== undefined && v < min
        ? `${v} is below min ${min}`
        : max !== undefined && v > max
          ? `${v} is above max ${max}`
          : null;
  const bool = (v: unknown) => (typeof v === 'boolean' ? null : 'expected a boolean');
  const named = (v: unknown, path: string, cap: string, each: (b: unknown, p: string) => void) => {
    if (!isObj(v)) return void errors.push(`${path}: expected an object`);
    for (const n in v) {
      if (!has.get(cap)?.has(n)) errors.push(`${path}.${n}: the device has no channel ${n} of ${cap}`);
      else each(v[n], `${path}.${n}`);
    }
  };
  for (const cap in state) {
    const v = state[cap];
    const p = `state.${cap}`;
    if (!has.has(cap)) {
      errors.push(`${p}: the device has no capability ${cap}`);
      continue;
    }
    switch (cap) {
      case 'power':
        field(v, p, 'powerState', oneOf('on', 'off', 'toggle'));
        break;
      case 'toggle':
        named(v, p, cap, (b, q) => field(b, q, 'toggleState', oneOf('on', 'off', 'toggle')));
        break;
      case 'brightness':
        field(v, p, 'brightness', range(0, 100));
        break;
      case 'color-temperature':
        field(v, p, 'colorTemperature', range(0, 100));
        break;
      case 'color-rgb':
        if (!isObj(v)) errors.push(`${p}: expected an object`);
        else {
          only(v, p, ['red', 'green', 'blue']);
          for (const k of ['red', 'green', 'blue']) {
            const e = v[k] === undefined ? 'required' : range(0, 255)(v[k]);
            if (e) errors.push(`${p}.${k}: ${e}`);
          }
        }
        break;
      case 'percentage':
        field(v, p, 'percentage', range(0, 100));
        break;
      case 'motor-control':
        field(v, p, 'motorControl', oneOf('open', 'close', 'stop', 'lock'));
        break;
      case 'motor-reverse':
        field(v, p, 'motorReverse', bool);
        break;
      case 'startup':
        field(v, p, 'startup', oneOf('on', 'stay', 'off', 'toggle'));
        break;
      case 'identify':
        field(v, p, 'countdown', range(0));
        break;
      case 'thermostat':
        named(v, p, cap, (b, q) => field(b, q, 'thermostatMode', oneOf('MANUAL', 'AUTO', 'ECO')));
        break;
      case 'thermostat-target-setpoint':
        named(v, p, cap, (b, q) => field(b, q, 'targetSetpoint', range()));
        break;
      case 'mode':
        named(v, p, cap, (b, q) => field(b, q, 'modeValue', oneOf('low', 'medium', 'high')));
        break;
      case 'toggle-startup':
        named(v, p, cap, (b, q) => field(b, q, 'startup', oneOf('on', 'stay', 'off')));
        break;
      default:
        field(v, p, 'powerState', oneOf('on', 'off'));
    }
  }
  return errors;
}

const bad = {
  ...command,
  brightness: { brightness: 101 },
  power: { powerState: 'maybe' },
  toggle: { '7': { toggleState: 'on' } },
};

// Both sides must agree on what they are measuring.
const r = validateCommand(device, command);
if (!r.ok || handCheck(device, command).length !== 0) throw new Error(`bench body is not valid: ${JSON.stringify(r)}`);
const rb = validateCommand(device, bad);
if (rb.ok || rb.errors.length !== handCheck(device, bad).length) throw new Error('bench bodies disagree on errors');

const ms = Number(process.env.BENCH_MS ?? 1500);
let sink = 0;
const catalogValid = opsPerSecond(() => {
  sink += validateCommand(device, command).ok ? 1 : 0;
}, ms);
const handValid = opsPerSecond(() => {
  sink += handCheck(device, command).length;
}, ms);
report(
  'catalog: validate 20-capability command (valid)',
  catalogValid / handValid,
  {
    catalog_ops: catalogValid,
    hand_ops: handValid,
  },
  '>= 0.5',
);

const catalogBad = opsPerSecond(() => {
  sink += validateCommand(device, bad).ok ? 1 : 0;
}, ms);
const handBad = opsPerSecond(() => {
  sink += handCheck(device, bad).length;
}, ms);
report('catalog: validate 20-capability command (3 errors)', catalogBad / handBad, {
  catalog_ops: catalogBad,
  hand_ops: handBad,
});

const reportOps = opsPerSecond(() => {
  sink += Object.keys(sanitizeReport(device, command).state).length;
}, ms);
report('catalog: sanitize 20-capability report vs hand-written command check', reportOps / handValid, {
  catalog_ops: reportOps,
  hand_ops: handValid,
});
if (sink < 0) console.log(sink);
