/**
 * A gateway in `herdsman` mode on the fake coordinator (test/z2m/fake/): the real driver, the
 * project's zigbee-herdsman and converters, with the fake network's adapter in place of the USB
 * coordinator. The devices paired at start are written into herdsman's database first, as after
 * a real pairing. Short timings; everything on 127.0.0.1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { HerdsmanDriverOptions } from '../../src/drivers/herdsman/index.ts';
import type { GatewayOptions } from '../../src/gateway.ts';
import { startGateway, type TestGateway, tempDir } from '../helpers/foundation.ts';
import { herdsmanDatabase } from '../z2m/fake/database.ts';
import { loadHerdsman } from '../z2m/fake/herdsman.ts';
import { type FakeNetworkOptions, FakeZigbeeNetwork } from '../z2m/fake/network.ts';
import type { FakeDeviceSpec } from '../z2m/fake/spec.ts';

/** The project's own zigbee-herdsman (the one the driver runs), for the fake's frames. */
export const zh = loadHerdsman(dirname(createRequire(import.meta.url).resolve('zigbee-herdsman/package.json')));

export interface HerdsmanSetup {
  net: FakeZigbeeNetwork;
  dataDir: string;
  /** Gateway overrides of `herdsman` mode. */
  overrides: Record<string, unknown>;
  /** Driver options: the fake coordinator and short timings. */
  driver: HerdsmanDriverOptions;
}

/** A fake network with `devices` and a data folder whose herdsman database holds the paired ones. */
export function herdsmanSetup(
  devices: readonly FakeDeviceSpec[],
  opts: {
    net?: Partial<Omit<FakeNetworkOptions, 'zh' | 'devices'>>;
    driver?: HerdsmanDriverOptions;
    overrides?: Record<string, unknown>;
  } = {},
): HerdsmanSetup {
  const net = new FakeZigbeeNetwork({ zh, devices, noAnswerMs: 300, coverStepMs: 10, reportDelayMs: 5, ...opts.net });
  const dataDir = tempDir('opencube-herdsman-');
  mkdirSync(join(dataDir, 'zigbee'), { recursive: true });
  writeFileSync(join(dataDir, 'zigbee', 'database.db'), herdsmanDatabase(devices, zh));
  return {
    net,
    dataDir,
    overrides: {
      zigbee: {
        mode: 'herdsman',
        serial_port: '/dev/fake-zigbee-coordinator',
        adapter: 'zstack',
        permit_join_seconds: 60,
        ...(opts.overrides?.zigbee as object | undefined),
      },
      ...Object.fromEntries(Object.entries(opts.overrides ?? {}).filter(([k]) => k !== 'zigbee')),
    },
    driver: {
      adapterFactory: async (network, _port, backupPath) => net.createAdapter(network as never, backupPath),
      retryMinMs: 50,
      retryMaxMs: 200,
      readPaceMs: 5,
      ...opts.driver,
    },
  };
}

/** Starts a gateway in `herdsman` mode on a setup (its data folder is kept: the caller removes it). */
export function startHerdsmanGateway(s: HerdsmanSetup, gatewayOptions: GatewayOptions = {}): Promise<TestGateway> {
  return startGateway({
    dataDir: s.dataDir,
    overrides: s.overrides,
    gatewayOptions: { ...gatewayOptions, drivers: { ...gatewayOptions.drivers, herdsman: s.driver } },
  });
}
