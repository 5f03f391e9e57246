/**
 * The event-stream writer: one subscriber of the bus that fans each event out to every open
 * stream of one audience (the Open API's clients; the console's). What a client receives, and
 * under which name, is the audience's projection. Each event is framed once per distinct frame;
 * each client has a backlog bounded in events and in bytes, so one slow reader is cut off instead
 * of holding memory or delaying the others; the streams open at once are bounded too. Heartbeats
 * run on the injected clock.
 *
 * Events are written once the current turn of the event loop is done (setImmediate), all the
 * events of that turn in one write per client: a write to a socket is a system call (with 100
 * streams, most of a command's time when each event was written at once, issue 29), and the
 * answer to the request that caused the event goes out first. A client is never sent an event
 * published before it attached (those come by replay, if it asks).
 */
import type { ServerResponse } from 'node:http';
import type { BusEvent, EventBus } from '../../core/event-bus.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';

/** What an audience knows of one of its clients. */
export interface StreamClient {
  /** The API version (`v1`, `v2`) of the Open API stream; the console's label. */
  readonly variant: string;
  /** Who the client is (a token id; a console session id): the stream ends when it is revoked. */
  readonly principal: string;
}

/** An event as one audience sees it. */
export interface Projected {
  name: string;
  json: string;
}

export interface Projection {
  /** The event as a client of this variant sees it, or undefined when it does not see it. */
  project(event: BusEvent, variant: string): Projected | undefined;
  /** The principals whose streams end because of this event (a revoked token), `'*'` for all. */
  ends?(event: BusEvent): string[] | undefined;
}

export interface WriterOptions {
  heartbeatMs: number;
  /** Events one client may have queued before it is cut off (it can resume with Last-Event-ID). */
  queueLimit: number;
  /** Bytes one client may have queued before it is cut off (unbounded when not given). */
  queueBytes?: number;
  /** Streams open at once; one more is told to come back later (unbounded when not given). */
  maxStreams?: number;
  retryMs?: number;
  clock: Clock;
  log?: Log;
  /** Allowed browser origins of this audience (`*` for the Open API's clients). */
  allowOrigin?: string;
}

interface Client extends StreamClient {
  res: ServerResponse;
  /** Events written since the socket last reported it could take more. */
  backlog: number;
  congested: boolean;
  /** The id of the last event this client has had (by replay, or the bus's last when it attached). */
  after: number;
}

/** The frames of one flush as one variant of client sees them. */
interface Frames {
  ids: number[];
  frames: string[];
  /** All of them joined, made for the first client that takes them all. */
  all?: string;
}

/** The retry a client is told when every stream is taken. */
const FULL_RETRY_MS = 10_000;

/**
 * Whether a client reads `retry:` as the EventSource standard does, in milliseconds: the standard
 * has every EventSource send `Accept: text/event-stream`. A client that reads the stream its own
 * way gets no `retry:` and keeps its own delay: a .NET client on a bare HttpClient sends no such
 * header and reads `retry:` as SECONDS (`retry: 3000` would be 50 minutes; COMPAT.md).
 */
function readsRetryInMs(res: ServerResponse): boolean {
  const accept = res.req?.headers.accept;
  return typeof accept === 'string' && accept.toLowerCase().includes('text/event-stream');
}

/** A `retry:` line for a client that reads it in milliseconds; nothing for the others. */
function retryLine(res: ServerResponse, ms: number): string {
  return readsRetryInMs(res) ? `retry: ${ms}\n` : '';
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

/** One SSE frame: id, event name, ONE data line. */
export function frame(id: number, name: string, json: string): string {
  return `id: ${id}\nevent: ${name}\ndata: ${json.replace(LINE_BREAKS, escapeLineBreak)}\n\n`;
}

/**
 * Node keeps a response's head as the string it was built as, piece by piece (a tree of some 30
 * small strings, about 900 bytes) for as long as the response lives: for an event stream, hours.
 * A regular expression's scan makes V8 flatten it into one string (about 250 bytes). `_header`
 * is Node's own field; where it is missing nothing happens.
 */
function flattenHead(res: ServerResponse): void {
  const head = (res as unknown as { _header?: unknown })._header;
  if (typeof head === 'string') /\r\n\r\n$/.test(head);
}

export class StreamWriter {
  /** The open streams, by their response. */
  private readonly clients = new Map<ServerResponse, Client>();
  /**
   * The listeners of every stream's response, made once: a stream lives for hours, and closures
   * made for each one would be held all that time (issue 29).
   */
  private readonly onDrain: (this: ServerResponse) => void;
  private readonly onClose: (this: ServerResponse) => void;
  private cut = 0;
  private unsubscribe: (() => void) | undefined;
  private cancelHeartbeat: (() => void) | undefined;
  private stopped = false;
  /** Events published in this turn of the event loop, written by the next flush. */
  private pending: BusEvent[] = [];
  private flushing: NodeJS.Immediate | undefined;

  constructor(
    private readonly bus: EventBus,
    private readonly projection: Projection,
    private readonly opts: WriterOptions,
  ) {
    const clients = this.clients;
    this.onDrain = function (this: ServerResponse) {
      const c = clients.get(this);
      if (c) {
        c.backlog = 0;
        c.congested = false;
      }
    };
    this.onClose = function (this: ServerResponse) {
      clients.delete(this);
    };
  }

  start(): void {
    this.unsubscribe = this.bus.subscribe((event) => this.broadcast(event));
    const beat = () => {
      for (const c of this.clients.values()) this.write(c, ': ping\n\n');
      this.cancelHeartbeat = this.opts.clock.setTimer(this.opts.heartbeatMs, beat);
    };
    this.cancelHeartbeat = this.opts.clock.setTimer(this.opts.heartbeatMs, beat);
  }

  /** Ends every stream (clients reconnect and resume after a restart). */
  stop(): void {
    this.flush();
    this.stopped = true;
    this.unsubscribe?.();
    this.cancelHeartbeat?.();
    for (const c of this.clients.values()) this.end(c);
    this.clients.clear();
  }

  get size(): number {
    return this.clients.size;
  }

  /** Clients cut so far for being too slow (each misses the events after it, until it resumes). */
  get dropped(): number {
    return this.cut;
  }

  /** Ends the streams of these principals now (`*`: all). */
  endFor(principals: readonly string[]): void {
    // What was published before the streams end still reaches them.
    this.flush();
    const all = principals.includes('*');
    for (const c of [...this.clients.values()]) {
      if (!all && !principals.includes(c.principal)) continue;
      this.clients.delete(c.res);
      this.end(c);
    }
  }

  /** Takes over a response: writes the stream head, replays what the client missed, then follows the bus. */
  attach(res: ServerResponse, client: StreamClient, lastEventId: number | null): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      ...(this.opts.allowOrigin ? { 'Access-Control-Allow-Origin': this.opts.allowOrigin } : {}),
    });
    if (this.stopped) {
      // The gateway is stopping: a stream opened now would hold the server's close open. Tell
      // the client when to come back and end at once; it resumes with Last-Event-ID.
      const socket = res.socket;
      res.end(`${retryLine(res, this.opts.retryMs ?? 3000)}: the gateway is stopping, come back\n\n`);
      socket?.end();
      return;
    }
    if (this.opts.maxStreams !== undefined && this.clients.size >= this.opts.maxStreams) {
      // Full: the stream ends at once with a longer retry, so EventSource clients come back later
      // (a non-200 status would make them give up for good).
      this.opts.log?.warn({ streams: this.clients.size }, 'event stream refused: too many streams open');
      const socket = res.socket;
      res.end(`${retryLine(res, FULL_RETRY_MS)}: too many event streams are open, come back later\n\n`);
      socket?.end();
      return;
    }
    flattenHead(res);
    res.socket?.setNoDelay(true);
    res.socket?.setKeepAlive(true, 30_000);
    const c: Client = {
      variant: client.variant,
      principal: client.principal,
      res,
      backlog: 0,
      congested: false,
      after: this.bus.last,
    };
    res.on('drain', this.onDrain);
    res.on('close', this.onClose);
    let head = `${retryLine(res, this.opts.retryMs ?? 3000)}: connected\n\n`;
    if (lastEventId !== null) {
      const replay = this.bus.since(lastEventId);
      if (replay.ok) {
        for (const e of replay.events) {
          const p = this.projection.project(e, c.variant);
          if (p) head += frame(e.id, p.name, p.json);
        }
      } else {
        const data = {
          payload: { last_event_id: lastEventId, oldest_event_id: replay.oldest, current_event_id: replay.last },
        };
        head += frame(replay.last, `bridge#${c.variant}#${GAP_EVENT}`, JSON.stringify(data));
      }
    }
    this.clients.set(res, c);
    this.write(c, head);
  }

  private broadcast(event: BusEvent): void {
    const ends = this.projection.ends?.(event);
    if (ends) this.endFor(ends);
    if (this.clients.size === 0) return;
    this.pending.push(event);
    this.flushing ??= setImmediate(() => this.flush());
  }

  /** Writes the events published since the last flush: per client, the ones it sees, in one write. */
  private flush(): void {
    if (this.flushing) clearImmediate(this.flushing);
    this.flushing = undefined;
    const events = this.pending;
    if (events.length === 0) return;
    this.pending = [];
    const byVariant = new Map<string, Frames>();
    for (const c of this.clients.values()) {
      let seen = byVariant.get(c.variant);
      if (!seen) {
        seen = { ids: [], frames: [] };
        for (const e of events) {
          const p = this.projection.project(e, c.variant);
          if (!p) continue;
          seen.ids.push(e.id);
          seen.frames.push(frame(e.id, p.name, p.json));
        }
        byVariant.set(c.variant, seen);
      }
      const { ids, frames } = seen;
      if (ids.length === 0 || (ids.at(-1) as number) <= c.after) continue;
      const last = ids.at(-1) as number;
      if ((ids[0] as number) > c.after) {
        seen.all ??= frames.join('');
        this.write(c, seen.all, ids.length);
      } else {
        // Attached while these were pending: only what came after it.
        const from = ids.findIndex((id) => id > c.after);
        this.write(c, frames.slice(from).join(''), ids.length - from);
      }
      c.after = last;
    }
  }

  private end(c: Client): void {
    // A client that does not read would keep its connection (and so the server's close) open
    // forever: cut it at once; every other stream ends cleanly and its socket is closed too.
    const socket = c.res.socket;
    if (c.congested) {
      c.res.destroy();
      return;
    }
    c.res.end();
    socket?.end();
    setTimeout(() => socket?.destroy(), 2000).unref();
  }

  /** Writes `chunk` (holding `events` events) to one client, cutting it off when it is too far behind. */
  private write(c: Client, chunk: string, events = 1): void {
    if (c.res.destroyed) {
      this.clients.delete(c.res);
      return;
    }
    if (c.congested) c.backlog += events;
    if (
      c.congested &&
      (c.backlog > this.opts.queueLimit || c.res.writableLength > (this.opts.queueBytes ?? Number.POSITIVE_INFINITY))
    ) {
      this.opts.log?.warn(
        { backlog: c.backlog, bytes: c.res.writableLength },
        'event stream client too slow: disconnected (it can resume with Last-Event-ID)',
      );
      this.clients.delete(c.res);
      this.cut++;
      c.res.destroy();
      return;
    }
    if (!c.res.write(chunk)) c.congested = true;
  }
}
