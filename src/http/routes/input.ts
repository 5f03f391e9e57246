/**
 * What the two route frameworks of the HTTP layer (the Open API's and the console's) share of a
 * route declaration (src/core/route.ts): the Fastify path of a `{name}` path, and the checks of
 * the request's parts against the declared schemas, in one message grammar (`field: rule`,
 * `body: rule` for a whole part), all problems at once.
 */
import type { FastifyRequest } from 'fastify';
import { compileTop } from '../../catalog/compile-strict.ts';
import type { ObjectSchema, Schema, StringSchema } from '../../catalog/schema.ts';

/** `/devices/{serial}` as Fastify writes it: `/devices/:serial`. */
export function fastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/** The parts of a declaration that the request is checked against. */
export interface Declared {
  params?: Readonly<Record<string, StringSchema>>;
  query?: ObjectSchema;
  body?: Schema;
}

/** The checked parts of a request. */
export interface CheckedInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

/** The compiled check of a request part, when it declares one; messages read `field: rule` (`whole: ...` for the part). */
function checker(schema: Schema | undefined, whole: string): ((v: unknown) => string[]) | undefined {
  return schema ? compileTop(schema, whole) : undefined;
}

/**
 * The checks of a declaration's request parts, compiled once. `params` maps Fastify's path
 * parameters to the handler's (the Open API gives none to a route that declares none, and leaves
 * out its version segment).
 */
export function compileChecks(
  spec: Declared,
  params: (path: Record<string, string>) => Record<string, string>,
): (req: FastifyRequest) => { input: CheckedInput; errors: string[] } {
  const p = checker(spec.params ? { kind: 'object', fields: spec.params, open: true } : undefined, 'path');
  const q = checker(spec.query && { ...spec.query, open: true }, 'query');
  const b = checker(spec.body, 'body');
  const none: string[] = [];
  // Every request passes here (GET bridge is polled): no copies or arrays it does not need.
  return (req) => {
    const input = {
      params: params((req.params ?? {}) as Record<string, string>),
      query: (req.query ?? {}) as Record<string, unknown>,
      body: req.body === undefined || req.body === null ? {} : req.body,
    };
    if (!p && !q && !b) return { input, errors: none };
    const errors = [p?.(input.params), q?.(input.query), b?.(input.body)].flatMap((e) => e ?? []);
    return { input, errors };
  };
}
