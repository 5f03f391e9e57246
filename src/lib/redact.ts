/**
 * What must never reach a log: access tokens, passwords, and the credentials inside URLs (a camera's
 * `rtsp://user:password@host`, a service address with a password, an MQTT URL with one, an event
 * stream URL with `?access_token=`). Secrets are recognised by the key that holds them and, inside
 * any string, by their shape; the logger (lib/logger.ts) passes every log line through here.
 */

/** Keys whose values are secrets whatever they hold (compared in lower case, `-` as `_`). */
const SECRET_KEYS = new Set([
  'token',
  'access_token',
  'accesstoken',
  'password',
  'passwd',
  'authorization',
  'cookie',
  'set_cookie',
  'secret',
  'credentials',
  'api_key',
  'apikey',
]);

export const REDACTED = '[redacted]';

/** `scheme://user:password@` (the password part), and `access_token=...` in a query string. */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*):[^\s/?#@]*@/gi;
const QUERY_TOKEN = /([?&](?:access_token|token|password)=)[^&\s#"']*/gi;

/** Whether a key names a secret. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key.toLowerCase().replace(/-/g, '_'));
}

/** The text with the passwords of URLs and the tokens of query strings replaced. */
export function redactText(text: string): string {
  if (!text.includes('://') && !text.includes('=')) return text;
  return text.replace(URL_PASSWORD, `$1:${REDACTED}@`).replace(QUERY_TOKEN, `$1${REDACTED}`);
}

/** Deepest level walked; anything deeper is summarised (a log line is not a data dump). */
const MAX_DEPTH = 8;

/**
 * A copy of a log value with every secret replaced; the value itself is not changed (a caller's
 * error or device record stays as it was). Errors become `{type, message, stack, code}`.
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[deep]';
  if (value instanceof Error) {
    const e = value as Error & { code?: unknown; cause?: unknown };
    const out: Record<string, unknown> = {
      type: e.name,
      message: redactText(e.message),
      stack: redactText(e.stack ?? ''),
    };
    if (e.code !== undefined) out.code = e.code;
    if (e.cause !== undefined) out.cause = redactValue(e.cause, depth + 1);
    return out;
  }
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = isSecretKey(k) && v ? REDACTED : redactValue(v, depth + 1);
  return out;
}
