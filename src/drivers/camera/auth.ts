/**
 * HTTP-style authentication for RTSP (RFC 2326 borrows it from HTTP): Basic (RFC 7617) and Digest
 * (RFC 2617 and 7616: MD5, MD5-sess, SHA-256; qop `auth` or none). Pure functions: the RTSP
 * client feeds them the challenge of a 401 and sends back the header they compute.
 */

import { createHash, randomBytes } from 'node:crypto';
import { own } from '../../lib/object.ts';
import type { Account } from './stream-url.ts';

/** One challenge of a `WWW-Authenticate` header: its scheme and parameters (names lower-cased). */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/**
 * Parses the challenges of `WWW-Authenticate` header values. A value may hold several challenges
 * separated by commas (`Digest realm="a", nonce="b", Basic realm="a"`): a new challenge starts
 * at a token that is not followed by `=`.
 */
export function parseChallenges(values: readonly string[]): Challenge[] {
  const out: Challenge[] = [];
  for (const value of values) {
    let i = 0;
    let current: Challenge | undefined;
    const s = value;
    while (i < s.length) {
      while (i < s.length && /[\s,]/.test(s[i] as string)) i++;
      const tok = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/.exec(s.slice(i));
      if (!tok) break;
      const name = tok[0];
      i += name.length;
      let j = i;
      while (j < s.length && s[j] === ' ') j++;
      if (s[j] !== '=' || s.slice(j, j + 2) === '==') {
        // A scheme (a token68 such as a Basic credential after it is not used in challenges).
        current = { scheme: name.toLowerCase(), params: {} };
        out.push(current);
        continue;
      }
      i = j + 1;
      while (i < s.length && s[i] === ' ') i++;
      let v = '';
      if (s[i] === '"') {
        i++;
        while (i < s.length && s[i] !== '"') {
          if (s[i] === '\\' && i + 1 < s.length) i++;
          v += s[i];
          i++;
        }
        i++;
      } else {
        const m = /^[^,\s]*/.exec(s.slice(i));
        v = m ? m[0] : '';
        i += v.length;
      }
      if (current) current.params[name.toLowerCase()] = v;
    }
  }
  return out;
}

/** The `Authorization` value for Basic. */
export function basicAuthorization(account: Account): string {
  return `Basic ${Buffer.from(`${account.username}:${account.password}`, 'utf8').toString('base64')}`;
}

const HASHES: Record<string, string> = { md5: 'md5', 'md5-sess': 'md5', 'sha-256': 'sha256', 'sha-256-sess': 'sha256' };

/** Whether this module can answer a Digest challenge (its algorithm and qop are supported). */
export function digestSupported(c: Challenge): boolean {
  const algorithm = (c.params.algorithm ?? 'MD5').toLowerCase();
  if (own(HASHES, algorithm) === undefined || c.params.nonce === undefined) return false;
  const qop = c.params.qop;
  return qop === undefined || qop.split(',').some((q) => q.trim().toLowerCase() === 'auth');
}

function quote(v: string): string {
  return `"${v.replace(/(["\\])/g, '\\$1')}"`;
}

/** The inputs of one Digest answer; `cnonce` and `nc` are given by tests, made up otherwise. */
export interface DigestRequest {
  method: string;
  uri: string;
  /** The count of requests answered with this nonce so far, including this one (qop only). */
  nc: number;
  cnonce?: string;
}

/** The `Authorization` value answering a Digest challenge (RFC 2617 section 3.2.2, RFC 7616 section 3.4). */
export function digestAuthorization(c: Challenge, account: Account, req: DigestRequest): string {
  const algorithm = c.params.algorithm ?? 'MD5';
  const hashName = own(HASHES, algorithm.toLowerCase()) ?? 'md5';
  const h = (s: string) => createHash(hashName).update(s, 'utf8').digest('hex');
  const realm = c.params.realm ?? '';
  const nonce = c.params.nonce ?? '';
  const qops = c.params.qop?.split(',').map((q) => q.trim().toLowerCase());
  const qop = qops?.includes('auth') ? 'auth' : undefined;
  const cnonce = req.cnonce ?? randomBytes(8).toString('hex');
  const nc = req.nc.toString(16).padStart(8, '0');
  let ha1 = h(`${account.username}:${realm}:${account.password}`);
  if (algorithm.toLowerCase().endsWith('-sess')) ha1 = h(`${ha1}:${nonce}:${cnonce}`);
  const ha2 = h(`${req.method}:${req.uri}`);
  const response = qop ? h(`${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : h(`${ha1}:${nonce}:${ha2}`);
  const parts = [
    `username=${quote(account.username)}`,
    `realm=${quote(realm)}`,
    `nonce=${quote(nonce)}`,
    `uri=${quote(req.uri)}`,
    `response=${quote(response)}`,
  ];
  if (c.params.algorithm !== undefined) parts.push(`algorithm=${algorithm}`);
  if (c.params.opaque !== undefined) parts.push(`opaque=${quote(c.params.opaque)}`);
  if (qop) parts.push(`qop=${qop}`, `nc=${nc}`, `cnonce=${quote(cnonce)}`);
  return `Digest ${parts.join(', ')}`;
}

/** Picks the challenge to answer: Digest when supported (it does not send the password), else Basic. */
export function pickChallenge(challenges: readonly Challenge[]): Challenge | undefined {
  return (
    challenges.find((c) => c.scheme === 'digest' && digestSupported(c)) ?? challenges.find((c) => c.scheme === 'basic')
  );
}
