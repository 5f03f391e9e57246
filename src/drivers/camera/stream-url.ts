/**
 * Stream addresses of cameras: parsing with the rules of D2 (an `rtsp` URL, or `http`/`https` for
 * ESP32-CAM boards; credentials optional), the identity two additions of the same stream share,
 * the account carried in the URL, and a masked form that is the only form ever logged.
 */

/** The two camera protocols of spec 2.3, as served in `protocol`. */
export type CameraProtocol = 'rtsp' | 'esp32-cam';

/** A parsed stream address. `url` never holds credentials; `account` holds them apart. */
export interface StreamAddress {
  protocol: CameraProtocol;
  /** The URL without credentials, with an explicit port: what requests are sent to. */
  url: string;
  hostname: string;
  port: number;
  /** Path and query, as sent in the request line (`/` when empty). */
  path: string;
  /** Credentials found in the URL, if any (percent-decoded). */
  account?: Account;
}

export interface Account {
  username: string;
  password: string;
}

const DEFAULT_PORTS: Record<string, number> = { 'rtsp:': 554, 'http:': 80, 'https:': 443 };

/** Longest stream URL accepted (real ones are well under 200 characters). */
export const MAX_URL_LENGTH = 2048;

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Parses a stream URL for a protocol. Returns a message naming what is wrong (the caller answers
 * 110011 with it); the message never repeats the credentials.
 */
export function parseStreamUrl(raw: string, protocol: CameraProtocol): StreamAddress | { error: string } {
  if (raw.length > MAX_URL_LENGTH) return { error: `the stream URL is longer than ${MAX_URL_LENGTH} characters` };
  if (/\s/.test(raw)) return { error: 'the stream URL contains white space' };
  const schemes = protocol === 'rtsp' ? ['rtsp:'] : ['http:', 'https:'];
  const want = protocol === 'rtsp' ? 'rtsp://' : 'http:// (or https://)';
  const scheme = /^([a-z][a-z0-9+.-]*:)\/\//i.exec(raw)?.[1]?.toLowerCase();
  if (!scheme) return { error: `the stream URL ${JSON.stringify(maskUrl(raw))} does not start with ${want}` };
  if (!schemes.includes(scheme)) {
    const hint = scheme === 'rtsps:' ? ' (RTSP over TLS is not supported)' : '';
    return { error: `a ${protocol.toUpperCase()} stream URL starts with ${want}, not ${scheme}//${hint}` };
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { error: `the stream URL ${JSON.stringify(maskUrl(raw))} is not a URL` };
  }
  // Non-special schemes (rtsp) keep the host as written; brackets mark an IPv6 literal.
  const host = u.hostname.toLowerCase();
  if (host === '') return { error: 'the stream URL has no host' };
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9._~%-]+)$/i.test(host))
    return { error: `the stream URL's host ${JSON.stringify(host)} is not a host name or IP address` };
  if (u.hash) return { error: 'the stream URL has a #fragment' };
  const port = u.port === '' ? (DEFAULT_PORTS[scheme] as number) : Number(u.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { error: `the port ${u.port} is not valid` };
  const path = `${u.pathname || '/'}${u.search}`;
  const account =
    u.username !== '' || u.password !== '' ? { username: decode(u.username), password: decode(u.password) } : undefined;
  const hostname = host.startsWith('[') ? host.slice(1, -1) : host;
  return {
    protocol,
    url: `${scheme}//${host}:${port}${path}`,
    hostname,
    port,
    path,
    ...(account ? { account } : {}),
  };
}

/** The identity of a stream: two cameras with the same identity are the same stream (110013). */
export function streamIdentity(a: StreamAddress): string {
  // The scheme tells nothing for ESP32-CAM boards beyond the port, and the credentials are not
  // part of which stream it is.
  return `${a.protocol} ${a.url.replace(/^[a-z]+:\/\//, '')}`;
}

/** The URL with the account written into it: the shape of spec 2.6 (`rtsp://user:pass@host:port/path`). */
export function urlWithAccount(a: StreamAddress, account: Account | undefined): string {
  if (!account || (account.username === '' && account.password === '')) return a.url;
  const user = encodeURIComponent(account.username);
  const pass = account.password === '' ? '' : `:${encodeURIComponent(account.password)}`;
  return a.url.replace(/^([a-z]+:\/\/)/, `$1${user}${pass}@`);
}

/** `rtsp://user:pass@host/x` -> `rtsp://***@host/x`: the only form of a URL that goes to a log. */
export function maskUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@?#\s]*@/i, '$1***@');
}

/** Masks every URL with credentials inside a text (a process's error output). */
export function maskText(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@?#\s]*@/gi, '$1***@');
}

/** `host:port` as messages name a camera (never with credentials). */
export function hostPort(a: StreamAddress): string {
  return a.hostname.includes(':') ? `[${a.hostname}]:${a.port}` : `${a.hostname}:${a.port}`;
}
