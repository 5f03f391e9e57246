import type { FastifyInstance } from 'fastify';
import { ApiError } from '../catalog/errors.ts';
import { UNPAIRED } from '../lib/text.ts';

/** Nesting depth past which a JSON body is refused (guards the validators' recursion). */
const MAX_DEPTH = 64;

/** A `\uXXXX` escape of a surrogate: only such escapes can put an unpaired one in parsed JSON. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** The first string (key or value) holding an unpaired surrogate, if any. */
function unpairedSurrogate(value: unknown): string | undefined {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (UNPAIRED.test(v)) return v;
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (UNPAIRED.test(k)) return k;
        stack.push(child);
      }
    }
  }
  return undefined;
}

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
  // Such a string is not Unicode text: the store (UTF-8) would keep another string than the one
  // acknowledged, and a restart would show it changed.
  const unpaired = SURROGATE_ESCAPE.test(text) ? unpairedSurrogate(value) : undefined;
  if (unpaired !== undefined)
    throw new ApiError(400, `body: the string ${JSON.stringify(unpaired.slice(0, 40))} holds an unpaired surrogate`);
  return value;
}

const TOKEN = /^[\w!#$%&'*+.^`|~-]+$/;

/** Whether Fastify can parse a Content-Type header as a media type (`type/subtype[;params]`). */
export function isValidMediaType(header: string): boolean {
  const media = header.split(';', 1)[0] as string;
  const slash = media.indexOf('/');
  if (slash === -1) return false;
  return TOKEN.test(media.slice(0, slash).trimStart()) && TOKEN.test(media.slice(slash + 1).trimEnd());
}

/**
 * Installs one body parser for every Content-Type: clients send `application/json` on empty
 * bodies, and some send JSON as text/plain or with no type at all.
 */
export function installBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  // Fastify answers a malformed Content-Type (`''`, `json`, `;`) with 415 before any parser runs,
  // even on an empty body. The type does not matter here (every body is JSON), so such a header
  // is read as JSON: an empty body is then `{}` and a non-JSON body a 400 naming the problem.
  app.addHook('onRequest', (req, _reply, done) => {
    const type = req.headers['content-type'];
    if (type !== undefined && !isValidMediaType(type)) req.headers['content-type'] = 'application/json';
    done();
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    // An unknown path is a 404 whatever its body: do not let a bad body turn it into a 400.
    if (req.is404) return done(null, undefined);
    try {
      done(null, parseBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
