import type { Bonjour } from 'bonjour-service';
import type { Log } from '../../lib/log.ts';
import type { Settings } from '../../settings/index.ts';

export interface MdnsHandle {
  stop(): Promise<void>;
}

/** The mDNS host name: clients accept hosts whose name contains `cube` (COMPAT.md). */
export function mdnsHostName(settings: Settings): string {
  const base =
    settings.name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'opencube';
  return `${base.includes('cube') ? base : `${base}-cube`}.local`;
}

/**
 * Advertises the gateway as `_ewelink._tcp` (optionally on one interface only, e.g. loopback in
 * tests). bonjour-service is loaded here, after the gateway listens: it is not needed to answer.
 */
export async function startMdns(settings: Settings, port: number, log: Log): Promise<MdnsHandle> {
  const mod: { Bonjour?: typeof Bonjour; default?: { Bonjour: typeof Bonjour } } = await import('bonjour-service');
  // Under tsx its named export; from the bundle, esbuild hands this CommonJS package over as `default`.
  const BonjourService = (mod.Bonjour ?? mod.default?.Bonjour) as typeof Bonjour;
  // The options go to multicast-dns, whose `interface` the bonjour types do not declare.
  // Bound to 0.0.0.0 even with an interface: a socket bound to a unicast address receives no multicast.
  const mdnsOptions = settings.mdns_interface
    ? { interface: settings.mdns_interface, bind: '0.0.0.0', loopback: true }
    : {};
  const bonjour = new BonjourService(mdnsOptions as ConstructorParameters<typeof Bonjour>[0], (err: unknown) =>
    log.warn({ err }, 'mDNS failed; the gateway still answers by IP'),
  );
  const host = mdnsHostName(settings);
  const service = bonjour.publish({
    name: settings.name,
    type: 'ewelink',
    protocol: 'tcp',
    port,
    host,
    txt: { domain: settings.domain, api: 'v2', path: '/open-api/v2/rest' },
    disableIPv6: true,
  });
  service.on('error', (err: unknown) => log.warn({ err }, 'mDNS advertisement failed'));
  log.info({ host, port }, 'advertising _ewelink._tcp over mDNS');
  return {
    stop: () =>
      new Promise<void>((done) => {
        bonjour.unpublishAll(() => {
          bonjour.destroy();
          done();
        });
      }),
  };
}
