import { request } from 'node:http';

/** Raised when no gateway answers on the control socket. */
export class NotRunningError extends Error {}

/** Sends one request to the running gateway's control socket and returns its JSON answer. */
export function controlRequest<T>(socketPath: string, method: string, path: string, body?: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, timeout: 5000 }, (res) => {
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
    req.on('timeout', () => req.destroy(new Error('the gateway did not answer within 5 s')));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') {
        reject(new NotRunningError(`no gateway is running on this data folder (no answer on ${socketPath})`));
      } else reject(err);
    });
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
