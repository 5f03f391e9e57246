import { randomBytes } from 'node:crypto';
import { chmodSync, createReadStream, createWriteStream, existsSync, rmSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BackupContents } from '../../core/maintenance/store-backup.ts';
import type { RestoreCheck } from '../../core/maintenance/store-restore.ts';
import type { PressResult, TokenInfo, TokenService } from '../../core/tokens.ts';
import { socketAnswers } from '../../lib/control-client.ts';
import { isLogLevel, type LogLevel } from '../../lib/logger.ts';

/** What the control channel needs of the gateway. */
export interface ControlTarget {
  tokens: TokenService;
  reset(): Promise<void>;
  /** Sets the console password (ending every console session). */
  setConsolePassword?(password: string): Promise<void>;
  settings: { name: string; port: number };
  /** Writes a backup of the store to `file`. */
  backup?(file: string): Promise<BackupContents>;
  /** Checks a backup and stages it for the next start; messages call it `name`. */
  stageRestore?(file: string, name?: string): Promise<RestoreCheck>;
  /** Restarts the gateway (absent when nothing would start it again). */
  restart?: () => void;
  log?: { level: string };
  setLogLevel?(level: LogLevel): string;
  /** The Matter bridge's pairing code and fabrics (undefined: the bridge is off). */
  matter?(): unknown;
  /** Opens (or closes) the bridge's pairing mode for another controller; undefined when the bridge is off. */
  matterPairing?(open: boolean): Promise<unknown>;
}

/** Largest backup the control socket takes for a restore. */
const MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;

/** A file of the data folder for one transfer; the gateway's user only. */
function transferFile(socketPath: string, kind: string): string {
  return join(dirname(socketPath), `.${kind}-${randomBytes(6).toString('hex')}.tmp`);
}

/** Writes the request's body to `file`, refusing more than MAX_UPLOAD_BYTES. */
async function receive(req: IncomingMessage, file: string): Promise<void> {
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_UPLOAD_BYTES) req.destroy(new Error(`a backup larger than ${MAX_UPLOAD_BYTES} bytes`));
  });
  await pipeline(req, createWriteStream(file, { mode: 0o600 }));
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
 * the `opencube link|tokens|reset|backup|restore|log-level|matter` commands. It refuses to start when another gateway already
 * serves the same data folder, so two gateways never share one store.
 */
export async function startControlServer(path: string, target: ControlTarget): Promise<ControlServer> {
  if (existsSync(path)) {
    if (await socketAnswers(path)) throw new Error(`another gateway is running on this data folder (${path} answers)`);
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
      if (url.pathname === '/log-level' && target.log && target.setLogLevel) {
        if (req.method === 'GET') return send(res, 200, { level: target.log.level });
        if (req.method === 'PUT') {
          const level = url.searchParams.get('level');
          if (!isLogLevel(level)) return send(res, 400, { error: `unknown log level ${JSON.stringify(level)}` });
          const was = target.setLogLevel(level);
          return send(res, 200, { level, was });
        }
      }
      if (req.method === 'GET' && url.pathname === '/matter' && target.matter) {
        return send(res, 200, { enabled: target.matter() !== undefined, ...(target.matter() ?? {}) });
      }
      if (
        (req.method === 'POST' || req.method === 'DELETE') &&
        url.pathname === '/matter/pairing' &&
        target.matterPairing
      ) {
        const status = await target.matterPairing(req.method === 'POST');
        if (status === undefined) return send(res, 409, { error: 'the Matter bridge is off' });
        return send(res, 200, { enabled: true, ...status });
      }
      if (req.method === 'GET' && url.pathname === '/backup' && target.backup) {
        const file = transferFile(path, 'backup');
        try {
          const contents = await target.backup(file);
          res.writeHead(200, {
            'Content-Type': 'application/vnd.sqlite3',
            'X-Backup-Contents': JSON.stringify(contents),
          });
          await pipeline(createReadStream(file), res);
        } finally {
          rmSync(file, { force: true });
        }
        return;
      }
      if (req.method === 'POST' && url.pathname === '/restore' && target.stageRestore) {
        const file = transferFile(path, 'restore');
        let check: RestoreCheck;
        try {
          await receive(req, file);
          check = await target.stageRestore(file, url.searchParams.get('name') ?? 'the backup');
        } finally {
          rmSync(file, { force: true });
        }
        if (!check.ok) return send(res, 400, { error: check.message });
        const restart = target.restart;
        // The answer first: the restart closes this socket.
        if (restart) res.once('finish', () => restart());
        return send(res, 200, { ...check, restarting: restart !== undefined });
      }
      if (req.method === 'POST' && url.pathname === '/reset') {
        await target.reset();
        return send(res, 200, { reset: true });
      }
      send(res, 404, { error: `unknown control request ${req.method} ${url.pathname}` });
    } catch (err) {
      if (!res.headersSent) send(res, 500, { error: (err as Error).message });
      else res.destroy();
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
