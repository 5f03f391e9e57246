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

/** One drift step of a device's sensors; returns the changed properties (empty: nothing to report). */
export function drift(
  props: SimProperty[],
  state: Record<string, unknown>,
  rand: () => number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { property, expose: e } of props) {
    const access = e.access ?? ACCESS_STATE;
    if (!(access & ACCESS_STATE) || access & ACCESS_SET) continue;
    const name = e.name ?? property;
    const sensor = SENSORS[name];
    if (e.type === 'numeric' && sensor && typeof state[property] === 'number') {
      if (name === 'battery' && rand() > 0.05) continue;
      // Metering of a switched-off device stays at rest.
      if ((name === 'power' || name === 'current') && isOff(state)) {
        if (state[property] !== 0) out[property] = 0;
        continue;
      }
      const delta = name === 'energy' ? rand() * sensor.step : (rand() - 0.5) * 2 * sensor.step;
      const next = round(
        Math.max(sensor.min, Math.min(sensor.max, (state[property] as number) + delta)),
        sensor.decimals,
      );
      if (next !== state[property]) out[property] = next;
    } else if (
      e.type === 'binary' &&
      EVENTS.has(name) &&
      rand() < (name === 'occupancy' || name === 'presence' ? 0.3 : 0.05)
    ) {
      out[property] = state[property] === (e.value_on ?? true) ? (e.value_off ?? false) : (e.value_on ?? true);
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
