/**
 * The Matter bridge (docs/matter.md), loaded by the gateway only when `matter.enabled` is on:
 * nothing of matter.js is imported before `startMatter` runs. Its public surface: start it, its
 * status (pairing code, QR payload, pairing mode, fabrics), open pairing mode for another
 * controller, remove a fabric, stop it.
 */
import { isIP } from 'node:net';
import type { DeviceRecord } from '../../core/devices/contract.ts';
import type { Done } from '../../core/devices/service.ts';
import type { EventBus } from '../../core/event-bus.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Db } from '../../store/db.ts';
import type { MatterLog, MatterStatus } from './bridge.ts';
import { bridgeUniqueId, pairingSecrets } from './pairing.ts';

export type { MatterStatus } from './bridge.ts';

/** Raised when a `matter.*` setting cannot be used; the message names it. */
export class MatterSettingsError extends Error {}

export interface MatterOptions {
  port: number;
  interface: string;
  listen_addresses: string[];
  gatewayName: string;
  version: string;
  db: Db;
  registry: { list(): DeviceRecord[]; get(serial: string): DeviceRecord | undefined };
  devices: { update(serial: string, body: Record<string, unknown>): Promise<Done> };
  bus: EventBus;
  log: MatterLog;
  clock: Clock;
}

export interface MatterHandle {
  status(): MatterStatus;
  /** The QR code controllers scan, as an SVG image. */
  qrSvg(): string;
  removeFabric(index: number): Promise<boolean>;
  /** Opens pairing mode for another controller (15 minutes); closes it. */
  openPairing(): Promise<MatterStatus>;
  closePairing(): Promise<MatterStatus>;
  /** The gateway was renamed: the bridge's node label (the name controllers read) follows at once. */
  rename(name: string): Promise<void>;
  stop(): Promise<void>;
}

/** The listening addresses of `matter.listen_addresses`: at most one IPv6 and one IPv4, else why not. */
export function listenAddresses(list: readonly string[]): { ipv4?: string; ipv6?: string } | string {
  const out: { ipv4?: string; ipv6?: string } = {};
  for (const a of list) {
    const v = isIP(a);
    if (v === 0) return `${JSON.stringify(a)} is not an IP address`;
    const key = v === 4 ? 'ipv4' : 'ipv6';
    if (out[key] !== undefined) return `more than one IPv${v} address`;
    out[key] = a;
  }
  if (list.length > 0 && out.ipv6 === undefined) return 'needs an IPv6 address (Matter runs over IPv6)';
  return out;
}

/** Interface names as Linux allows them (no path separators, at most 15 bytes). */
const INTERFACE = /^[A-Za-z0-9_.:-]{1,15}$/;

/** Checks the settings, then loads matter.js and starts the bridge. */
export async function startMatter(opts: MatterOptions): Promise<MatterHandle> {
  const listen = listenAddresses(opts.listen_addresses);
  if (typeof listen === 'string') throw new MatterSettingsError(`matter.listen_addresses: ${listen}`);
  if (opts.interface !== '' && !INTERFACE.test(opts.interface))
    throw new MatterSettingsError(`matter.interface: ${JSON.stringify(opts.interface)} is not an interface name`);
  const secrets = pairingSecrets(opts.db);
  // Before matter.js itself loads: the gateway's own settings and signal handling stay in charge.
  (await import('./process-config.ts')).leaveProcessAlone();
  const { withSmallYoungGeneration } = await import('./young-generation.ts');
  return withSmallYoungGeneration(async () => {
    // dist/ has matter.js bundled (scripts/build.mjs defines OPENCUBE_BUILD): esbuild drops this import.
    if (process.env.OPENCUBE_BUILD !== 'dist') await (await import('./load.ts')).loadMatterJs();
    const { environmentFor } = await import('./environment.ts');
    const { MatterBridge } = await import('./bridge.ts');
    const environment = environmentFor(opts.db, opts.interface, opts.log);
    const bridge = new MatterBridge({
      environment,
      secrets,
      uniqueId: bridgeUniqueId(opts.db),
      port: opts.port,
      ipv4: opts.listen_addresses.length === 0 || listen.ipv4 !== undefined,
      ...(listen.ipv4 ? { listenIpv4: listen.ipv4 } : {}),
      ...(listen.ipv6 ? { listenIpv6: listen.ipv6 } : {}),
      gatewayName: opts.gatewayName,
      version: opts.version,
      registry: opts.registry,
      devices: opts.devices,
      bus: opts.bus,
      log: opts.log,
      clock: opts.clock,
    });
    try {
      await bridge.start();
    } catch (err) {
      await bridge.stop().catch(() => {});
      throw err;
    }
    return bridge;
  });
}
