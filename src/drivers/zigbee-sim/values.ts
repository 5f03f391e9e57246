/**
 * Plausible values for simulated devices: the initial state of each exposed property and how
 * sensor readings drift over time. Keyed by expose feature name.
 */

import { ACCESS_SET, ACCESS_STATE, type Expose } from '../../zigbee/exposes.ts';
import { exposeLeaves } from '../../zigbee/mapping.ts';

/** Typical reading and drift (one step at most) of numeric sensors; readings stay in [min, max]. */
const SENSORS: Record<string, { start: number; step: number; min: number; max: number; decimals: number }> = {
  temperature: { start: 21.5, step: 0.3, min: 15, max: 30, decimals: 1 },
  local_temperature: { start: 20.5, step: 0.2, min: 15, max: 28, decimals: 1 },
  device_temperature: { start: 29, step: 1, min: 20, max: 45, decimals: 0 },
  humidity: { start: 46, step: 1.5, min: 25, max: 80, decimals: 1 },
  pressure: { start: 1013, step: 0.6, min: 980, max: 1040, decimals: 1 },
  illuminance: { start: 320, step: 60, min: 0, max: 2000, decimals: 0 },
  illuminance_lux: { start: 320, step: 60, min: 0, max: 2000, decimals: 0 },
  co2: { start: 540, step: 40, min: 400, max: 2000, decimals: 0 },
  pm25: { start: 7, step: 2, min: 0, max: 120, decimals: 0 },
  voc_index: { start: 105, step: 12, min: 1, max: 500, decimals: 0 },
  power: { start: 42.5, step: 6, min: 0.5, max: 2200, decimals: 1 },
  current: { start: 0.19, step: 0.03, min: 0.01, max: 10, decimals: 2 },
  voltage: { start: 231, step: 1.5, min: 215, max: 245, decimals: 1 },
  energy: { start: 3.47, step: 0.01, min: 0, max: 1e6, decimals: 2 },
  battery: { start: 87, step: 1, min: 1, max: 100, decimals: 0 },
  linkquality: { start: 132, step: 12, min: 10, max: 255, decimals: 0 },
  soil_moisture: { start: 38, step: 2, min: 0, max: 100, decimals: 0 },
};

/**
 * Binary sensors that flip now and then on their own: the household inside, moving about. Never
 * smoke, gas or a water leak: those sound the alarm in every mode, armed or not (docs/security.md),
 * and a simulated network on a developer's laptop must not ring a siren on its own. Nor a door or
 * window, nor a tamper: those are what Home and Sleep mode watch by default, and a demo armed in
 * Home mode that rings by itself teaches that the alarm cannot be trusted. Arming Away mode (which
 * watches motion too) in the demo shows the alarm going off.
 */
const EVENTS = new Set(['occupancy', 'presence', 'vibration']);

export interface SimProperty {
  property: string;
  expose: Expose;
  parent: string;
}

/** The properties of a device: what it publishes and what can be set. */
export function simProperties(exposes: Expose[]): SimProperty[] {
  return exposeLeaves(exposes)
    .filter((l) => l.expose.property)
    .map((l) => ({ property: l.expose.property as string, expose: l.expose, parent: l.parent }));
}

const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;

/** The state a freshly joined device publishes. */
export function initialState(props: SimProperty[], rand: () => number): Record<string, unknown> {
  const s: Record<string, unknown> = {};
  for (const { property, expose: e } of props) {
    const access = e.access ?? ACCESS_STATE;
    if (!(access & ACCESS_STATE)) continue;
    const name = e.name ?? property;
    if (e.type === 'binary') {
      // Z2M's contact is true when closed: a door at rest is closed.
      s[property] = name === 'contact' ? true : (e.value_off ?? false);
    } else if (e.type === 'numeric') {
      const sensor = SENSORS[name];
      if (sensor) s[property] = round(sensor.start + (rand() - 0.5) * sensor.step * 4, sensor.decimals);
      else if (name === 'brightness') s[property] = 180;
      else if (name === 'position') s[property] = 100;
      else if (/setpoint/.test(name)) s[property] = 21;
      else if (typeof e.value_min === 'number' && typeof e.value_max === 'number')
        s[property] = round((e.value_min + e.value_max) / 2, 0);
      else s[property] = 0;
    } else if (e.type === 'enum') {
      if (name === 'action' || !e.values?.length) continue;
      const prefer = ['heat', 'previous', 'OPEN', 'low'].find((v) => e.values?.includes(v));
      s[property] = prefer ?? e.values[0];
    } else if (e.type === 'composite' && (e.name === 'color_xy' || e.name === 'color_hs')) {
      s.color = {
        ...(s.color as object | undefined),
        ...(e.name === 'color_xy' ? { x: 0.4573, y: 0.41 } : { hue: 30, saturation: 62 }),
      };
      s.color_mode = 'xy';
    }
  }
  if (s.linkquality === undefined) s.linkquality = 120 + Math.round(rand() * 60);
  return s;
}

/**
 * What a simulated device keeps between drift steps beside its published state: the level each
 * reading settles around (its own, from its first value), a plug's load, a meter's exact count
 * (Zigbee2MQTT publishes energy with two decimals: a small load would never move a rounded count),
 * and when it last drifted.
 */
export type SimMemory = Record<string, number>;

export interface DriftContext {
  /** Epoch ms of this step (the time of day shapes temperatures, light, presence). */
  now?: number;
  memory?: SimMemory;
}

const HOUR_MS = 3_600_000;

/** Hour of the day (0..24, fractional) on the host's clock: a simulated home follows its owner's day. */
function hourOf(now: number): number {
  const d = new Date(now);
  return d.getHours() + d.getMinutes() / 60;
}

/** 1 at the warmest hour of the day (15:00), -1 at the coldest (03:00). */
const warmth = (hour: number) => Math.cos(((hour - 15) / 24) * 2 * Math.PI);
/** Daylight: 0 at night, 1 at noon. */
const daylight = (hour: number) => Math.max(0, Math.sin(((hour - 6) / 12) * Math.PI));
/** People at home and awake: mornings and evenings most. */
const activity = (hour: number) => (hour < 6.5 ? 0.05 : hour < 9 ? 0.8 : hour < 17 ? 0.35 : hour < 23 ? 0.9 : 0.2);

/**
 * Where a reading heads at this hour, around its own `base`: temperatures follow the day, humidity
 * the other way, light the sun, CO2 the people at home; undefined: a plain random walk.
 */
function target(name: string, base: number, hour: number): number | undefined {
  switch (name) {
    case 'temperature':
    case 'local_temperature':
      return base + 1.5 * warmth(hour);
    case 'device_temperature':
      return base + 1 * warmth(hour);
    case 'humidity':
      return base - 6 * warmth(hour);
    case 'illuminance':
    case 'illuminance_lux':
      return 2 + base * 2 * daylight(hour);
    case 'co2':
      return base + 450 * activity(hour);
    case 'voltage':
      return base;
    default:
      return undefined;
  }
}

/** A plug's load when on (W): its first reading, else something between a lamp and a fridge. */
function loadOf(memory: SimMemory, state: Record<string, unknown>, rand: () => number): number {
  if (memory.load === undefined)
    memory.load = typeof state.power === 'number' && state.power > 0 ? state.power : round(20 + rand() * 100, 1);
  return memory.load;
}

/** The metering a switch turned on starts reporting at once (a real plug reports its load within seconds). */
export function switchedOn(
  state: Record<string, unknown>,
  memory: SimMemory,
  rand: () => number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof state.power !== 'number') return out;
  out.power = loadOf(memory, state, rand);
  if (typeof state.current === 'number')
    out.current = round((out.power as number) / (typeof state.voltage === 'number' ? state.voltage : 230), 2);
  return out;
}

/**
 * One drift step of a device's sensors; returns the changed properties (empty: nothing to report).
 * Readings move toward where the time of day puts them, with noise; a plug's power follows its
 * switch and its load; its energy counts that power over the time since the last step; batteries
 * only ever run down.
 */
export function drift(
  props: SimProperty[],
  state: Record<string, unknown>,
  rand: () => number,
  ctx: DriftContext = {},
): Record<string, unknown> {
  const now = ctx.now ?? Date.now();
  const memory = ctx.memory ?? {};
  const elapsed = memory.at === undefined ? 0 : Math.max(0, now - memory.at);
  memory.at = now;
  const hour = hourOf(now);
  const out: Record<string, unknown> = {};
  for (const { property, expose: e } of props) {
    const access = e.access ?? ACCESS_STATE;
    if (!(access & ACCESS_STATE) || access & ACCESS_SET) continue;
    const name = e.name ?? property;
    const sensor = SENSORS[name];
    const current = state[property];
    if (e.type === 'numeric' && sensor && typeof current === 'number') {
      let next: number;
      if (name === 'battery') {
        // About 1% every three days of running.
        if (rand() >= elapsed / (3 * 24 * HOUR_MS)) continue;
        next = Math.max(sensor.min, current - 1);
      } else if (name === 'power' || name === 'current') {
        // Metering of a switched-off device stays at rest; on, it hovers around the load.
        if (isOff(state)) {
          if (current !== 0) out[property] = 0;
          continue;
        }
        const load = loadOf(memory, state, rand);
        const volts = typeof state.voltage === 'number' ? state.voltage : 230;
        const watts = load * (1 + (rand() - 0.5) * 0.06);
        next = name === 'power' ? watts : watts / volts;
      } else if (name === 'energy') {
        const watts = isOff(state) ? 0 : typeof state.power === 'number' ? state.power : loadOf(memory, state, rand);
        memory.energy = (memory.energy ?? current) + (watts * elapsed) / (1000 * HOUR_MS);
        next = memory.energy;
      } else {
        const baseKey = `base:${property}`;
        memory[baseKey] ??= current;
        const goal = target(name, memory[baseKey] as number, hour);
        const noise = (rand() - 0.5) * 2 * sensor.step;
        next = goal === undefined ? current + noise : current + (goal - current) * 0.2 + noise * 0.4;
      }
      next = round(Math.max(sensor.min, Math.min(sensor.max, next)), sensor.decimals);
      if (next !== current) out[property] = next;
    } else if (e.type === 'binary' && EVENTS.has(name)) {
      const busy = activity(hour);
      const chance = name === 'occupancy' || name === 'presence' ? 0.05 + 0.4 * busy : 0.08 * busy;
      if (rand() < chance)
        out[property] = current === (e.value_on ?? true) ? (e.value_off ?? false) : (e.value_on ?? true);
    }
  }
  if (Object.keys(out).length > 0 && typeof state.linkquality === 'number')
    out.linkquality = Math.max(10, Math.min(255, (state.linkquality as number) + Math.round((rand() - 0.5) * 10)));
  return out;
}

function isOff(state: Record<string, unknown>): boolean {
  return (
    state.state === 'OFF' ||
    (state.state === undefined && Object.keys(state).some((k) => k.startsWith('state_') && state[k] === 'OFF'))
  );
}

/** A small deterministic random source (mulberry32), so a seeded network looks the same each run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
