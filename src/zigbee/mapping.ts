/**
 * Reads the mapping table (mapping-table.ts) in both directions: a device's exposes become its
 * capabilities, display category and bindings; a Zigbee2MQTT state message becomes an API state
 * report; an API control command becomes a `/set` payload with what to expect back; a D6 query
 * becomes a `/get` payload. Pure functions, no I/O.
 */
import { type CapabilityObject, capabilityDef, type SettingItem, validateCapabilities } from '../catalog/index.ts';
import { hsToRgb, type Rgb, xyToRgb } from '../lib/color.ts';
import { ACCESS_GET, ACCESS_SET, ACCESS_STATE, type Expose } from './exposes.ts';
import {
  CATEGORY_RULES,
  CHANNEL_PATTERNS,
  type Conversion,
  type MappingRow,
  mappingTable,
  PLUG_WORDS,
  PRESS_WORDS,
} from './mapping-table.ts';

/** One mapped feature: where its value lives in Zigbee2MQTT and in the API. */
export interface Binding {
  capability: string;
  name?: string;
  field: string;
  conv: Conversion;
  property: string;
  endpoint?: string;
  access: number;
  expose: Expose;
  row?: MappingRow;
  /** For `action`: Z2M action value -> the button name (absent for `press`) and the API press. */
  presses?: Map<string, { name?: string; press: string }>;
}

export interface DeviceMapping {
  capabilities: CapabilityObject[];
  /**
   * The device's channels, numbered `1`..`n` as clients address them (a Homebridge platform
   * writes `toggle.1`; the spec's `tags.toggle` labels channels `1`..`4`): channel -> the Zigbee
   * endpoint name (`left`, `l1`), which is its label in `tags.toggle`.
   */
  channelLabels: Record<string, string>;
  /** Former channel names still accepted on input (`left` -> `1`, `l1` -> `1`). */
  channelAliases: Record<string, string>;
  display_category: string;
  bindings: Binding[];
  byProperty: Map<string, Binding[]>;
  byCapability: Map<string, Binding>;
  /** Features left out, as `property (reason)`. */
  unmapped: string[];
  /** Expose features of the definition (leaves; a colour composite counts as one). */
  featureCount: number;
  mappedCount: number;
}

interface Leaf {
  expose: Expose;
  parent: string;
  endpoint?: string;
}

const key = (capability: string, name?: string) => `${capability}\u0000${name ?? ''}`;

/** The leaves of an exposes list, with the type of the specific expose (light, switch...) they sit in. */
export function exposeLeaves(exposes: readonly Expose[]): Leaf[] {
  const out: Leaf[] = [];
  const walk = (e: Expose, parent: string, endpoint?: string) => {
    if (typeof e !== 'object' || e === null) return; // a broken definition: nothing to map
    if (Array.isArray(e.features) && e.type !== 'composite' && e.type !== 'list') {
      for (const f of e.features) walk(f, parent || e.type, f?.endpoint ?? e.endpoint ?? endpoint);
    } else out.push({ expose: e, parent, endpoint: e.endpoint ?? endpoint });
  };
  for (const e of exposes) walk(e, '');
  return out;
}

/** API name of a Zigbee2MQTT endpoint on its own (`l1` -> `1`, `left` -> `left`); see numberChannels. */
export function channelName(endpoint: string): string {
  for (const [re, to] of CHANNEL_PATTERNS) if (re.test(endpoint)) return endpoint.replace(re, to);
  return endpoint.replace(/[^A-Za-z0-9]/g, '');
}

/**
 * Numbers a device's endpoints `1`..`n`: by their own number when every one has one (`l1`,
 * `l2`, `switch_3`), otherwise in the order the definition lists them (`left` 1, `right` 2).
 */
export function numberChannels(endpoints: readonly string[]): Map<string, string> {
  const distinct = [...new Set(endpoints)];
  const digits = distinct.map((e) => {
    const n = channelName(e);
    return /^\d+$/.test(n) ? Number(n) : Number.NaN;
  });
  const ordered = digits.every((d) => !Number.isNaN(d)) && new Set(digits).size === digits.length;
  const order = ordered
    ? distinct
        .map((e, i) => ({ e, d: digits[i] as number }))
        .sort((a, b) => a.d - b.d)
        .map((x) => x.e)
    : distinct;
  return new Map(order.map((e, i) => [e, String(i + 1)]));
}

function rowMatches(row: MappingRow, leaf: Leaf): boolean {
  const e = leaf.expose;
  if (e.name !== row.feature || e.type !== row.type) return false;
  if (row.parent && !row.parent.includes(leaf.parent)) return false;
  if (row.unit && !row.unit.includes(e.unit ?? '')) return false;
  if (row.whenValues && !row.whenValues.some((v) => e.values?.includes(v))) return false;
  if (((e.access ?? ACCESS_STATE) & (ACCESS_STATE | ACCESS_SET)) === 0) return false;
  if (
    row.conv.kind === 'scale' &&
    !row.conv.from &&
    !(isNum(e.value_min) && isNum(e.value_max) && e.value_max > e.value_min)
  )
    return false;
  return true;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** `table[k]` for the table's own keys only: a value named like `constructor` or `__proto__` is not in it. */
const own = <T>(table: Readonly<Record<string, T>>, k: string): T | undefined =>
  Object.hasOwn(table, k) ? table[k] : undefined;

function enumValues(conv: Conversion, e: Expose): string[] {
  if (conv.kind !== 'enum') return [];
  const out: string[] = [];
  for (const v of e.values ?? []) {
    const a = own(conv.map, v);
    if (a !== undefined && !out.includes(a)) out.push(a);
  }
  return out;
}

function settingsFor(row: MappingRow, conv: Conversion, e: Expose): Record<string, SettingItem> | undefined {
  switch (row.settings) {
    case 'setpoint': {
      const s: Record<string, SettingItem> = {
        temperatureUnit: { permission: '11', type: 'enum', value: 'c', values: ['c'] },
      };
      if (isNum(e.value_min) && isNum(e.value_max) && e.value_min < e.value_max)
        s.temperatureRange = {
          permission: '01',
          type: 'numeric',
          min: e.value_min,
          max: e.value_max,
          ...(isNum(e.value_step) && e.value_step > 0 ? { step: e.value_step } : {}),
        };
      return s;
    }
    case 'supportedValues':
      return { supportedValues: { permission: '01', type: 'enum', values: enumValues(conv, e) } };
    case 'supportedModes':
      return { supportedModes: { permission: '01', type: 'enum', values: enumValues(conv, e) } };
    case 'percentageRange':
      return isNum(e.value_min) && isNum(e.value_max)
        ? { percentageRange: { permission: '01', type: 'numeric', min: e.value_min, max: e.value_max } }
        : undefined;
    default:
      return undefined;
  }
}

/** Splits an action value into a press and its button (`single_left`, `left_single`, `button_1_double`). */
export function parseAction(value: string): { name?: string; press: string } | undefined {
  const plain = own(PRESS_WORDS, value);
  if (plain) return { press: plain };
  const parts = value.split('_');
  if (parts.length < 2) return undefined;
  let press: string | undefined;
  let rest: string[] = [];
  const first = parts[0] as string;
  const last = parts[parts.length - 1] as string;
  if (own(PRESS_WORDS, last)) {
    press = own(PRESS_WORDS, last);
    rest = parts.slice(0, -1);
  } else if (own(PRESS_WORDS, first)) {
    press = own(PRESS_WORDS, first);
    rest = parts.slice(1);
  }
  if (!press) return undefined;
  if (rest[0] === 'button' && rest.length > 1) rest = rest.slice(1);
  const name = rest.join('').replace(/[^A-Za-z0-9]/g, '');
  if (!name || rest.some((p) => own(PRESS_WORDS, p) !== undefined)) return undefined;
  return { name, press };
}

/** The press binding of an `action` expose; a button named like a channel (`single_left`) takes the channel's number. */
function actionBindings(leaf: Leaf, channels: ReadonlyMap<string, string>): Binding | undefined {
  const e = leaf.expose;
  const presses = new Map<string, { name?: string; press: string }>();
  const parsed = new Map<string, { name?: string; press: string }>();
  for (const v of e.values ?? []) {
    const p = parseAction(v);
    if (p) parsed.set(v, p);
  }
  // A bare button name among its own presses is its single press: the IKEA remote sends `toggle`
  // for a click of the button whose hold is `toggle_hold`.
  const buttons = new Set([...parsed.values()].map((p) => p.name));
  for (const v of e.values ?? []) {
    const bare = v.replace(/[^A-Za-z0-9]/g, '');
    if (!parsed.has(v) && buttons.has(bare)) parsed.set(v, { name: bare, press: 'singlePress' });
  }
  for (const [v, p] of parsed) {
    const channel = p.name === undefined ? undefined : channels.get(p.name);
    presses.set(v, channel === undefined ? p : { ...p, name: channel });
  }
  if (presses.size === 0) return undefined;
  return {
    capability: 'press',
    field: 'press',
    conv: { kind: 'enum', map: {} },
    property: e.property ?? 'action',
    access: e.access ?? ACCESS_STATE,
    expose: e,
    presses,
  };
}

/** Maps a device definition's exposes to capabilities. `addLqi`: Zigbee2MQTT reports `linkquality` for every device, exposed or not. */
export function mapExposes(
  exposes: readonly Expose[],
  opts: { description?: string; addLqi?: boolean } = {},
): DeviceMapping {
  const leaves = exposeLeaves(exposes);
  const channels = numberChannels(leaves.flatMap((l) => (l.endpoint === undefined ? [] : [l.endpoint])));
  const bindings: Binding[] = [];
  const caps: CapabilityObject[] = [];
  const taken = new Set<string>();
  const unmapped: string[] = [];
  let mappedCount = 0;

  const add = (cap: CapabilityObject, b: Binding): boolean => {
    const k = key(cap.capability, cap.name);
    if (taken.has(k)) return false;
    const valid = validateCapabilities([cap]);
    if (!valid.ok) {
      unmapped.push(`${b.property} (${valid.errors[0]})`);
      return false;
    }
    taken.add(k);
    caps.push(cap);
    bindings.push(b);
    return true;
  };

  for (const leaf of leaves) {
    const e = leaf.expose;
    const property = e.property ?? e.name ?? '?';
    if (e.name === 'action' && e.type === 'enum') {
      const b = actionBindings(leaf, channels);
      if (!b?.presses) {
        unmapped.push(`${property} (no press actions)`);
        continue;
      }
      let any = false;
      const byName = new Map<string | undefined, string[]>();
      for (const p of b.presses.values()) {
        const list = byName.get(p.name) ?? [];
        if (!list.includes(p.press)) list.push(p.press);
        byName.set(p.name, list);
      }
      for (const [name, actions] of byName) {
        const cap: CapabilityObject = {
          capability: name === undefined ? 'press' : 'multi-press',
          permission: '0100',
          ...(name === undefined ? {} : { name }),
          settings: { actions: { permission: '01', type: 'enum', values: actions } },
        };
        const valid = validateCapabilities([cap]);
        if (!valid.ok || taken.has(key(cap.capability, cap.name))) continue;
        taken.add(key(cap.capability, cap.name));
        caps.push(cap);
        any = true;
      }
      if (any) {
        bindings.push(b);
        mappedCount++;
      } else unmapped.push(`${property} (no press actions)`);
      continue;
    }
    let done = false;
    let reason = 'no mapping';
    for (const row of mappingTable) {
      if (!rowMatches(row, leaf)) continue;
      const hasEndpoint = leaf.endpoint !== undefined && row.channel !== undefined;
      let capability = hasEndpoint ? (row.channel as string) : row.capability;
      let name = hasEndpoint ? channels.get(leaf.endpoint as string) : row.name;
      let channel = hasEndpoint;
      if (!hasEndpoint && taken.has(key(capability, name)) && row.fallbackToChannel && row.channel) {
        capability = row.channel;
        name = leaf.endpoint !== undefined ? channels.get(leaf.endpoint) : channelName(leaf.parent || property);
        channel = true;
      }
      if (!name && capabilityDef(capability)?.naming.kind !== 'none') {
        reason = `${capability} needs a name`;
        continue;
      }
      const conv = (channel && row.channelConv) || row.conv;
      if (conv.kind === 'enum' && enumValues(conv, e).length === 0) {
        reason = 'no mapped values';
        continue;
      }
      const access = e.access ?? ACCESS_STATE;
      const settings = settingsFor(row, conv, e);
      const cap: CapabilityObject = {
        capability,
        permission: row.control && access & ACCESS_SET ? row.control : row.report,
        ...(name !== undefined ? { name } : {}),
        ...(settings ? { settings } : {}),
      };
      const b: Binding = {
        capability,
        ...(name !== undefined ? { name } : {}),
        field: (channel && row.channelField) || row.field,
        conv,
        property,
        ...(leaf.endpoint !== undefined ? { endpoint: leaf.endpoint } : {}),
        access,
        expose: e,
        row,
      };
      if (add(cap, b)) {
        done = true;
        break;
      }
      // A second form of the same property (colour as x/y and as hue/saturation) is covered already.
      if (bindings.some((o) => o.property === property && o.capability === capability && o.name === name)) {
        done = true;
        break;
      }
      reason = `${capability}${name ? ` ${name}` : ''} already mapped`;
    }
    if (done) mappedCount++;
    else if (!unmapped.some((u) => u.startsWith(`${property} (`))) unmapped.push(`${property} (${reason})`);
  }

  if (opts.addLqi && !taken.has(key('lqi'))) {
    const row = mappingTable.find((r) => r.feature === 'linkquality') as MappingRow;
    const expose: Expose = { type: 'numeric', name: 'linkquality', property: 'linkquality', access: ACCESS_STATE };
    taken.add(key('lqi'));
    caps.push({ capability: 'lqi', permission: row.report });
    bindings.push({ capability: 'lqi', field: 'lqi', conv: row.conv, property: 'linkquality', access: 1, expose, row });
  }

  const byProperty = new Map<string, Binding[]>();
  const byCapability = new Map<string, Binding>();
  for (const b of bindings) {
    const list = byProperty.get(b.property) ?? [];
    list.push(b);
    byProperty.set(b.property, list);
    if (!b.presses) byCapability.set(key(b.capability, b.name), b);
  }
  const channelLabels: Record<string, string> = {};
  const channelAliases: Record<string, string> = {};
  for (const b of bindings) {
    if (b.endpoint === undefined || b.name === undefined || b.name !== channels.get(b.endpoint)) continue;
    channelLabels[b.name] = b.endpoint;
  }
  const used = new Set(Object.keys(channelLabels));
  for (const [n, endpoint] of Object.entries(channelLabels)) {
    // `left` and `l1` (and `1` for `l1` when numbering kept it) name the channel as before numbering;
    // an alias that is another channel's number would be ambiguous and is left out.
    for (const alias of [endpoint, channelName(endpoint)])
      if (alias !== n && !used.has(alias)) channelAliases[alias] = n;
  }
  return {
    capabilities: caps,
    channelLabels,
    channelAliases,
    display_category: displayCategory(exposes, caps, opts.description ?? ''),
    bindings,
    byProperty,
    byCapability,
    unmapped,
    featureCount: leaves.length,
    mappedCount,
  };
}

function displayCategory(exposes: readonly Expose[], caps: CapabilityObject[], description: string): string {
  const tokens = new Set<string>();
  for (const e of exposes) if (Array.isArray(e.features) && e.type !== 'composite') tokens.add(`parent:${e.type}`);
  for (const c of caps) {
    tokens.add(`cap:${c.capability}`);
    if (c.name) tokens.add(`cap:${c.capability}/${c.name}`);
  }
  if (PLUG_WORDS.test(description)) tokens.add('plug');
  for (const rule of CATEGORY_RULES) if (rule.all.every((t) => tokens.has(t))) return rule.category;
  return 'sensor';
}

// ---- Zigbee2MQTT -> API ----

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
const same = (a: unknown, b: unknown) => a === b || (typeof a === 'string' && lower(a) === lower(b));

function scaleRange(b: Binding): [number, number] {
  const conv = b.conv as Extract<Conversion, { kind: 'scale' }>;
  return conv.from ? [conv.from[0], conv.from[1]] : [b.expose.value_min as number, b.expose.value_max as number];
}

/** Converts one Zigbee2MQTT value to the API value of its binding; undefined when it does not map. */
export function toApiValue(b: Binding, z: unknown, payload: Record<string, unknown> = {}): unknown {
  const c = b.conv;
  const e = b.expose;
  switch (c.kind) {
    case 'onoff':
      if (same(z, e.value_on ?? 'ON')) return 'on';
      if (same(z, e.value_off ?? 'OFF')) return 'off';
      return undefined;
    case 'bool':
    case 'boolWord': {
      let v: boolean | undefined;
      if (c.kind === 'bool' && c.raw) v = typeof z === 'boolean' ? z : undefined;
      else if (same(z, e.value_on ?? true)) v = true;
      else if (same(z, e.value_off ?? false)) v = false;
      if (v === undefined) return undefined;
      if (c.kind === 'boolWord') return v ? c.whenTrue : c.whenFalse;
      return c.invert ? !v : v;
    }
    case 'enum':
      return typeof z === 'string' ? own(c.map, z) : undefined;
    case 'scale': {
      if (!isNum(z)) return undefined;
      const [f0, f1] = scaleRange(b);
      let t = (z - f0) / (f1 - f0);
      t = Math.max(0, Math.min(1, c.invert ? 1 - t : t));
      return Math.round(c.to[0] + t * (c.to[1] - c.to[0]));
    }
    case 'number': {
      if (!isNum(z)) return undefined;
      let v = z * (c.factor ?? 1);
      v = c.int ? Math.round(v) : Math.round(v * 100) / 100;
      if (c.min !== undefined) v = Math.max(c.min, v);
      if (c.max !== undefined) v = Math.min(c.max, v);
      return v;
    }
    case 'color': {
      if (!z || typeof z !== 'object') return undefined;
      const o = z as Record<string, unknown>;
      const hs = isNum(o.hue) && isNum(o.saturation);
      const xy = isNum(o.x) && isNum(o.y);
      if (hs && (!xy || payload.color_mode === 'hs')) return hsToRgb(o.hue as number, o.saturation as number);
      if (xy) return xyToRgb(o.x as number, o.y as number);
      return undefined;
    }
    case 'command':
      return undefined;
  }
}

function put(state: Record<string, unknown>, b: Binding, name: string | undefined, body: Record<string, unknown>) {
  const capability = name !== undefined && b.presses ? 'multi-press' : b.capability;
  const n = b.presses ? name : b.name;
  if (n === undefined) {
    state[capability] = { ...(state[capability] as object | undefined), ...body };
  } else {
    const level = (state[capability] ?? {}) as Record<string, unknown>;
    level[n] = { ...(level[n] as object | undefined), ...body };
    state[capability] = level;
  }
}

/** A Zigbee2MQTT state message as an API state report (only the mapped properties it carries). */
export function toApiState(m: DeviceMapping, payload: Record<string, unknown>): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const prop in payload) {
    const list = m.byProperty.get(prop);
    if (!list) continue;
    const z = payload[prop];
    for (const b of list) {
      if (b.presses) {
        const p = typeof z === 'string' ? b.presses.get(z) : undefined;
        if (p) put(state, b, p.name, { press: p.press });
        continue;
      }
      const a = toApiValue(b, z, payload);
      if (a === undefined) continue;
      const body = b.field === '*' ? (a as Record<string, unknown>) : { [b.field]: a };
      const constant = b.row?.constant;
      put(state, b, undefined, constant ? { ...constant, ...body } : body);
    }
  }
  return state;
}

// ---- API -> Zigbee2MQTT ----

/** What a `/set` must see republished to count as done: the property, and its value unless any value will do. */
export interface Expectation {
  property: string;
  value?: unknown;
  tolerance: number;
}

export type SetPlan =
  | { ok: true; payload: Record<string, unknown>; expect: Expectation[] }
  | { ok: false; message: string };

/** Converts one API value to the Zigbee2MQTT value of its binding; undefined when it does not map. */
export function toZ2mValue(b: Binding, a: unknown): unknown {
  const c = b.conv;
  const e = b.expose;
  switch (c.kind) {
    case 'onoff':
      if (a === 'on') return e.value_on ?? 'ON';
      if (a === 'off') return e.value_off ?? 'OFF';
      if (a === 'toggle') return e.value_toggle ?? 'TOGGLE';
      return undefined;
    case 'bool': {
      if (typeof a !== 'boolean') return undefined;
      const v = c.invert ? !a : a;
      if (c.raw) return v;
      return v ? (e.value_on ?? true) : (e.value_off ?? false);
    }
    case 'boolWord':
      if (a === c.whenTrue) return e.value_on ?? true;
      if (a === c.whenFalse) return e.value_off ?? false;
      return undefined;
    case 'enum':
      return (e.values ?? []).find((v) => c.map[v] === a);
    case 'scale': {
      if (!isNum(a)) return undefined;
      const [f0, f1] = scaleRange(b);
      let t = (a - c.to[0]) / (c.to[1] - c.to[0]);
      if (c.invert) t = 1 - t;
      return Math.round(f0 + Math.max(0, Math.min(1, t)) * (f1 - f0));
    }
    case 'number':
      return isNum(a) ? a / (c.factor ?? 1) : undefined;
    case 'color': {
      const rgb = a as Partial<Rgb>;
      if (!rgb || !isNum(rgb.red) || !isNum(rgb.green) || !isNum(rgb.blue)) return undefined;
      return { r: Math.round(rgb.red), g: Math.round(rgb.green), b: Math.round(rgb.blue) };
    }
    case 'command':
      return e.values?.[0] ?? true;
  }
}

function expectation(b: Binding, z: unknown, a: unknown): Expectation | undefined {
  const c = b.conv;
  if (b.row?.confirm === 'none') return undefined;
  if (b.row?.confirm !== 'equal' || (c.kind === 'onoff' && a === 'toggle') || typeof z === 'object')
    return { property: b.property, tolerance: 0 };
  const step = isNum(b.expose.value_step) ? b.expose.value_step / 2 : 0;
  return { property: b.property, value: z, tolerance: c.kind === 'scale' ? 1 : Math.max(0.01, step) };
}

/** Plans the `/set` payload of an API control command (already validated by the catalog). */
export function planSet(m: DeviceMapping, state: Record<string, unknown>): SetPlan {
  const payload: Record<string, unknown> = {};
  const expect: Expectation[] = [];
  /** The endpoint of each expectation, and the endpoints this command switches off. */
  const endpointOf = new Map<Expectation, string | undefined>();
  const switchedOff = new Set<string | undefined>();
  const push = (b: Binding, x: Expectation | undefined) => {
    if (!x) return;
    expect.push(x);
    endpointOf.set(x, b.endpoint);
  };
  const one = (capability: string, name: string | undefined, body: unknown): string | undefined => {
    const label = name === undefined ? capability : `${capability}.${name}`;
    const b = m.byCapability.get(key(capability, name));
    if (!b) return `${label}: the device has no such capability`;
    if (!(b.access & ACCESS_SET)) return `${label}: cannot be set on this device`;
    if (!body || typeof body !== 'object') return `${label}: expected an object`;
    const o = body as Record<string, unknown>;
    if (b.field === '*') {
      const z = toZ2mValue(b, o);
      if (z === undefined) return `${label}: cannot convert ${JSON.stringify(o)}`;
      payload[b.property] = z;
      push(b, expectation(b, z, o));
      return undefined;
    }
    if (o[b.field] !== undefined) {
      const z = toZ2mValue(b, o[b.field]);
      if (z === undefined) return `${label}.${b.field}: ${JSON.stringify(o[b.field])} is not supported by this device`;
      payload[b.property] = z;
      if (b.conv.kind === 'onoff' && o[b.field] === 'off') switchedOff.add(b.endpoint);
      push(b, expectation(b, z, o[b.field]));
      return undefined;
    }
    const delta = o[`${b.field}Delta`];
    if (isNum(delta) && b.row?.delta) {
      const prop = b.endpoint ? `${b.row.delta.property}_${b.endpoint}` : b.row.delta.property;
      payload[prop] = Math.round(delta * b.row.delta.factor);
      push(b, { property: b.property, tolerance: 0 });
      return undefined;
    }
    return `${label}: nothing to set`;
  };
  for (const capability in state) {
    const body = state[capability];
    const named = capabilityDef(capability)?.naming.kind !== 'none' && capabilityDef(capability) !== undefined;
    if (named && body && typeof body === 'object') {
      for (const name in body as Record<string, unknown>) {
        const err = one(capability, name, (body as Record<string, unknown>)[name]);
        if (err) return { ok: false, message: err };
      }
    } else {
      const err = one(capability, undefined, body);
      if (err) return { ok: false, message: err };
    }
  }
  if (Object.keys(payload).length === 0) return { ok: false, message: 'nothing to set' };
  // Switching off in the same command: Zigbee2MQTT does not apply the other values it was given
  // for that endpoint (a light turned off takes no new brightness), so the off state is what
  // confirms the command.
  const confirmed = expect.filter((x) => !switchedOff.has(endpointOf.get(x)) || isOnOffProperty(m, x.property));
  return { ok: true, payload, expect: confirmed };
}

function isOnOffProperty(m: DeviceMapping, property: string): boolean {
  return m.bindings.some((b) => b.property === property && b.conv.kind === 'onoff');
}

/** Whether a republished value meets an expectation. */
export function meets(x: Expectation, z: unknown): boolean {
  if (z === undefined) return false;
  if (!('value' in x)) return true;
  if (isNum(x.value) && isNum(z)) return Math.abs(x.value - z) <= x.tolerance + 1e-9;
  return same(z, x.value);
}

/** The `/get` payload of a D6 query of one capability: its readable properties. */
export function planGet(
  m: DeviceMapping,
  capability: string,
): { payload: Record<string, string>; properties: string[] } {
  const payload: Record<string, string> = {};
  for (const b of m.bindings) {
    if (b.capability !== capability || !(b.access & ACCESS_GET)) continue;
    payload[b.property] = '';
  }
  return { payload, properties: Object.keys(payload) };
}

/** The bindings of one capability (for reading its current value out of the last state). */
export function propertiesOf(m: DeviceMapping, capability: string): string[] {
  return m.bindings
    .filter((b) => b.capability === capability || (b.presses && capability === 'multi-press'))
    .map((b) => b.property);
}
