/**
 * Directives to third-party service addresses (T2, spec 4.5): one POST per directive over
 * keep-alive connections, a hard timeout, and a reading of the reply that accepts every success
 * form seen in the field (COMPAT.md): any reply that is not an ErrorResponse is a success.
 */
import { randomUUID } from 'node:crypto';
import { type Clock, systemClock } from '../../lib/clock.ts';
import { LazyAgent } from '../../lib/lazy-agent.ts';
import type { Log } from '../../lib/log.ts';
import { isObject } from '../../lib/object.ts';

/** How a directive ended. */
export type DirectiveReply =
  | { kind: 'ok'; payload: Record<string, unknown> }
  | { kind: 'error'; type: string; description?: string }
  /** No usable answer: refused, reset, timed out, a redirect or an HTTP error status. `offline`: no answer at all. */
  | { kind: 'failed'; reason: string; offline: boolean };

export interface DirectiveEndpoint {
  serial_number: string;
  third_serial_number: string;
  tags: Record<string, unknown>;
}

/** Replies past this size are not read further (a directive reply is a few hundred bytes). */
const MAX_REPLY_BYTES = 1024 * 1024;

/** Reads a directive reply body: `{event:{header,payload}}` or `{header,payload}`, any content type, or nothing. */
export function readReply(text: string): DirectiveReply {
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? null : JSON.parse(text);
  } catch {
    return { kind: 'ok', payload: {} };
  }
  const inner = isObject(parsed) && isObject(parsed.event) ? parsed.event : parsed;
  if (!isObject(inner)) return { kind: 'ok', payload: {} };
  const header = isObject(inner.header) ? inner.header : undefined;
  const payload = isObject(inner.payload) ? inner.payload : {};
  if (header?.name === 'ErrorResponse') {
    const type = typeof payload.type === 'string' ? payload.type : 'INTERNAL_ERROR';
    const description = typeof payload.description === 'string' ? payload.description : undefined;
    return { kind: 'error', type, description };
  }
  return { kind: 'ok', payload };
}

export class DirectiveClient {
  private readonly agent: LazyAgent;

  /**
   * `clock` runs the wait for each reply; the agent's own timeouts are only a backstop behind it.
   * `log` gets why a directive failed (debug level): clients get SERVICE_FAILED only.
   */
  constructor(
    private readonly timeoutMs: number,
    private readonly clock: Clock = systemClock,
    private readonly log?: Log,
  ) {
    // No limit of connections per origin: a provider may hold directives for one device for a
    // while and answer them together, and a bridge serves many devices on one host:port, so a
    // directive must never queue behind other directives (a hung device would stall every device
    // of its bridge). Each directive holds its connection for at most the timeout, and directives
    // in flight are bounded by the requests the server takes at once (its connection limit).
    const backstop = timeoutMs + 60_000;
    this.agent = new LazyAgent({
      connections: null,
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
      connect: { timeout: backstop },
      headersTimeout: backstop,
      bodyTimeout: backstop,
    });
  }

  /**
   * Sends one directive and waits at most the timeout (or `waitMs`, when shorter) for its reply.
   * Never throws. Only a service silent for the whole spec timeout is reported as offline.
   * `endpoint` is undefined for directives to a service rather than a device (TTS engines).
   */
  async send(
    address: string,
    name: string,
    version: string,
    endpoint: DirectiveEndpoint | undefined,
    payload: Record<string, unknown>,
    waitMs = this.timeoutMs,
  ): Promise<DirectiveReply> {
    const wait = Math.min(this.timeoutMs, waitMs);
    if (wait <= 0) return { kind: 'failed', reason: 'no time was left to wait for an answer', offline: false };
    const header = { name, message_id: randomUUID(), version };
    const body = JSON.stringify({
      directive: endpoint === undefined ? { header, payload } : { header, endpoint, payload },
    });
    const abort = new AbortController();
    const signal = abort.signal;
    const cancel = this.clock.setTimer(wait, () => abort.abort());
    try {
      const res = await this.agent.request(address, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal,
      });
      let size = 0;
      const chunks: Buffer[] = [];
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_REPLY_BYTES) {
          res.body.destroy();
          break;
        }
        chunks.push(chunk as Buffer);
      }
      const reply = readReply(Buffer.concat(chunks).toString('utf8'));
      // A redirect is not followed: the directive did not reach what the service address names.
      if (reply.kind === 'ok' && res.statusCode >= 300)
        return this.failed(address, name, {
          kind: 'failed',
          reason: `the service answered HTTP ${res.statusCode}${res.statusCode < 400 ? ' (redirects are not followed)' : ''}`,
          offline: false,
        });
      return reply;
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string } };
      const timedOut = signal.aborted || e.name === 'TimeoutError' || /Timeout/i.test(e.code ?? '');
      const reason = timedOut ? `no answer within ${wait} ms` : `${e.cause?.code ?? e.code ?? e.name}: ${e.message}`;
      return this.failed(address, name, { kind: 'failed', reason, offline: !timedOut || wait >= this.timeoutMs });
    } finally {
      cancel();
    }
  }

  private failed(address: string, directive: string, reply: DirectiveReply & { kind: 'failed' }): DirectiveReply {
    this.log?.debug({ service_address: address, directive, reason: reply.reason }, 'directive failed');
    return reply;
  }

  async close(): Promise<void> {
    await this.agent.destroy();
  }
}
