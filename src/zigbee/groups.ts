/**
 * Zigbee groups as every Zigbee driver shows them: what the members share becomes the group's own
 * exposes (so one mapping, the same as a device's, turns it into capabilities and turns a command
 * into the one payload a group takes), and the group's state follows its members' states.
 *
 * What a group can do is what one group command reaches on every member: the on/off, level and
 * colour of lights, the on/off of switches (a light and a switch share on/off only), and covers.
 * These are the properties Zigbee2MQTT keeps for groups (`state`, `brightness`, `color_temp`,
 * `color`) plus covers. The state rule is Zigbee2MQTT's default (`off_state: all_members_off`):
 * on (or open) when any member is; the other properties are those of the first member that is on
 * (of the first member when none is), a choice that keeps a group's brightness the one you see.
 */
import type { Expose } from './exposes.ts';
import { type DeviceMapping, exposeLeaves, mapExposes } from './mapping.ts';

/** One member of a group as the group sees it: its device's exposes, and the endpoint in the group. */
export interface GroupMemberExposes {
  exposes: readonly Expose[];
  /** The endpoint's name in the exposes (`l1`, `left`); undefined for a device whose exposes name none. */
  endpoint?: string;
}

/** The features a group keeps of each groupable type. */
const GROUP_FEATURES: Readonly<Record<string, readonly string[]>> = {
  light: ['state', 'brightness', 'color_temp', 'color_xy', 'color_hs'],
  switch: ['state'],
  cover: ['state', 'position'],
};

/** The groupable exposes of one member: its light, switch or cover on that endpoint, features without endpoint. */
export function memberExposes(m: GroupMemberExposes): Expose[] {
  const named = m.exposes.some((e) => e.endpoint !== undefined && e.type in GROUP_FEATURES);
  const out: Expose[] = [];
  for (const e of m.exposes) {
    if (!(e.type in GROUP_FEATURES) || !Array.isArray(e.features)) continue;
    // A device that names its endpoints: only the member's; one that does not: the device's.
    if (named ? e.endpoint !== m.endpoint : e.endpoint !== undefined) continue;
    const keep = GROUP_FEATURES[e.type] as readonly string[];
    const features = e.features
      .filter((f) => typeof f === 'object' && f !== null && keep.includes(f.name ?? ''))
      .map((f) => withoutEndpoint(f));
    if (features.length > 0) out.push({ type: e.type, features });
  }
  return out;
}

function withoutEndpoint(f: Expose): Expose {
  const { endpoint: _e, ...rest } = f;
  // `state_l1` is `state` in a group; a colour composite keeps its property (`color`).
  const property = f.type === 'composite' ? (f.property ?? 'color') : (f.name ?? f.property);
  const features = Array.isArray(f.features) ? f.features.map(withoutEndpoint) : undefined;
  return { ...rest, property, ...(features ? { features } : {}) };
}

/** The exposes every member shares (empty when they share nothing, or there is no member). */
export function groupExposes(members: readonly GroupMemberExposes[]): Expose[] {
  if (members.length === 0) return [];
  const each = members.map(memberExposes);
  const of = (list: Expose[], type: string) => list.find((e) => e.type === type);
  if (each.every((l) => of(l, 'light'))) return [shared(each.map((l) => of(l, 'light') as Expose))];
  if (each.every((l) => of(l, 'cover'))) return [shared(each.map((l) => of(l, 'cover') as Expose))];
  if (each.every((l) => of(l, 'light') ?? of(l, 'switch'))) {
    const state = (of(each[0] as Expose[], 'light') ?? of(each[0] as Expose[], 'switch')) as Expose;
    const feature = state.features?.find((f) => f.name === 'state');
    if (feature) return [{ type: 'switch', features: [feature] }];
  }
  return [];
}

/** The features of one type present in every member's expose; numeric ranges narrowed to what all take. */
function shared(exposes: Expose[]): Expose {
  const first = exposes[0] as Expose;
  const features: Expose[] = [];
  for (const f of first.features ?? []) {
    const all = exposes.map((e) => e.features?.find((g) => g.name === f.name));
    if (all.some((g) => g === undefined)) continue;
    const found = all as Expose[];
    if (f.type === 'numeric') {
      const mins = found.map((g) => g.value_min).filter((v): v is number => typeof v === 'number');
      const maxs = found.map((g) => g.value_max).filter((v): v is number => typeof v === 'number');
      features.push({
        ...f,
        ...(mins.length > 0 ? { value_min: Math.max(...mins) } : {}),
        ...(maxs.length > 0 ? { value_max: Math.min(...maxs) } : {}),
      });
    } else features.push(f);
  }
  return { type: first.type, features };
}

/** A group's mapping: the capabilities of what its members share, and how a command becomes its payload. */
export function groupMapping(members: readonly GroupMemberExposes[]): { exposes: Expose[]; mapping: DeviceMapping } {
  const exposes = groupExposes(members);
  return { exposes, mapping: mapExposes(exposes, { description: 'group' }) };
}

/** The properties of one member's state (Zigbee2MQTT's form) that matter to the group, suffix removed. */
function memberState(state: Readonly<Record<string, unknown>>, endpoint?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of ['state', 'brightness', 'color_temp', 'color', 'position']) {
    const v =
      endpoint !== undefined && state[`${name}_${endpoint}`] !== undefined ? state[`${name}_${endpoint}`] : state[name];
    if (v !== undefined) out[name] = v;
  }
  return out;
}

const isOn = (v: unknown) => typeof v === 'string' && /^(on|open)$/i.test(v);

/**
 * The group's state (Zigbee2MQTT's form) from its members' (each in Zigbee2MQTT's form, with its
 * endpoint's suffixes): `state` on (or open) when any member is, the other properties those of the
 * first member that is on, else of the first member; only properties the group has.
 */
export function groupState(
  exposes: readonly Expose[],
  members: readonly { state: Readonly<Record<string, unknown>>; endpoint?: string }[],
): Record<string, unknown> {
  const properties = new Set(exposeLeaves(exposes).map((l) => l.expose.property ?? l.expose.name ?? ''));
  const states = members.map((m) => memberState(m.state, m.endpoint)).filter((s) => Object.keys(s).length > 0);
  if (states.length === 0) return {};
  const lead = states.find((s) => isOn(s.state)) ?? (states[0] as Record<string, unknown>);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(lead)) if (properties.has(k)) out[k] = v;
  const known = states.filter((s) => typeof s.state === 'string');
  if (properties.has('state') && known.length > 0)
    out.state = known.some((s) => isOn(s.state)) ? lead.state : known[0]?.state;
  return out;
}
