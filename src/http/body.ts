import type { FastifyInstance } from 'fastify';
import { ApiError } from '../catalog/errors.ts';

/** Nesting depth past which a JSON body is refused (guards the validators' recursion). */
const MAX_DEPTH = 64;

function depthOf(value: unknown, limit: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (d > max) max = d;
    if (max > limit) return max;
    if (v !== null && typeof v === 'object') for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/** Parses a request body: empty (or whitespace) is `{}` whatever the Content-Type; else JSON. */
export function parseBody(text: string): unknown {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, `body is not valid JSON: ${(err as Error).message}`);
  }
  if (depthOf(value, MAX_DEPTH) > MAX_DEPTH) throw new ApiError(400, `body is nested deeper than ${MAX_DEPTH} levels`);
  return value;
}

/**
 * Installs one body parser for every Content-Type: clients send `application/json` on empty
 * bodies, and some send JSON as text/plain or with no type at all.
 */
export function installBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

/** Whether a value is a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Reads the body as an object, or fails with 400 naming what was sent instead. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (!isObject(body))
    throw new ApiError(400, `body must be a JSON object, got ${Array.isArray(body) ? 'an array' : typeof body}`);
  return body;
}
