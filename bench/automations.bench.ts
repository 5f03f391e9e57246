/**
 * The automation engine's cost per device state change (issue 26), against the same state
 * changes with the engine stopped, in this run, on a gateway with 1,000 devices and 500
 * automations (each triggered by one device's brightness, with a condition):
 * - a change that sets off no trigger (the common case: a sensor's reading, a light dimmed within
 *   its range): the added time of the event's delivery (target: added p99 under 1 ms);
 * - a change that starts a run (the trigger crosses its threshold, the condition holds, the run
 *   notifies): the added time, the run journalled and its trace kept in the store.
 * The time measured is that of publishing the state event on the gateway's bus, which calls every
 * listener (the engine among them) before it returns; the registry's own commit of the state, the
 * same with or without automations (about a millisecond: an fsync), is left out of both.
 * Run: npm run bench -- automations
 */
import { systemClock } from '../src/lib/clock.ts';
import { engineOn } from '../test/automations/engine-on.ts';
import { percentile, report, startBenchGateway } from './lib.ts';

const DEVICES = 1000;
const AUTOMATIONS = 500;
const ROUNDS = 6;
const PER_ROUND = 400;

const gw = await startBenchGateway();
const g = gw.gateway;
const registry = g.devices.registry;
const serials: string[] = [];
for (let i = 0; i < DEVICES; i++) {
  serials.push(
    registry.deviceFound('bench', {
      driver_ref: `bench-${i}`,
      name: `Bench light ${i}`,
      manufacturer: 'bench',
      model: 'bench',
      firmware_version: '1.0.0',
      display_category: 'light',
      capabilities: [
        { capability: 'power', permission: '1100' },
        { capability: 'brightness', permission: '1100' },
      ],
      state: { power: { powerState: 'off' }, brightness: { brightness: 10 } },
    }).serial_number,
  );
}
const engine = engineOn(g, systemClock);
for (let i = 0; i < AUTOMATIONS; i++) {
  const r = engine.save({
    kind: 'automation',
    name: `Bright ${i}`,
    mode: 'parallel',
    triggers: [{ type: 'state', device: serials[i], capability: 'brightness', above: 80 }],
    conditions: [{ type: 'state', device: serials[(i + 1) % DEVICES], capability: 'power', equals: 'off' }],
    actions: [{ type: 'notify', message: `bright ${i}` }],
  });
  if (!r.ok) throw new Error(r.errors.join('; '));
}

/** A brightness report of a device as the registry publishes it. */
function publish(serial: string, brightness: number): void {
  g.bus.publish('device#updateDeviceState', {
    endpoint: { serial_number: serial },
    payload: { brightness: { brightness } },
  });
}

/** The brightness each device reports next (each report a change: 10, 11, 10, ...). */
const level = new Map<string, number>();
let next = 0;
/** Times `n` state changes of devices named by triggers; `cross`: each crosses its threshold (and back, untimed). */
function changes(n: number, cross: boolean): number[] {
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const serial = serials[(next++ * 7) % AUTOMATIONS] as string;
    const v = level.get(serial) === 11 ? 10 : 11;
    level.set(serial, v);
    const t = performance.now();
    publish(serial, cross ? 90 : v);
    out.push(performance.now() - t);
    if (cross) publish(serial, v);
  }
  return out;
}

const quiet = { with: [] as number[], without: [] as number[] };
const runs = { with: [] as number[], without: [] as number[] };
changes(200, false);
for (let round = 0; round < ROUNDS; round++) {
  // Alternating, so that drift of the machine (other work, the store's WAL) falls on both alike.
  engine.start();
  quiet.with.push(...changes(PER_ROUND, false));
  runs.with.push(...changes(PER_ROUND / 8, true));
  engine.stop();
  quiet.without.push(...changes(PER_ROUND, false));
  runs.without.push(...changes(PER_ROUND / 8, true));
  // Let the started runs end (their notify and trace) before the next round.
  await new Promise((r) => setTimeout(r, 50));
}

for (const [name, m] of [
  ['a state change that sets off nothing', quiet],
  ['a state change that starts a run', runs],
] as const) {
  const p = (list: number[], q: number) => percentile(list, q);
  report(
    `automations, 500 automations and 1,000 devices: ${name}`,
    p(m.with, 50) / p(m.without, 50),
    {
      added_p50_ms: p(m.with, 50) - p(m.without, 50),
      added_p99_ms: p(m.with, 99) - p(m.without, 99),
      p50_ms: p(m.with, 50),
      p99_ms: p(m.with, 99),
      baseline_p50_ms: p(m.without, 50),
      baseline_p99_ms: p(m.without, 99),
      samples: m.with.length,
    },
    name.includes('nothing') ? 'added p99 < 1 ms' : undefined,
  );
}
engine.stop();
await gw.stop();
