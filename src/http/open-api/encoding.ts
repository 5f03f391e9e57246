/** What a client's Accept-Encoding allows (RFC 9110 12.5.3). */

/**
 * Whether `header` accepts gzip: named (also as `x-gzip`) with a weight above 0, or `*` above 0
 * when gzip is not named. No header, or identity only, is no.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  let star = false;
  for (const item of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [name = '', ...params] = item.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    const accepted = Number.isFinite(weight) && weight > 0;
    if (name === 'gzip' || name === 'x-gzip') return accepted;
    if (name === '*') star = accepted;
  }
  return star;
}
