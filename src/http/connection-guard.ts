/**
 * The connection guard of the HTTP server: anyone on the LAN can open connections without a
 * token, so each one is bounded in time and all of them in number. A connection must send its
 * request headers within `headersTimeoutMs` and its whole body within `requestTimeoutMs` (both on
 * the gateway's clock; HTTP 408 with the envelope after them). Past `maxConnections`, a new
 * connection takes the place of the oldest idle one (no request in flight: silent, or kept alive
 * between requests), so held idle connections never lock out a client that sends a request; when
 * every connection is busy (requests in flight, event streams), the new one is closed. An event
 * stream is a request in flight for as long as it is open: it is never cut by these timeouts.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Clock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';

export interface GuardOptions {
  maxConnections: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  clock: Clock;
  log?: Log;
}

/** What the guard did so far (tests and the soak read it). */
export interface GuardStats {
  /** Connections open now. */
  readonly open: number;
  /** Idle connections closed to make room for a new one. */
  readonly evicted: number;
  /** New connections closed because every connection was busy. */
  readonly refused: number;
  /** Connections closed by a timeout (headers or body). */
  readonly timedOut: number;
}

interface Conn {
  socket: Socket;
  /** Requests in flight (an open event stream is one). */
  busy: number;
  cancel?: () => void;
}

/** The answer to a request that took too long, with the envelope, and the connection closes. */
function timeoutAnswer(message: string): string {
  const body = JSON.stringify({ error: 400, data: {}, message });
  return `HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Whether a request carries a body (RFC 9112 6.3: a Content-Length or a Transfer-Encoding says so). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Installs the guard on a server (before it listens). */
export function guardConnections(server: Server, opts: GuardOptions): GuardStats {
  // Insertion order is age: the first idle one found is the oldest.
  const conns = new Map<Socket, Conn>();
  const stats = { evicted: 0, refused: 0, timedOut: 0 };
  const seconds = (ms: number) => `${ms / 1000} s`;

  const expire = (c: Conn, message: string) => {
    stats.timedOut++;
    c.socket.end(timeoutAnswer(message));
    // A client that does not read the answer does not hold the socket.
    c.socket.setTimeout(2000, () => c.socket.destroy());
  };

  server.on('connection', (socket: Socket) => {
    if (conns.size >= opts.maxConnections) {
      const idle = [...conns.values()].find((c) => c.busy === 0);
      if (idle) {
        stats.evicted++;
        conns.delete(idle.socket);
        idle.cancel?.();
        idle.socket.destroy();
      } else {
        stats.refused++;
        opts.log?.warn({ open: conns.size }, 'connection refused: every connection is busy');
        socket.destroy();
        return;
      }
    }
    const c: Conn = { socket, busy: 0 };
    c.cancel = opts.clock.setTimer(opts.headersTimeoutMs, () => {
      if (c.busy === 0) expire(c, `request timeout: no request headers within ${seconds(opts.headersTimeoutMs)}`);
    });
    conns.set(socket, c);
    socket.on('close', onSocketClose);
  });

  // One listener of each kind for every connection and request, not closures made for each: a
  // connection may live for hours (an event stream), and would hold them all that time.
  function onSocketClose(this: Socket): void {
    conns.get(this)?.cancel?.();
    conns.delete(this);
  }
  // 'close' follows 'finish' (or a connection cut short), once.
  function onResponseClose(this: ServerResponse): void {
    const c = conns.get(this.req.socket);
    if (c) c.busy--;
  }

  // Before Fastify's own listener: an answer it sends at once must find the request counted.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const c = conns.get(req.socket);
    if (!c) return;
    c.busy++;
    c.cancel?.();
    c.cancel = undefined;
    // Only a request with a body can keep it from arriving; one without (a GET, an event stream)
    // is complete once its headers are, and gets no timer (an event stream would hold one, and its
    // closures, for the whole timeout).
    if (!req.complete && hasBody(req)) {
      const cancel = opts.clock.setTimer(opts.requestTimeoutMs, () => {
        if (!req.complete)
          expire(c, `request timeout: the body did not arrive within ${seconds(opts.requestTimeoutMs)}`);
      });
      req.once('end', cancel);
      req.once('close', cancel);
    }
    res.on('close', onResponseClose);
  });

  return {
    get open() {
      return conns.size;
    },
    get evicted() {
      return stats.evicted;
    },
    get refused() {
      return stats.refused;
    },
    get timedOut() {
      return stats.timedOut;
    },
  };
}

/** Descriptors the process keeps for everything but client connections (store, logs, drivers, directives). */
const FD_HEADROOM = 256;

/**
 * `wanted` lowered to fit the process's open-file limit with headroom (Linux: /proc/self/limits),
 * so that held connections can never take the descriptors the store and the drivers need.
 */
export function fitToOpenFileLimit(wanted: number, log?: Log): number {
  let soft: number;
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (!line || line[1] === 'unlimited') return wanted;
    soft = Number(line[1]);
  } catch {
    return wanted;
  }
  const fits = Math.max(16, soft - FD_HEADROOM);
  if (fits >= wanted) return wanted;
  log?.warn(
    { wanted, open_file_limit: soft, max_connections: fits },
    'http.max_connections lowered to fit the open-file limit (raise it with ulimit -n)',
  );
  return fits;
}
