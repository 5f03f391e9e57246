/** Secrets kept out of logs. */

/** The URL with the password of its user part replaced (`mqtt://opencube:***@127.0.0.1:1883`). */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^@/]*@/i, '$1:***@');
}
