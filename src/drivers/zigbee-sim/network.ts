/**
 * The built-in simulated Zigbee network: an embedded MQTT broker on loopback and one simulated
 * Zigbee2MQTT instance per base topic, with devices built from real definitions captured from
 * zigbee-herdsman-converters (scripts/capture-zigbee-fixtures.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromPackageRoot } from '../../lib/package-root.ts';
import type { ModelFixture } from '../../zigbee/exposes.ts';
import { type Broker, type BrokerOptions, newCredentials, startBroker } from './broker.ts';
import { type SimulatorOptions, Z2mSimulator } from './simulator.ts';

const fixturesDir = fromPackageRoot('src', 'drivers', 'zigbee-sim', 'fixtures');

/** The captured models, in the order of the default set (the first 16 cover every mapped family). */
export function loadFixtures(): ModelFixture[] {
  return readdirSync(fixturesDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(fixturesDir, f), 'utf8')) as ModelFixture)
    .sort((a, b) => a.order - b.order);
}

/** `n` devices: the fixture list in order, cycled. */
export function pickModels(n: number, fixtures = loadFixtures()): ModelFixture[] {
  return Array.from({ length: n }, (_, i) => fixtures[i % fixtures.length] as ModelFixture);
}

export interface SimNetworkOptions {
  baseTopics: string[];
  /** Devices present at start, spread over the base topics. */
  devices: number;
  /** Broker port (0: a free one). */
  port?: number;
  /** A folder where each instance keeps its network between runs (`<base topic>.json`); none: afresh. */
  stateDir?: string;
  sim?: Partial<Omit<SimulatorOptions, 'url' | 'baseTopic' | 'devices'>>;
  /** The broker's timings (its heartbeat). */
  broker?: BrokerOptions;
}

export interface SimNetwork {
  url: string;
  broker: Broker;
  sims: Z2mSimulator[];
  sim(baseTopic?: string): Z2mSimulator;
  /** Stops the broker and starts a new one on the same port (retained messages are lost). */
  restartBroker(): Promise<void>;
  /** Stops the broker only (until restartBroker). */
  stopBroker(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the broker on 127.0.0.1 and a simulated Zigbee2MQTT per base topic. */
export async function startSimNetwork(opts: SimNetworkOptions): Promise<SimNetwork> {
  const fixtures = loadFixtures();
  // Per start: a local process that did not start this network cannot read or inject states.
  const credentials = newCredentials();
  let broker = await startBroker(opts.port ?? 0, '127.0.0.1', credentials, opts.broker);
  const port = broker.port;
  const url = broker.url;
  const n = opts.baseTopics.length;
  const sims = opts.baseTopics.map((baseTopic, i) => {
    const count = Math.floor(opts.devices / n) + (i < opts.devices % n ? 1 : 0);
    // Each instance starts at another place in the list, so two networks hold different models.
    const offset = Math.floor((i * fixtures.length) / Math.max(1, n));
    const models = Array.from({ length: count }, (_, k) => fixtures[(offset + k) % fixtures.length] as ModelFixture);
    const candidates = [...fixtures.slice(count % fixtures.length), ...fixtures.slice(0, count % fixtures.length)];
    return new Z2mSimulator({
      url,
      baseTopic,
      devices: models,
      joinCandidates: candidates,
      ...(opts.stateDir ? { stateFile: join(opts.stateDir, `${encodeURIComponent(baseTopic)}.json`) } : {}),
      ...opts.sim,
    });
  });
  await Promise.all(sims.map((s) => s.start()));
  let brokerUp = true;
  const net: SimNetwork = {
    url,
    get broker() {
      return broker;
    },
    sims,
    sim(baseTopic) {
      const s = baseTopic ? sims.find((x) => x.base === baseTopic) : sims[0];
      if (!s) throw new Error(`no simulated Zigbee2MQTT on ${baseTopic}`);
      return s;
    },
    async stopBroker() {
      if (!brokerUp) return;
      brokerUp = false;
      await broker.close();
    },
    async restartBroker() {
      await net.stopBroker();
      broker = await startBroker(port, '127.0.0.1', credentials, opts.broker);
      brokerUp = true;
    },
    async stop() {
      await Promise.all(sims.map((s) => s.stop()));
      if (brokerUp) await broker.close();
      brokerUp = false;
    },
  };
  return net;
}
