/**
 * Calls to the console's API (`/console/api`): JSON in and out, failures as ApiError carrying
 * the gateway's words. A 401 means the session ended: the page goes back to the login.
 */

/** A failure, in words a person reads. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let onLoggedOut: () => void = () => {};

/** What to do when a call finds the session gone. */
export function whenLoggedOut(fn: () => void): void {
  onLoggedOut = fn;
}

/** One call; resolves with the JSON answer, rejects with an ApiError. */
export async function api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/console/api${path}`, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: body instanceof Blob ? body : JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, 'The gateway cannot be reached. Is it running, and is this device on its network?');
  }
  let data: Record<string, unknown> = {};
  try {
    data = (await res.json()) as Record<string, unknown>;
  } catch {
    // an empty or non-JSON answer: the status says enough
  }
  if (res.status === 401 && !path.startsWith('/auth/')) onLoggedOut();
  if (!res.ok) {
    const words = typeof data.error === 'string' ? data.error : `the gateway answered ${res.status}`;
    throw new ApiError(res.status, words);
  }
  return data as T;
}

/** Sends a file's bytes as they are (a backup to restore). */
export async function upload<T>(path: string, file: Blob): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/console/api${path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/octet-stream' },
      body: file,
    });
  } catch {
    throw new ApiError(0, 'The gateway cannot be reached.');
  }
  const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new ApiError(res.status, typeof data.error === 'string' ? data.error : `error ${res.status}`);
  return data as T;
}

/** The words of any failure, as a sentence. */
export function wordsOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.charAt(0).toUpperCase() + text.slice(1);
}
