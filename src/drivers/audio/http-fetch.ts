/**
 * Fetches audio files over http and https for the media player: a size cap read from
 * Content-Length and enforced while reading, one deadline for the whole exchange, and at most a
 * few redirects, each again http or https and to an address no further inside the home than
 * every hop before it (src/lib/address-reach.ts: a server on the internet cannot steer the gateway
 * into the LAN or onto itself). Never throws. The client is told only what kind of failure it was
 * (core/audio/media.ts words it); what happened in detail, which could tell what listens at an
 * address, is `detail`, for the debug log.
 */
import { isIP } from 'node:net';
import type { Agent } from 'undici';
import type { AudioFetcher, FetchOutcome } from '../../core/audio/media.ts';
import { guardedLookup, outer, type Reach, reachOf, within } from '../../lib/address-reach.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';

const MAX_REDIRECTS = 3;

function unreachable(detail: string): FetchOutcome {
  return { ok: false, kind: 'unreachable', detail };
}

export class HttpAudioFetcher implements AudioFetcher {
  /** The agents of fetches under way (one each: its lookup carries that fetch's reach). */
  private readonly agents = new Set<Agent>();

  /** `clock` runs the deadline of each fetch (the gateway's). */
  constructor(private readonly clock: Clock = systemClock) {}

  async fetch(url: URL, limits: { maxBytes: number; timeoutMs: number }): Promise<FetchOutcome> {
    const abort = new AbortController();
    const signal = abort.signal;
    const cancel = this.clock.setTimer(limits.timeoutMs, () => abort.abort());
    // Loaded on the first fetch, as LazyAgent does for the other clients (src/lib/lazy-agent.ts).
    const undici = await import('undici');
    const policy: { ceiling: Reach; reached?: Reach } = { ceiling: 'loopback' };
    const agent = new undici.Agent({ connect: { lookup: guardedLookup(policy) }, keepAliveTimeout: 1000 });
    this.agents.add(agent);
    let current = url;
    try {
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        // An address in the URL is connected to without a lookup: checked here instead.
        const host = current.hostname.replace(/^\[|\]$/g, '');
        policy.reached = undefined;
        if (isIP(host) !== 0) {
          if (!within(reachOf(host), policy.ceiling))
            return unreachable(`a redirect to ${host}, further inside than the hops before it`);
          policy.reached = reachOf(host);
        }
        const res = await undici.request(current, {
          method: 'GET',
          signal,
          dispatcher: agent,
          headers: { accept: 'audio/wav, audio/x-wav, audio/mpeg, audio/*;q=0.9, */*;q=0.1' },
        });
        // Set by the lookup when this hop opened a connection (a reused one keeps the ceiling).
        if (policy.reached) policy.ceiling = outer(policy.ceiling, policy.reached);
        if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
          await res.body.dump();
          const next = new URL(String(res.headers.location), current);
          if (next.protocol !== 'http:' && next.protocol !== 'https:')
            return unreachable(`redirected to a ${next.protocol} URL`);
          current = next;
          continue;
        }
        if (res.statusCode >= 300) {
          await res.body.dump();
          return unreachable(`HTTP ${res.statusCode}`);
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > limits.maxBytes) {
          res.body.destroy();
          return { ok: false, kind: 'too_large', detail: `Content-Length ${declared}` };
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > limits.maxBytes) {
            res.body.destroy();
            return { ok: false, kind: 'too_large', detail: `more than ${limits.maxBytes} bytes read` };
          }
          chunks.push(chunk as Buffer);
        }
        if (size === 0) return { ok: false, kind: 'not_audio', detail: 'an empty body' };
        return { ok: true, bytes: Buffer.concat(chunks) };
      }
      return unreachable(`more than ${MAX_REDIRECTS} redirects`);
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string } };
      if (signal.aborted || e.name === 'TimeoutError' || /Timeout/i.test(e.code ?? ''))
        return unreachable(`no complete answer within ${limits.timeoutMs} ms`);
      return unreachable(`${e.cause?.code ?? e.code ?? e.name}: ${e.message}`);
    } finally {
      cancel();
      this.agents.delete(agent);
      void agent.destroy().catch(() => {});
    }
  }

  /** Ends the fetches under way (they fail). */
  async close(): Promise<void> {
    await Promise.all([...this.agents].map((a) => a.destroy().catch(() => {})));
  }
}
