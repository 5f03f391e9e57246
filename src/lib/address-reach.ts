/**
 * How far inside the home an IP address is: `public` (the internet), `private` (the LAN: RFC
 * 1918, carrier-grade NAT, link-local with the cloud metadata address, IPv6 unique-local and
 * link-local) or `loopback` (the box itself; 0.0.0.0 and :: connect there too). A fetch made for a
 * client (an audio URL) follows a redirect only to an address no further inside than every hop
 * before it: a server on the internet cannot steer the gateway into the LAN or onto itself, while
 * a LAN server may redirect out. The check is made on the addresses a name resolves to at the
 * moment of connecting (`guardedLookup`), so a name that changes its answer in between gains
 * nothing.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIPv4, isIPv6, type LookupFunction } from 'node:net';

export type Reach = 'public' | 'private' | 'loopback';

const RANK: Record<Reach, number> = { public: 0, private: 1, loopback: 2 };

function v4(address: string): number[] {
  return address.split('.').map(Number);
}

function reachOf4(address: string): Reach {
  const [a = 0, b = 0] = v4(address);
  if (a === 127 || a === 0) return 'loopback';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 169 && b === 254) return 'private';
  if (a === 100 && b >= 64 && b <= 127) return 'private';
  return 'public';
}

/**
 * The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail read as two groups), or
 * undefined for anything else.
 */
export function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  if (!isIPv6(text)) return undefined;
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = v4(dotted[2] as string);
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => Number.parseInt(g, 16));
}

/** The reach of an IP address (a name that is not an address counts as public). */
export function reachOf(address: string): Reach {
  const plain = address.replace(/^\[|\]$/g, '');
  if (isIPv4(plain)) return reachOf4(plain);
  const g = ipv6Groups(plain);
  if (!g) return 'public';
  // An IPv4 address inside an IPv6 one (::ffff:a.b.c.d, and the old ::a.b.c.d) is that address.
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embedded = `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  if (zeros(5) && g[5] === 0xffff) return reachOf4(embedded);
  if (zeros(7) && (g[7] === 0 || g[7] === 1)) return 'loopback';
  if (zeros(6)) return reachOf4(embedded);
  const first = g[0] as number;
  if ((first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80) return 'private';
  return 'public';
}

/** Whether `reach` is no further inside than `ceiling`. */
export function within(reach: Reach, ceiling: Reach): boolean {
  return RANK[reach] <= RANK[ceiling];
}

/** The further out of two reaches. */
export function outer(a: Reach, b: Reach): Reach {
  return RANK[a] <= RANK[b] ? a : b;
}

/** Whether a redirect from a server at `from` may be followed to `to` (two IP addresses). */
export function redirectAllowed(from: string, to: string): boolean {
  return within(reachOf(to), reachOf(from));
}

/** Raised (as a connection error) for a name that resolves only to addresses further inside than allowed. */
export const REACH_REFUSED = 'EREACHREFUSED';

/**
 * A DNS lookup for the connections of one fetch: it answers only addresses within
 * `policy.ceiling`, and records in `policy.reached` the outermost reach it answered.
 */
export function guardedLookup(policy: { ceiling: Reach; reached?: Reach }, lookup = dnsLookup): LookupFunction {
  return ((hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
    lookup(hostname, { ...options, all: true }, (err, found) => {
      if (err) return callback(err);
      const list = (found as LookupAddress[]).filter((a) => within(reachOf(a.address), policy.ceiling));
      if (list.length === 0)
        return callback(
          Object.assign(new Error(`${hostname} is further inside than allowed`), { code: REACH_REFUSED }),
        );
      policy.reached = list.map((a) => reachOf(a.address)).reduce(outer);
      if (options.all) callback(null, list);
      else callback(null, (list[0] as LookupAddress).address, (list[0] as LookupAddress).family);
    });
  }) as LookupFunction;
}
