/**
 * A third-party service that fails in every way a bad network or a bad provider does, one way
 * per path (`/hang`, `/reset`, ...), on 127.0.0.1; and what the gateway must answer a D4 sent to
 * a device behind each. Used by the tests (with the gateway's clock moved by hand) and by the
 * soak script (real time: every answer within 5 s).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Fault {
  /** What the service does. */
  what: string;
  /** The D4 error code the client must get (0: the reply counts as a success, COMPAT.md). */
  code: number;
  /** Whether the service answers only after real time passes (the soak waits for it; tests skip it). */
  realTime?: boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

const errorReply = (type: string) =>
  JSON.stringify({ event: { header: { name: 'ErrorResponse' }, payload: { type } } });

/** Every fault, by path. */
export const FAULTS: Record<string, Fault> = {
  hang: { what: 'accepts and never answers', code: 110019, handle: () => {} },
  slow: {
    what: 'answers a success after 1 s',
    code: 0,
    realTime: true,
    handle: (_req, res) => {
      const t = setTimeout(() => res.end('{}'), 1000);
      res.on('close', () => clearTimeout(t));
    },
  },
  late: {
    what: 'answers a success after 4 s (past the 3 s of spec 4.5)',
    code: 110019,
    realTime: true,
    handle: (_req, res) => {
      const t = setTimeout(() => res.end('{}'), 4000);
      res.on('close', () => clearTimeout(t));
    },
  },
  reset: { what: 'resets the connection', code: 110019, handle: (req) => req.socket.resetAndDestroy() },
  garbage: {
    what: 'answers 200 with bytes that are not JSON',
    code: 0,
    handle: (_req, res) => res.end(Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22, 0x0a, 0xc3])),
  },
  huge: {
    what: 'answers 200 with 64 MB',
    code: 0,
    handle: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(256 * 1024, 'a');
      let n = 0;
      const more = () => {
        while (n < 256) {
          n++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    },
  },
  drip: {
    what: 'sends a byte now and then, never the end',
    code: 110019,
    handle: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(t));
    },
  },
  redirect: {
    what: 'redirects elsewhere',
    code: 110019,
    handle: (_req, res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' });
      res.end();
    },
  },
  'http-error': {
    what: 'answers HTTP 500 with an HTML page',
    code: 110019,
    handle: (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<h1>Internal Server Error</h1>');
    },
  },
  'endpoint-unreachable': {
    what: 'answers an ErrorResponse ENDPOINT_UNREACHABLE',
    code: 110005,
    handle: (_req, res) => res.end(errorReply('ENDPOINT_UNREACHABLE')),
  },
};

/** The fault of a refused connection (no service at the address): its code. */
export const REFUSED_CODE = 110019;

export interface FaultZoo {
  /** The service address of a fault. */
  address(fault: string): string;
  /** Directives received so far by the service of a fault. */
  received(fault: string): number;
  close(): Promise<void>;
}

/** Starts the service of every fault on one port of 127.0.0.1. */
export async function startFaultZoo(): Promise<FaultZoo> {
  const sockets = new Set<Socket>();
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const name = (req.url ?? '/').slice(1);
      counts.set(name, (counts.get(name) ?? 0) + 1);
      const fault = FAULTS[name];
      if (fault) fault.handle(req, res);
      else res.writeHead(404).end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    address: (fault) => `http://127.0.0.1:${port}/${fault}`,
    received: (fault) => counts.get(fault) ?? 0,
    close: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy();
        server.close(() => done());
      }),
  };
}
