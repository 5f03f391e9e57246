import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { BusEvent, EventBus } from '../core/event-bus.ts';
import type { TokenService } from '../core/tokens.ts';
import type { HttpContext } from './context.ts';

interface Client {
  res: ServerResponse;
  version: string;
  /** Events written since the socket last reported it could take more. */
  backlog: number;
  congested: boolean;
}

export interface SseOptions {
  heartbeatMs: number;
  /** Events one client may have queued before it is cut off (it can resume with Last-Event-ID). */
  queueLimit: number;
  retryMs?: number;
}

/** Name of the event that tells a resuming client some events are gone (see docs/api.md). */
export const GAP_EVENT = 'eventsLost';

/**
 * Characters JSON.stringify leaves raw that some stream clients take for line breaks (Python's
 * str.splitlines, used by the sseclient library, splits on them): escaped, so that every event is
 * read as ONE data line (COMPAT.md). The escaped JSON parses to the same value.
 */
const LINE_BREAKS = /[\u0085\u2028\u2029]/g;

function escapeLineBreak(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

function frame(id: number, name: string, json: string): string {
  return `id: ${id}\nevent: ${name}\ndata: ${json.replace(LINE_BREAKS, escapeLineBreak)}\n\n`;
}

/**
 * The event-stream writer: one subscriber of the bus that fans each event out to every open
 * stream. Each event is serialized once per API version; each client has a bounded backlog,
 * so one slow reader is cut off instead of holding memory or delaying the others.
 */
export class SseHub {
  private readonly clients = new Set<Client>();
  private unsubscribe: (() => void) | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly bus: EventBus,
    private readonly opts: SseOptions,
    private readonly log?: Logger,
  ) {}

  start(): void {
    this.unsubscribe = this.bus.subscribe((event) => this.broadcast(event));
    this.heartbeat = setInterval(() => {
      for (const c of this.clients) this.write(c, ': ping\n\n');
    }, this.opts.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Ends every stream (clients reconnect and resume after a restart). */
  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    clearInterval(this.heartbeat);
    for (const c of this.clients) {
      // A client that does not read would keep its connection (and so the server's close) open
      // forever: cut it at once; every other stream ends cleanly and its socket is closed too,
      // so a restart never waits on a stream.
      const socket = c.res.socket;
      if (c.congested) {
        c.res.destroy();
        continue;
      }
      c.res.end();
      socket?.end();
      setTimeout(() => socket?.destroy(), 2000).unref();
    }
    this.clients.clear();
  }

  get size(): number {
    return this.clients.size;
  }

  /** Takes over a response: writes the stream head, replays what the client missed, then follows the bus. */
  attach(res: ServerResponse, version: string, lastEventId: number | null): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      'Access-Control-Allow-Origin': '*',
    });
    if (this.stopped) {
      // The gateway is stopping: a stream opened now would hold the server's close open. Tell
      // the client when to come back and end at once; it resumes with Last-Event-ID.
      const socket = res.socket;
      res.end(`retry: ${this.opts.retryMs ?? 3000}\n\n`);
      socket?.end();
      return;
    }
    res.socket?.setNoDelay(true);
    res.socket?.setKeepAlive(true, 30_000);
    const client: Client = { res, version, backlog: 0, congested: false };
    res.on('drain', () => {
      client.backlog = 0;
      client.congested = false;
    });
    res.on('close', () => this.clients.delete(client));
    let head = `retry: ${this.opts.retryMs ?? 3000}\n: connected\n\n`;
    if (lastEventId !== null) {
      const replay = this.bus.since(lastEventId);
      if (replay.ok) {
        for (const e of replay.events) head += frame(e.id, `${e.module}#${version}#${e.type}`, e.json);
      } else {
        const data = {
          payload: { last_event_id: lastEventId, oldest_event_id: replay.oldest, current_event_id: replay.last },
        };
        head += frame(replay.last, `bridge#${version}#${GAP_EVENT}`, JSON.stringify(data));
      }
    }
    this.clients.add(client);
    this.write(client, head);
  }

  private broadcast(event: BusEvent): void {
    const byVersion = new Map<string, string>();
    for (const c of this.clients) {
      let chunk = byVersion.get(c.version);
      if (chunk === undefined) {
        chunk = frame(event.id, `${event.module}#${c.version}#${event.type}`, event.json);
        byVersion.set(c.version, chunk);
      }
      this.write(c, chunk);
    }
  }

  private write(c: Client, chunk: string): void {
    if (c.res.destroyed) {
      this.clients.delete(c);
      return;
    }
    if (c.congested && ++c.backlog > this.opts.queueLimit) {
      this.log?.warn(
        { backlog: c.backlog },
        'event stream client too slow: disconnected (it can resume with Last-Event-ID)',
      );
      this.clients.delete(c);
      c.res.destroy();
      return;
    }
    if (!c.res.write(chunk)) c.congested = true;
  }
}

const INVALID_TOKEN = JSON.stringify({ error: 401, data: {}, message: 'invalid access_token' });

function parseLastEventId(header: unknown, query: unknown): number | null {
  const raw = (Array.isArray(header) ? header[0] : header) ?? query;
  if (typeof raw !== 'string' || !/^\d{1,16}$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

/** The event-stream route of one API version: GET /open-api/<v>/sse/bridge?access_token=... */
export function sseRoutes(ctx: Pick<HttpContext, 'tokens'> & { tokens: TokenService }, hub: SseHub, version: string) {
  return async (app: FastifyInstance) => {
    app.get('/bridge', async (req, reply) => {
      const query = req.query as Record<string, unknown>;
      const token = typeof query.access_token === 'string' ? query.access_token : undefined;
      if (!ctx.tokens.verify(token)) {
        // 401, not 200 and not 5xx: EventSource clients stop instead of retrying forever.
        return reply.code(401).type('application/json; charset=utf-8').send(INVALID_TOKEN);
      }
      // HEAD gets the head of a stream and no body (a stream that never ends would hang it).
      if (req.method === 'HEAD') return reply.code(200).type('text/event-stream; charset=utf-8').send();
      reply.hijack();
      hub.attach(reply.raw, version, parseLastEventId(req.headers['last-event-id'], query.lastEventId));
    });
  };
}
