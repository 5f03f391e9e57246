import { isIP } from 'node:net';
import os from 'node:os';

/** Gateway info of G4 (spec 2.8 and COMPAT.md). */
export interface GatewayInfo {
  ip: string;
  mac: string;
  name: string;
  domain: string;
  fw_version: string;
}

/**
 * Finds the interface that serves the LAN: the first non-internal IPv4 interface, preferring
 * wired and wireless names over virtual bridges; loopback when the host has no other.
 */
export function lanInterface(): { ip: string; mac: string } {
  const candidates: { name: string; ip: string; mac: string }[] = [];
  for (const [name, addrs] of Object.entries(os.networkInterfaces())) {
    for (const a of addrs ?? []) {
      if (a.family === 'IPv4' && !a.internal) candidates.push({ name, ip: a.address, mac: a.mac });
    }
  }
  const virtual = /^(docker|br-|veth|virbr|tun|tap|wg|zt|lxc|cni|flannel)/;
  const best = candidates.find((c) => !virtual.test(c.name)) ?? candidates[0];
  return best ? { ip: best.ip, mac: best.mac } : { ip: '127.0.0.1', mac: '00:00:00:00:00:00' };
}

/** The package version reduced to three numeric parts, as clients require of fw_version. */
export function threePartVersion(version: string): string {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  return m ? `${m[1]}.${m[2]}.${m[3]}` : '0.0.0';
}

/**
 * The names the hardware gateways' own add-ons reach their gateway by (written into their
 * configurations and container images; COMPAT.md "Host names"): always the gateway's. Accepting
 * them costs nothing against DNS rebinding: a rebinding page is served under a public domain of
 * its attacker (its own name is the Host its requests carry), and no public name resolves to a
 * single label like `ihost` or into `.local`, which only the LAN itself answers for.
 */
export const ADDON_HOST_NAMES: readonly string[] = ['ihost', 'ihost.local'];

/**
 * Whether a Host header names this gateway: an IP address (a DNS-rebinding page reaches the
 * gateway under a name of its own, never under an IP literal), `localhost`, the add-ons' names
 * (ADDON_HOST_NAMES), or one of `names` (the machine's host name, its mDNS name, the configured
 * domain, `allowed_hosts`). The port is ignored; names compare without case and without a
 * trailing dot.
 */
export function isOwnHost(hostHeader: string | undefined, names: readonly string[]): boolean {
  if (!hostHeader) return true; // HTTP/1.0 clients send none; there is no name to rebind
  let host = hostHeader.trim().toLowerCase();
  const bracketed = /^\[([^\]]*)\](?::\d+)?$/.exec(host);
  if (bracketed) host = bracketed[1] as string;
  else if (isIP(host) === 0) host = host.replace(/:\d+$/, '');
  host = host.replace(/\.$/, '');
  if (isIP(host) !== 0 || host === 'localhost' || host.endsWith('.localhost')) return true;
  if (ADDON_HOST_NAMES.includes(host)) return true;
  return names.some((n) => n.toLowerCase().replace(/\.$/, '') === host);
}

/**
 * G4's answer, cached: the LAN address can change (DHCP), so it is looked up again at most every
 * 10 s; a rename (`gateway#renamed`) shows at once. The same object while nothing changed.
 */
export class GatewayInfoCache {
  private cache: { at: number; info: GatewayInfo } | undefined;

  constructor(
    private readonly read: () => { name: string; domain: string; version: string },
    bus: { subscribe(fn: (e: { name: string }) => void): () => void },
  ) {
    bus.subscribe((e) => {
      if (e.name === 'gateway#renamed') this.cache = undefined;
    });
  }

  info(): GatewayInfo {
    const now = Date.now();
    if (!this.cache || now - this.cache.at > 10_000) {
      const lan = lanInterface();
      const { name, domain, version } = this.read();
      const next: GatewayInfo = { ip: lan.ip, mac: lan.mac, name, domain, fw_version: threePartVersion(version) };
      const same = this.cache && JSON.stringify(this.cache.info) === JSON.stringify(next);
      this.cache = { at: now, info: same && this.cache ? this.cache.info : next };
    }
    return this.cache.info;
  }
}
