/**
 * Days of plausible history for the devices a data folder already holds (the simulated network's,
 * after a first start), recorded through the real path: a gateway on that folder with no Zigbee
 * network and a clock moved by hand, its registry reporting each device's state varied around the
 * one it has (numbers through the day, switches and doors now and then, presses), so a console test
 * opens charts with days in them. The gateway is stopped when this resolves.
 */
import { ManualClock } from './clock.ts';
import { startGateway } from './foundation.ts';

const MIN = 60_000;

/** A pseudo-random number in [0, 1) from a seed (the same history every run). */
function rnd(seed: number): number {
  const x = Math.sin(seed * 12.9898) * 43758.5453;
  return x - Math.floor(x);
}

/** The state `s` with its numbers varied for time `t` (hours since the start) and its flags flipped now and then. */
function vary(s: unknown, key: string, t: number, total: number, salt: number, phase = salt): unknown {
  if (typeof s === 'number') {
    if (key === 'battery') return Math.max(5, Math.round(s - t / 48));
    // A meter only counts up, more by day, to the count it has now (where the network goes on from).
    if (key === 'rlSummarize') {
      const w = (2 * Math.PI) / 24;
      const rate = (0.9 * s) / total;
      return Math.round((0.1 * s + rate * t + (rate / (2 * w)) * (1 - Math.cos(w * t))) * 100) / 100;
    }
    if (key === 'electricPower')
      return Math.sin((t / 24) * 2 * Math.PI * 3 + phase) > 0.4 ? Math.round(s + 150_000) : 0;
    const day = Math.sin(((t % 24) / 24) * 2 * Math.PI - Math.PI / 2);
    const v = s * (1 + 0.08 * day) + (rnd(t * 7 + salt) - 0.5) * Math.max(0.5, Math.abs(s) * 0.02);
    return Number.isInteger(s) ? Math.round(v) : Math.round(v * 10) / 10;
  }
  // A plug is on while it draws power.
  if (key === 'powerState' || key === 'toggleState')
    return Math.sin((t / 24) * 2 * Math.PI * 3 + phase) > 0.4 ? 'on' : 'off';
  if (typeof s === 'boolean') return rnd(Math.floor(t * 2) + salt) > 0.7;
  if (s && typeof s === 'object' && !Array.isArray(s)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) out[k] = vary(v, k, t, total, salt + k.length, phase);
    return out;
  }
  return s;
}

/** Records `days` of history, a report every `everyMin` minutes, ending now. */
export async function seedHistory(dataDir: string, days: number, everyMin = 10): Promise<void> {
  const end = Date.now();
  const clock = new ManualClock(end - days * 24 * 60 * MIN);
  const gw = await startGateway({ dataDir, gatewayOptions: { clock }, overrides: { history: { batch_seconds: 60 } } });
  try {
    const registry = gw.gateway.devices.registry;
    const history = gw.gateway.history();
    // The minutes the network's first start recorded are later than the days about to be: the
    // history only goes forward in time, so it starts afresh at the first of those days.
    await history?.clear();
    const list = registry.list();
    // No driver runs here: the devices are online for the days recorded, as the network had them.
    for (const d of list) registry.onlineChanged(d.serial_number, true);
    const start = clock.now();
    for (let step = 0; clock.now() < end - everyMin * MIN; step++) {
      const t = (clock.now() - start) / (60 * MIN);
      registry.batch(() => {
        for (const [i, d] of list.entries()) {
          const state: Record<string, unknown> = {};
          for (const [cap, body] of Object.entries(d.state)) {
            if (cap === 'press') {
              if (rnd(step + i) > 0.93) state.press = { press: rnd(step) > 0.5 ? 'singlePress' : 'doublePress' };
            } else state[cap] = vary(body, cap, t, days * 24, i * 3);
          }
          registry.stateReported(d.serial_number, state);
        }
      });
      clock.advance(everyMin * MIN);
      await history?.idle();
    }
    history?.flush();
    await history?.maintain();
  } finally {
    await gw.stop();
  }
}
