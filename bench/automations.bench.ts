/**
 * Scenes and automations (issue 26), each figure against a baseline measured in the same run:
 *  1. A Zigbee sensor report to the light's `/set` publish through an automation (motion -> light
 *     on or off), against the same command sent by a client (D4 -> `/set`): p50 and p99, and what
 *     the automation adds. On the simulated Zigbee network (the Zigbee2MQTT driver's own path); the
 *     sensor's state is published on MQTT as Zigbee2MQTT publishes it, and a bare subscriber sees
 *     the `/set`. The automation's path includes its run journalled in the store before its first
 *     step (a commit), which is what makes it whole across a kill -9.
 *  2. The engine's cost per device state change on a gateway with 1,000 devices and 500 automations
 *     (each triggered by one device's brightness, with a condition), against the same state changes
 *     with the engine stopped: a change that sets off nothing (the common case: target added p99
 *     under 1 ms); one that starts a run (journalled, its trace kept); one whose trigger fires but
 *     whose condition does not hold (its trace batched in memory: no write of its own). The time
 *     measured is that of publishing the state event on the gateway's bus, which calls every
 *     listener (the engine among them) before it returns; the registry's own commit of the state,
 *     the same with or without automations, is left out of both.
 * Run: npm run bench -- automations
 */
import mqtt from 'mqtt';
import type { AutomationEngine } from '../src/automations/index.ts';
import { startSimNetwork } from '../src/drivers/zigbee-sim/index.ts';
import { percentile, report, startBenchGateway } from './lib.ts';

const p = (list: number[], q: number) => percentile(list, q);

// ---- 1. a sensor report -> the light's /set, through an automation and from a client ----

async function reportToSet(): Promise<void> {
  const BASE = 'zigbee2mqtt';
  const ROUNDS = 200;
  const net = await startSimNetwork({ baseTopics: [BASE], devices: 12, sim: { reportIntervalMs: 0 } });
  const gw = await startBenchGateway({ zigbee: { mode: 'z2m', mqtt_url: net.url, base_topics: BASE } });
  const pub = await mqtt.connectAsync(net.url, { reconnectPeriod: 0 });
  const sub = await mqtt.connectAsync(net.url, { reconnectPeriod: 0 });
  try {
    const g = gw.gateway;
    const engine = g.automations() as AutomationEngine;
    const token = g.tokens.create('bench');
    const sim = (model: string) => {
      const d = net
        .sim()
        .list()
        .find((x) => x.fixture.model === model);
      if (!d) throw new Error(`no ${model}`);
      return d;
    };
    const light = sim('LED1836G9');
    const motion = sim('RTCGQ11LM');
    const serial = async (friendly: string) => {
      for (;;) {
        const d = g.devices.registry.list().find((x) => x.name === friendly);
        if (d) return d.serial_number;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const lightSerial = await serial(light.friendly);
    const motionSerial = await serial(motion.friendly);
    /**
     * The two automations, made anew every 20 rounds (untimed): the rate guard stops an
     * automation started 30 times within 60 s, and this measures the path, not the guard.
     */
    let pair: string[] = [];
    const freshPair = () => {
      for (const id of pair) engine.remove(id);
      pair = (
        [
          [true, 'on'],
          [false, 'off'],
        ] as const
      ).map(([to, power]) => {
        const r = engine.save({
          kind: 'automation',
          name: `Motion ${to} -> light ${power}`,
          triggers: [{ type: 'state', device: motionSerial, capability: 'motion', to }],
          actions: [{ type: 'device', device: lightSerial, state: { power: { powerState: power } } }],
        });
        if (!r.ok) throw new Error(r.errors.join('; '));
        return r.definition.id;
      });
    };
    const setTopic = `${BASE}/${light.friendly}/set`;
    await sub.subscribeAsync(setTopic);
    let onSet: (() => void) | undefined;
    sub.on('message', (t) => {
      if (t === setTopic) onSet?.();
    });
    let onEnd: (() => void) | undefined;
    g.bus.subscribe((e) => {
      if (e.name === 'automation#runFinished') onEnd?.();
    });
    const seen = (t0: number) =>
      new Promise<number>((resolve) => {
        onSet = () => resolve(performance.now() - t0);
      });
    const automated: number[] = [];
    const client: number[] = [];
    for (let i = 0; i < ROUNDS + 20; i++) {
      if (i % 20 === 0) freshPair();
      // Through the automation: the sensor's report as Zigbee2MQTT publishes it.
      const ended = new Promise<void>((resolve) => {
        onEnd = resolve;
      });
      const t0 = performance.now();
      const set = seen(t0);
      pub.publish(`${BASE}/${motion.friendly}`, JSON.stringify({ occupancy: i % 2 === 0, linkquality: 100 }));
      const a = await set;
      // The run ends (the light confirmed, the trace kept) before the next measure starts.
      await ended;
      // From a client: the same command, D4.
      const t1 = performance.now();
      const direct = seen(t1);
      const res = await fetch(`${gw.url}/open-api/v2/rest/devices/${lightSerial}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ state: { power: { powerState: i % 2 === 0 ? 'on' : 'off' } } }),
      });
      const c = await direct;
      const body = (await res.json()) as { error: number };
      if (body.error !== 0) throw new Error(`D4 failed: ${JSON.stringify(body)}`);
      if (i >= 20) {
        automated.push(a);
        client.push(c);
      }
    }
    report(
      'automations: a Zigbee sensor report -> the light /set through an automation, p50 vs a client D4',
      p(automated, 50) / p(client, 50),
      {
        added_p50_ms: p(automated, 50) - p(client, 50),
        added_p99_ms: p(automated, 99) - p(client, 99),
        automation_p50_ms: p(automated, 50),
        automation_p99_ms: p(automated, 99),
        client_p50_ms: p(client, 50),
        client_p99_ms: p(client, 99),
        samples: automated.length,
      },
    );
    report('automations: the same, p99 vs a client D4', p(automated, 99) / p(client, 99), {
      automation_p99_ms: p(automated, 99),
      client_p99_ms: p(client, 99),
    });
  } finally {
    await pub.endAsync();
    await sub.endAsync();
    await gw.stop();
    await net.stop();
  }
}

// ---- 2. the cost per state change, 500 automations and 1,000 devices ----

async function costPerChange(): Promise<void> {
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
  const engine = g.automations() as AutomationEngine;
  for (let i = 0; i < AUTOMATIONS; i++) {
    // The first half's condition holds (every light is off), the second half's does not.
    const r = engine.save({
      kind: 'automation',
      name: `Bright ${i}`,
      mode: 'parallel',
      triggers: [{ type: 'state', device: serials[i], capability: 'brightness', above: 80 }],
      conditions: [
        {
          type: 'state',
          device: serials[(i + 1) % DEVICES],
          capability: 'power',
          equals: i < AUTOMATIONS / 2 ? 'off' : 'on',
        },
      ],
      actions: [{ type: 'notify', message: `bright ${i}` }],
    });
    if (!r.ok) throw new Error(r.errors.join('; '));
  }

  /** A brightness report of a device as the registry publishes it. */
  const publish = (serial: string, brightness: number) =>
    g.bus.publish('device#updateDeviceState', {
      endpoint: { serial_number: serial },
      payload: { brightness: { brightness } },
    });
  /** The brightness each device reports next (each report a change: 10, 11, 10, ...). */
  const level = new Map<string, number>();
  let next = 0;
  /** Times `n` state changes of devices of the automations in [from, to); `cross`: each crosses the threshold (and back, untimed). */
  const changes = (n: number, cross: boolean, from: number, to: number): number[] => {
    const out: number[] = [];
    for (let k = 0; k < n; k++) {
      const serial = serials[from + ((next++ * 7) % (to - from))] as string;
      const v = level.get(serial) === 11 ? 10 : 11;
      level.set(serial, v);
      const t = performance.now();
      publish(serial, cross ? 90 : v);
      out.push(performance.now() - t);
      if (cross) publish(serial, v);
    }
    return out;
  };

  const half = AUTOMATIONS / 2;
  const quiet = { with: [] as number[], without: [] as number[] };
  const runs = { with: [] as number[], without: [] as number[] };
  const refused = { with: [] as number[], without: [] as number[] };
  changes(200, false, 0, AUTOMATIONS);
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating, so that drift of the machine (other work, the store's WAL) falls on both alike.
    engine.start();
    quiet.with.push(...changes(PER_ROUND, false, 0, AUTOMATIONS));
    runs.with.push(...changes(PER_ROUND / 8, true, 0, half));
    refused.with.push(...changes(PER_ROUND / 8, true, half, AUTOMATIONS));
    engine.stop();
    quiet.without.push(...changes(PER_ROUND, false, 0, AUTOMATIONS));
    runs.without.push(...changes(PER_ROUND / 8, true, 0, half));
    refused.without.push(...changes(PER_ROUND / 8, true, half, AUTOMATIONS));
    // Let the started runs end (their notify and trace) before the next round.
    await new Promise((r) => setTimeout(r, 50));
  }

  for (const [name, m, target] of [
    ['a state change that sets off nothing', quiet, 'added p99 < 1 ms'],
    ['a state change that starts a run', runs, undefined],
    ['a state change whose condition does not hold (its trace batched)', refused, undefined],
  ] as const) {
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
      target,
    );
  }
  engine.start();
  await gw.stop();
}

await reportToSet();
await costPerChange();
