import { createReadStream, createWriteStream, existsSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { fileProblem } from './file-problem.ts';

/** Whether something listens on the unix socket at `path` (a gateway running on its data folder). */
export function socketAnswers(path: string): Promise<boolean> {
  // No socket file, nobody listening: no connection attempt (this runs at every start).
  if (!existsSync(path)) return Promise.resolve(false);
  return new Promise((done) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

/** Raised when no gateway answers on the control socket. */
export class NotRunningError extends Error {}

/** The name of the user with this id (from /etc/passwd), or the id. */
function userName(uid: number): string {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (name && Number(id) === uid) return name;
    }
  } catch {
    // no passwd file to read: the id says it
  }
  return `uid ${uid}`;
}

/**
 * A socket error as one plain line: the socket of another user's gateway (mode 0600) refuses
 * everyone else, and a raw `connect EACCES ...` does not tell the user what to do.
 */
function socketProblem(err: NodeJS.ErrnoException, socketPath: string): Error {
  if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED')
    return new NotRunningError(`no gateway is running on this data folder (no answer on ${socketPath})`);
  if (err.code === 'EACCES' || err.code === 'EPERM') {
    let owner = 'the user that runs the gateway';
    try {
      owner = `${userName(statSync(socketPath).uid)}, the user that runs the gateway`;
    } catch {
      // the folder itself is closed to this user: the owner is not known
    }
    return new Error(
      `the gateway's control socket ${socketPath} is open only to ${owner} (${err.code}): run the command as that user (e.g. with sudo -u)`,
    );
  }
  return err;
}

/**
 * How long a command waits for the running gateway's answer. Generous: on a small box a gateway
 * that is starting (the Matter bridge loading matter.js) can be busy for several seconds, and a
 * command that gives up then fails for nothing; a gateway that does not answer in this time is stuck.
 */
const ANSWER_MS = 30_000;

/** Sends one request to the running gateway's control socket and returns its JSON answer. */
export function controlRequest<T>(socketPath: string, method: string, path: string, body?: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, timeout: ANSWER_MS }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => {
        try {
          const body = JSON.parse(text);
          if ((res.statusCode ?? 500) >= 400) reject(new Error(body.error ?? text));
          else resolve(body as T);
        } catch {
          reject(new Error(`bad answer from the gateway: ${text.slice(0, 200)}`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`the gateway did not answer within ${ANSWER_MS / 1000} s`)));
    req.on('error', (err: NodeJS.ErrnoException) => reject(socketProblem(err, socketPath)));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** How long a transfer of a backup may sit without a byte moving before it is given up. */
const TRANSFER_IDLE_MS = 120_000;

/** Reads an error answer's message (`{error}`), or its text. */
function errorOf(body: Buffer): string {
  const text = body.toString('utf8');
  try {
    return (JSON.parse(text) as { error?: string }).error ?? text;
  } catch {
    return text.slice(0, 500);
  }
}

/**
 * Sends a request whose body (when given) is the file at `upload`, and returns the answer's status,
 * headers and body, the body streamed to `download` when given (a backup can be large).
 */
export function controlTransfer(
  socketPath: string,
  method: string,
  path: string,
  files: { upload?: string; download?: string },
): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, timeout: TRANSFER_IDLE_MS }, (res) => {
      const status = res.statusCode ?? 500;
      if (status < 400 && files.download) {
        const out = createWriteStream(files.download, { mode: 0o600 });
        pipeline(res, out).then(
          () => resolve({ headers: res.headers, body: Buffer.alloc(0) }),
          (err: Error) => reject(err),
        );
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        if (status >= 400) reject(new Error(errorOf(body)));
        else resolve({ headers: res.headers, body });
      });
    });
    req.on('timeout', () => req.destroy(new Error('the gateway stopped answering during the transfer')));
    req.on('error', (err: NodeJS.ErrnoException) => reject(socketProblem(err, socketPath)));
    if (files.upload) {
      const input = createReadStream(files.upload);
      // Not the socket's error: a file that cannot be read must not read as "no gateway runs".
      input.on('error', (err) => req.destroy(fileProblem(err, 'read', files.upload as string, false)));
      input.pipe(req);
    } else req.end();
  });
}
