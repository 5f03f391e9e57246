/**
 * Fetches audio files over http and https for the media player: at most a few redirects (each
 * again http or https), a size cap read from Content-Length and enforced while reading, and one
 * deadline for the whole exchange. Never throws: every failure is a reason a client can read.
 */
import type { AudioFetcher, FetchOutcome } from '../../core/audio/media.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';
import { LazyAgent } from '../../lib/lazy-agent.ts';

const MAX_REDIRECTS = 3;

export class HttpAudioFetcher implements AudioFetcher {
  private readonly agent = new LazyAgent({ connections: 8, keepAliveTimeout: 5_000 });

  /** `clock` runs the deadline of each fetch (the gateway's). */
  constructor(private readonly clock: Clock = systemClock) {}

  async fetch(url: URL, limits: { maxBytes: number; timeoutMs: number }): Promise<FetchOutcome> {
    const abort = new AbortController();
    const signal = abort.signal;
    const cancel = this.clock.setTimer(limits.timeoutMs, () => abort.abort());
    let current = url;
    try {
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        const res = await this.agent.request(current, {
          method: 'GET',
          signal,
          headers: { accept: 'audio/wav, audio/x-wav, audio/mpeg, audio/*;q=0.9, */*;q=0.1' },
        });
        if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
          await res.body.dump();
          const next = new URL(String(res.headers.location), current);
          if (next.protocol !== 'http:' && next.protocol !== 'https:')
            return { ok: false, reason: `redirected to a ${next.protocol} URL (http and https only)` };
          current = next;
          continue;
        }
        if (res.statusCode >= 300) {
          await res.body.dump();
          return { ok: false, reason: `the server answered HTTP ${res.statusCode}` };
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > limits.maxBytes) {
          res.body.destroy();
          return { ok: false, reason: `the audio is ${declared} bytes, more than the ${limits.maxBytes} allowed` };
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > limits.maxBytes) {
            res.body.destroy();
            return { ok: false, reason: `the audio is more than the ${limits.maxBytes} bytes allowed` };
          }
          chunks.push(chunk as Buffer);
        }
        if (size === 0) return { ok: false, reason: 'the server answered with no audio (an empty body)' };
        return { ok: true, bytes: Buffer.concat(chunks) };
      }
      return { ok: false, reason: `more than ${MAX_REDIRECTS} redirects` };
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string } };
      if (signal.aborted || e.name === 'TimeoutError' || /Timeout/i.test(e.code ?? ''))
        return { ok: false, reason: `no complete answer within ${limits.timeoutMs} ms` };
      return { ok: false, reason: `${e.cause?.code ?? e.code ?? e.name}: ${e.message}` };
    } finally {
      cancel();
    }
  }

  async close(): Promise<void> {
    await this.agent.destroy();
  }
}
