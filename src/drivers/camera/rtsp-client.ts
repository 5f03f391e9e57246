/**
 * A minimal RTSP/1.0 client (RFC 2326) over TCP, written for probing and watching cameras:
 * requests with CSeq, one answer read per request (interleaved RTP frames skipped), Basic and
 * Digest authentication answered once per request, and one deadline for the whole exchange. It
 * never throws for what a camera does: every outcome is a value, and the socket is always closed.
 */
import type { LookupFunction } from 'node:net';
import { Socket } from 'node:net';
import { basicAuthorization, type Challenge, digestAuthorization, parseChallenges, pickChallenge } from './auth.ts';
import type { Account, StreamAddress } from './stream-url.ts';

/** An RTSP answer: status, headers (names lower-cased, each with its values in order) and body. */
export interface RtspResponse {
  status: number;
  reason: string;
  headers: Map<string, string[]>;
  body: Buffer;
}

/** Why an exchange gave no answer to work with. */
export type RtspFailureKind =
  /** The name of the host does not resolve. */
  | 'unresolvable'
  /** Refused, unreachable, reset before connecting, or no connection before the deadline. */
  | 'unreachable'
  /** Something answered that does not speak RTSP (or cut the connection without an answer). */
  | 'not-rtsp'
  /** Connected, but no complete answer before the deadline. */
  | 'timeout';

export type RtspResult = { ok: true; response: RtspResponse } | { ok: false; kind: RtspFailureKind; detail: string };

/** Longest answer head and body read (a camera's SDP is a few kilobytes). */
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_BODY_BYTES = 256 * 1024;
const USER_AGENT = 'opencube';

/** The first value of a header, if any. */
export function header(r: RtspResponse, name: string): string | undefined {
  return r.headers.get(name.toLowerCase())?.[0];
}

/** Parses an answer head; undefined when it is not RTSP. */
function parseHead(head: string): Omit<RtspResponse, 'body'> | undefined {
  const lines = head.split(/\r?\n/);
  const m = /^RTSP\/1\.\d (\d{3})(?: (.*))?$/.exec(lines[0] ?? '');
  if (!m) return undefined;
  const headers = new Map<string, string[]>();
  let last: string | undefined;
  for (const line of lines.slice(1)) {
    if (line === '') continue;
    // Obsolete line folding: a continuation of the previous header.
    if (/^[ \t]/.test(line) && last) {
      const values = headers.get(last) as string[];
      values[values.length - 1] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    last = line.slice(0, colon).trim().toLowerCase();
    const list = headers.get(last) ?? [];
    list.push(line.slice(colon + 1).trim());
    headers.set(last, list);
  }
  return { status: Number(m[1]), reason: m[2] ?? '', headers };
}

export interface RtspSessionOptions {
  /** Epoch ms after which nothing more is waited for. */
  deadline: number;
  /** The account to answer 401 challenges with. */
  account?: Account;
  /** DNS lookup (tests resolve names without a resolver); node's by default. */
  lookup?: LookupFunction;
  /** The clock (epoch ms); Date.now by default. */
  now?: () => number;
}

/** One TCP connection to an RTSP server, used for a short series of requests. */
export class RtspSession {
  private readonly socket = new Socket();
  private cseq = 0;
  private buffer: Buffer = Buffer.alloc(0);
  private ended: { kind: RtspFailureKind; detail: string } | undefined;
  private wake: (() => void) | undefined;
  private connected = false;
  /** The challenge answered last and how often its nonce was used (Digest `nc`). */
  private auth: { challenge: Challenge; count: number } | undefined;
  private readonly now: () => number;

  constructor(
    private readonly address: StreamAddress,
    private readonly opts: RtspSessionOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.socket.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.wake?.();
    });
    this.socket.on('error', (err: NodeJS.ErrnoException) => {
      this.ended ??= this.connected
        ? { kind: 'not-rtsp', detail: `the connection failed: ${err.code ?? err.message}` }
        : err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' || err.code === 'EAI_FAIL'
          ? { kind: 'unresolvable', detail: `the host name ${address.hostname} does not resolve (${err.code})` }
          : { kind: 'unreachable', detail: `${err.code ?? err.message}` };
      this.wake?.();
    });
    this.socket.on('close', () => {
      this.ended ??= { kind: 'not-rtsp', detail: 'the server closed the connection without an RTSP answer' };
      this.wake?.();
    });
  }

  /** Connects; resolves with a failure value when it cannot before the deadline. */
  async connect(): Promise<{ ok: true } | { ok: false; kind: RtspFailureKind; detail: string }> {
    const left = this.opts.deadline - this.now();
    if (left <= 0) return { ok: false, kind: 'unreachable', detail: 'no time was left to connect' };
    const result = await new Promise<{ ok: true } | { ok: false; kind: RtspFailureKind; detail: string }>((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve({ ok: false, kind: 'unreachable', detail: `no connection within ${left} ms` });
      }, left);
      this.wake = () => {
        if (this.ended) {
          clearTimeout(timer);
          this.wake = undefined;
          resolve({ ok: false, ...this.ended });
        }
      };
      this.socket.connect({
        host: this.address.hostname,
        port: this.address.port,
        ...(this.opts.lookup ? { lookup: this.opts.lookup } : {}),
      });
      this.socket.once('connect', () => {
        clearTimeout(timer);
        this.connected = true;
        this.wake = undefined;
        resolve({ ok: true });
      });
    });
    return result;
  }

  /**
   * Sends one request and reads its answer. A 401 is answered once with the account (Digest
   * preferred, Basic otherwise); the answer to that retry is returned whatever it is.
   */
  async request(method: string, extra: Record<string, string> = {}, uri = this.address.url): Promise<RtspResult> {
    let r = await this.exchange(method, uri, extra, this.authorization(method, uri));
    if (!r.ok || r.response.status !== 401 || !this.opts.account) return r;
    const challenge = pickChallenge(parseChallenges(r.response.headers.get('www-authenticate') ?? []));
    if (!challenge) return r;
    this.auth = { challenge, count: 0 };
    r = await this.exchange(method, uri, extra, this.authorization(method, uri));
    return r;
  }

  private authorization(method: string, uri: string): string | undefined {
    const account = this.opts.account;
    if (!this.auth || !account) return undefined;
    if (this.auth.challenge.scheme === 'basic') return basicAuthorization(account);
    this.auth.count++;
    return digestAuthorization(this.auth.challenge, account, { method, uri, nc: this.auth.count });
  }

  private async exchange(
    method: string,
    uri: string,
    extra: Record<string, string>,
    authorization: string | undefined,
  ): Promise<RtspResult> {
    if (this.ended) return { ok: false, ...this.ended };
    const cseq = ++this.cseq;
    const lines = [`${method} ${uri} RTSP/1.0`, `CSeq: ${cseq}`, `User-Agent: ${USER_AGENT}`];
    if (authorization) lines.push(`Authorization: ${authorization}`);
    for (const [k, v] of Object.entries(extra)) lines.push(`${k}: ${v}`);
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    for (;;) {
      const parsed = this.take();
      if (parsed === 'more') {
        // Data always arrives before the close, so an ended connection has nothing more to give.
        const ended = this.endedWith();
        if (ended) return { ok: false, ...ended };
        if (!(await this.waitForData()))
          return { ok: false, kind: 'timeout', detail: `no RTSP answer to ${method} in time` };
        continue;
      }
      if ('kind' in parsed) {
        this.ended = parsed;
        return { ok: false, ...parsed };
      }
      // An answer to an earlier request (a server that answers twice) is skipped.
      const seq = header(parsed, 'cseq');
      if (seq === undefined || Number(seq) === cseq) return { ok: true, response: parsed };
    }
  }

  /** Why the connection ended, if it did (read fresh: it changes while a request waits). */
  private endedWith(): { kind: RtspFailureKind; detail: string } | undefined {
    return this.ended;
  }

  /** Waits until data arrives, the connection ends, or the deadline passes (false). */
  private waitForData(): Promise<boolean> {
    const left = this.opts.deadline - this.now();
    if (left <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve(false);
      }, left);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve(true);
      };
    });
  }

  /** Takes one complete answer off the buffer: 'more' when incomplete, a failure when it is not RTSP. */
  private take(): RtspResponse | 'more' | { kind: RtspFailureKind; detail: string } {
    // Interleaved RTP/RTCP frames ($, channel, 16-bit length) may precede an answer.
    while (this.buffer.length > 0 && this.buffer[0] === 0x24) {
      if (this.buffer.length < 4) return 'more';
      const len = this.buffer.readUInt16BE(2);
      if (this.buffer.length < 4 + len) return 'more';
      this.buffer = this.buffer.subarray(4 + len);
    }
    if (this.buffer.length === 0) return 'more';
    // Decide early on what cannot become an RTSP status line (an HTTP server, a banner).
    const start = this.buffer.subarray(0, Math.min(this.buffer.length, 5)).toString('latin1');
    if (!'RTSP/'.startsWith(start) && !start.startsWith('RTSP/'))
      return { kind: 'not-rtsp', detail: `the server answered ${JSON.stringify(this.firstLine())}, not RTSP` };
    let end = this.buffer.indexOf('\r\n\r\n');
    let sep = 4;
    if (end < 0) {
      end = this.buffer.indexOf('\n\n');
      sep = 2;
    }
    if (end < 0) {
      if (this.buffer.length > MAX_HEAD_BYTES)
        return { kind: 'not-rtsp', detail: `the answer's head is longer than ${MAX_HEAD_BYTES} bytes` };
      return 'more';
    }
    const head = parseHead(this.buffer.subarray(0, end).toString('utf8'));
    if (!head) return { kind: 'not-rtsp', detail: `the server answered ${JSON.stringify(this.firstLine())}, not RTSP` };
    const lengthHeader = head.headers.get('content-length')?.[0];
    const length = lengthHeader === undefined ? 0 : Number(lengthHeader);
    if (!Number.isInteger(length) || length < 0)
      return { kind: 'not-rtsp', detail: `the answer has a bad Content-Length ${JSON.stringify(lengthHeader)}` };
    if (length > MAX_BODY_BYTES)
      return { kind: 'not-rtsp', detail: `the answer's body is longer than ${MAX_BODY_BYTES} bytes` };
    if (this.buffer.length < end + sep + length) return 'more';
    const body = Buffer.from(this.buffer.subarray(end + sep, end + sep + length));
    this.buffer = this.buffer.subarray(end + sep + length);
    return { ...head, body };
  }

  private firstLine(): string {
    const text = this.buffer.subarray(0, 80).toString('latin1');
    return text.split(/\r?\n/)[0] ?? '';
  }

  /** Closes the connection (always call it, also after a failure). */
  close(): void {
    this.wake = undefined;
    this.socket.destroy();
  }
}

/** Runs `fn` with a connected session and closes it whatever happens. */
export async function withRtspSession<T>(
  address: StreamAddress,
  opts: RtspSessionOptions,
  fn: (session: RtspSession) => Promise<T>,
): Promise<T | { ok: false; kind: RtspFailureKind; detail: string }> {
  const session = new RtspSession(address, opts);
  try {
    const c = await session.connect();
    if (!c.ok) return c;
    return await fn(session);
  } finally {
    session.close();
  }
}
