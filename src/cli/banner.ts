/**
 * What `opencube start` tells the person who started it, once it listens: where clients reach the
 * gateway (the machine's LAN address, not 127.0.0.1, when it listens on every address), where the
 * console is, how a client is approved, which Zigbee network runs, and where the Open API is.
 */

import { isIP } from 'node:net';
import type { NetworkInterfaceInfo } from 'node:os';
import { redactText } from '../lib/redact.ts';
import type { Settings } from '../settings/index.ts';

/** os.networkInterfaces()'s shape (injected in tests). */
export type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

/** Interfaces of containers, VPNs and bridges: reachable from this machine, rarely from the LAN. */
const VIRTUAL = /^(docker|br-|veth|virbr|tun|tap|wg|zt|lxc|cni|flannel)/;

/** Whether the server listens on every address. */
function wildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '' || host === '[::]';
}

/**
 * The addresses clients use to reach a server bound to `host`: for every address (0.0.0.0, ::) the
 * machine's non-internal IPv4 addresses, physical interfaces first, or 127.0.0.1 when it has none;
 * else `host` itself.
 */
export function reachableAddresses(host: string, interfaces: Interfaces): string[] {
  if (!wildcard(host)) return [host];
  const found: { name: string; address: string }[] = [];
  for (const [name, addrs] of Object.entries(interfaces)) {
    for (const a of addrs ?? []) {
      // Node 18.0-18.3 said 4 rather than 'IPv4'.
      const v4 = a.family === 'IPv4' || (a.family as unknown) === 4;
      if (v4 && !a.internal && !found.some((f) => f.address === a.address)) found.push({ name, address: a.address });
    }
  }
  const ordered = [...found.filter((f) => !VIRTUAL.test(f.name)), ...found.filter((f) => VIRTUAL.test(f.name))];
  return ordered.length > 0 ? ordered.map((f) => f.address) : ['127.0.0.1'];
}

/** `http://ADDR:PORT` with an IPv6 address in brackets. */
export function baseUrl(address: string, port: number): string {
  return `http://${isIP(address) === 6 ? `[${address}]` : address}:${port}`;
}

/**
 * The one line on stdout once the gateway listens (scripts read it): the address it is bound to,
 * and bound to every address, the URLs this machine is reached at (its LAN addresses, then
 * loopback), not 127.0.0.1 alone as if that were all.
 */
export function listeningLine(host: string, port: number, interfaces: Interfaces, dataDir: string): string {
  if (!wildcard(host)) return `opencube listening on ${baseUrl(host, port)} (data in ${dataDir})`;
  const addresses = reachableAddresses(host, interfaces);
  if (!addresses.includes('127.0.0.1')) addresses.push('127.0.0.1');
  const bound = host === '::' || host === '[::]' ? `[::]:${port}` : `0.0.0.0:${port}`;
  return `opencube listening on ${bound}, every address of this machine: ${addresses.map((a) => baseUrl(a, port)).join(', ')} (data in ${dataDir})`;
}

/** Which Zigbee network runs, in words (a broker URL without its password). */
export function zigbeeLine(z: Settings['zigbee']): string {
  switch (z.mode) {
    case 'sim':
      return `simulated network of ${z.sim_devices} devices (--zigbee-mode z2m or herdsman for a real one)`;
    case 'z2m':
      return `Zigbee2MQTT through the broker ${redactText(z.mqtt_url)} (base topic ${z.base_topics.join(', ')})`;
    case 'herdsman':
      return `USB coordinator on ${z.serial_port || 'the port found among the usual ones (opencube zigbee ports lists them)'}`;
    default:
      return 'off (--zigbee-mode sim, z2m or herdsman to have one)';
  }
}

/** The facts of the banner, for a JSON log line or the lines below. */
export interface BannerFacts {
  version: string;
  dataDir: string;
  /** Base URLs clients reach the gateway at, the first the main one. */
  urls: string[];
  openApi: string;
  console: string;
  zigbee: string;
  /** How a client gets its token, with the command that presses the link button as the user runs it. */
  approve: string;
  /** Why only this machine reaches it, when that is so. */
  localOnly?: string;
}

/** The banner's facts for a gateway listening on `port`; `linkCommand` presses the link button (`npm run opencube -- link`). */
export function bannerFacts(
  settings: Settings,
  port: number,
  interfaces: Interfaces,
  version: string,
  dataDir: string,
  linkCommand = 'opencube link',
): BannerFacts {
  const addresses = reachableAddresses(settings.host, interfaces);
  const urls = addresses.map((a) => baseUrl(a, port));
  const main = urls[0] as string;
  const loopback = addresses.length === 1 && (addresses[0] === '127.0.0.1' || addresses[0] === 'localhost');
  return {
    version,
    dataDir,
    urls,
    openApi: `${main}/open-api/v2/rest/`,
    console: `${main}/`,
    zigbee: zigbeeLine(settings.zigbee),
    approve: approve(linkCommand),
    ...(loopback
      ? {
          localOnly: wildcard(settings.host)
            ? 'this machine has no LAN address: only it reaches the gateway'
            : `bound to ${settings.host}: only this machine reaches it; --host 0.0.0.0 for the LAN`,
        }
      : {}),
  };
}

/** How a client gets its token. */
export function approve(linkCommand: string): string {
  return `when a client asks for a token, run "${linkCommand}" or answer the console's pop-up`;
}

/** The banner as a few lines for a person at a terminal. */
export function bannerLines(f: BannerFacts): string[] {
  return [
    `opencube ${f.version} is running (data in ${f.dataDir})`,
    `  Open API: ${f.openApi}${f.localOnly ? ` (${f.localOnly})` : ''}`,
    ...(f.urls.length > 1 ? [`  Also at:  ${f.urls.slice(1).join(', ')}`] : []),
    `  Console:  ${f.console}`,
    `  Approve:  ${f.approve}`,
    `  Zigbee:   ${f.zigbee}`,
  ];
}
