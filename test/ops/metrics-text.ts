/** Reading the Prometheus text format in tests: a scrape, and one sample's value by name and labels. */
import assert from 'node:assert/strict';
import { call } from '../helpers/foundation.ts';

/** `GET /metrics` (with a token when given); fails unless it is 200. */
export async function scrape(url: string, token?: string): Promise<string> {
  const r = await call(url, 'GET', '/metrics', token ? { token } : {});
  assert.equal(r.status, 200, r.text);
  return r.text;
}

function labelsOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
    out[m[1] as string] = (m[2] as string).replace(/\\(.)/g, '$1');
  return out;
}

/**
 * The value of the sample `name` whose labels include `labels` (the sum when several match), or
 * undefined when none does.
 */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = labelsOf(m[2] ?? '');
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum = (sum ?? 0) + Number(m[3]);
  }
  return sum;
}
