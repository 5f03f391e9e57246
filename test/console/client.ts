/** A client of the console's API as the console's page is one: one session cookie, its own Origin. */
import { COOKIE } from '../../src/http/console/route.ts';

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export interface ConsoleClient {
  /** The session cookie's value, once logged in. */
  cookie: string | undefined;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  login(password: string): Promise<Answer>;
}

/** A client of `url` (the gateway's base URL). */
export function consoleClient(url: string): ConsoleClient {
  const c: ConsoleClient = {
    cookie: undefined,
    async call(method, path, body, headers = {}) {
      const h: Record<string, string> = { ...(method === 'GET' ? {} : { origin: url }), ...headers };
      if (c.cookie) h.cookie = `${COOKIE}=${c.cookie}`;
      if (body !== undefined) h['content-type'] = 'application/json';
      const res = await fetch(`${url}/console/api${path}`, {
        method,
        headers: h,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      });
      const set = res.headers.get('set-cookie');
      const m = set ? new RegExp(`${COOKIE}=([^;]*)`).exec(set) : null;
      if (m) c.cookie = m[1] === '' ? undefined : m[1];
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
    login: (password) => c.call('POST', '/auth/login', { password }),
  };
  return c;
}
