import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { PressResult, TokenInfo, TokenService } from '../core/tokens.ts';

/** What the control channel needs of the gateway. */
export interface ControlTarget {
  tokens: TokenService;
  reset(): Promise<void>;
  /** Sets the console password (ending every console session). */
  setConsolePassword?(password: string): Promise<void>;
  settings: { name: string; port: number };
}

export interface ControlServer {
  close(): Promise<void>;
}

/** Answers of the control channel, shared with the CLI client. */
export interface ControlApi {
  link: PressResult;
  tokens: TokenInfo[];
  revoke: { revoked: boolean };
  reset: { reset: true };
}

function isListening(path: string): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

/** A small JSON body (the console password). */
function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > 8192) req.destroy(new Error('body too large'));
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(text) as Record<string, unknown>);
      } catch (err) {
        reject(err);
      }
    });
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * The local control channel: HTTP over a unix socket in the data folder, readable and writable
 * by the gateway's user only (mode 0600). It stands in for the hardware link button and serves
 * the `opencube link|tokens|reset` commands. It refuses to start when another gateway already
 * serves the same data folder, so two gateways never share one store.
 */
export async function startControlServer(path: string, target: ControlTarget): Promise<ControlServer> {
  if (existsSync(path)) {
    if (await isListening(path)) throw new Error(`another gateway is running on this data folder (${path} answers)`);
    unlinkSync(path);
  }
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const url = new URL(req.url ?? '/', 'http://local');
      if (req.method === 'POST' && url.pathname === '/link') return send(res, 200, target.tokens.press());
      if (req.method === 'GET' && url.pathname === '/tokens') return send(res, 200, target.tokens.list());
      const revoke = /^\/tokens\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'DELETE' && revoke) {
        return send(res, 200, { revoked: target.tokens.revoke(decodeURIComponent(revoke[1] as string)) });
      }
      if (req.method === 'POST' && url.pathname === '/console/password' && target.setConsolePassword) {
        const body = await readJson(req);
        if (typeof body.password !== 'string') return send(res, 400, { error: 'password: expected a string' });
        await target.setConsolePassword(body.password);
        return send(res, 200, { set: true });
      }
      if (req.method === 'POST' && url.pathname === '/reset') {
        await target.reset();
        return send(res, 200, { reset: true });
      }
      send(res, 404, { error: `unknown control request ${req.method} ${url.pathname}` });
    } catch (err) {
      send(res, 500, { error: (err as Error).message });
    }
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(path, () => done());
  });
  chmodSync(path, 0o600);
  return {
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
