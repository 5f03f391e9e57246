/**
 * The OpenAPI 3.1 document of the Open API, generated from the route declarations: both trees
 * (v1, v2), every request and answer schema (the very schemas that validate them), the error codes
 * of each route from the error catalog, and auth. Served at `GET /open-api/openapi.json` and
 * written to docs/openapi.json (a test keeps it fresh).
 */
import pkg from '../../../package.json' with { type: 'json' };
import { type ErrorCodeValue, errorMessages } from '../../catalog/errors.ts';
import { type JsonSchema, toJsonSchema } from '../../catalog/json-schema.ts';
import { obj, type Schema } from '../../catalog/schema.ts';
import type { Method, RouteSpec } from './route.ts';

const ALWAYS: readonly ErrorCodeValue[] = [400, 401];

function envelope(data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['error', 'data', 'message'],
    properties: { error: { const: 0 }, data, message: { const: 'success' } },
  };
}

function failure(codes: readonly ErrorCodeValue[]): JsonSchema {
  return {
    type: 'object',
    required: ['error', 'data', 'message'],
    properties: {
      error: { enum: [...codes] },
      data: { type: 'object', maxProperties: 0 },
      message: { type: 'string' },
    },
  };
}

const T1_REPLY: JsonSchema = {
  type: 'object',
  required: ['header', 'payload'],
  properties: {
    header: {
      type: 'object',
      required: ['name', 'message_id', 'version'],
      properties: {
        name: { enum: ['Response', 'ErrorResponse'] },
        message_id: { type: 'string' },
        version: { type: 'string' },
      },
    },
    payload: { type: 'object', description: 'the reply payload, or `{type, description}` of an ErrorResponse' },
  },
};

function operation(spec: RouteSpec, version: string, method: Method, defs: Record<string, JsonSchema>): JsonSchema {
  const codes = spec.auth === 'handler' || spec.envelope === false ? [] : [...ALWAYS, ...(spec.errors ?? [])];
  if (spec.auth === 'none') codes.splice(codes.indexOf(401), 1);
  const parameters: JsonSchema[] = [];
  for (const [name, schema] of Object.entries(spec.params ?? {}))
    parameters.push({ name, in: 'path', required: true, schema: toJsonSchema(schema, defs) });
  for (const [name, schema] of Object.entries(spec.query?.fields ?? {}))
    parameters.push({ name, in: 'query', required: !schema.optional, schema: toJsonSchema(schema, defs) });
  if (spec.auth === 'token-or-query')
    parameters.push({ name: 'access_token', in: 'query', required: false, schema: { type: 'string' } });
  const request: Schema | undefined = spec.body ?? spec.requestDoc;
  const answer = toJsonSchema(spec.answer ?? obj({}), defs);
  const json = 'application/json';
  const ok: JsonSchema =
    spec.envelope === false
      ? { [json]: { schema: T1_REPLY } }
      : spec.produces
        ? { [spec.produces]: {}, [json]: { schema: failure(codes) } }
        : { [json]: { schema: codes.length > 0 ? { oneOf: [envelope(answer), failure(codes)] } : envelope(answer) } };
  return {
    operationId: `${spec.id}-${method.toLowerCase()}-${version}`,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.id.startsWith('X-') ? 'opencube' : spec.id.replace(/\d+$/, '')],
    'x-spec-id': spec.id,
    ...(codes.length > 0 ? { 'x-error-codes': codes.map((code) => ({ code, message: errorMessages[code] })) } : {}),
    security:
      spec.auth === 'none'
        ? []
        : spec.auth === 'token-or-query'
          ? [{ bearer: [] }, { queryToken: [] }]
          : [{ bearer: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(request
      ? { requestBody: { required: false, content: { [json]: { schema: toJsonSchema(request, defs) } } } }
      : {}),
    responses: {
      200: {
        description:
          spec.envelope === false
            ? 'a Response or an ErrorResponse (always HTTP 200)'
            : 'the envelope: a success, or a failure with one of the error codes (always HTTP 200)',
        content: ok,
      },
    },
  };
}

/** The document. */
export function openApiDocument(routes: readonly RouteSpec[]): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  /** The named schemas, given once and referred to (the automations' definitions). */
  const schemas: Record<string, JsonSchema> = {};
  for (const version of ['v1', 'v2']) {
    for (const spec of routes) {
      const path = `/open-api/${version}/rest${spec.path}`;
      const item = paths[path] ?? {};
      paths[path] = item;
      for (const method of Array.isArray(spec.method) ? spec.method : [spec.method as Method])
        item[method.toLowerCase()] = operation(spec, version, method, schemas);
    }
    paths[`/open-api/${version}/sse/bridge`] = {
      get: {
        operationId: `sse-${version}`,
        summary: 'The event stream (see the AsyncAPI document: /open-api/asyncapi.json)',
        'x-spec-id': 'SSE',
        security: [{ queryToken: [] }],
        parameters: [
          { name: 'access_token', in: 'query', required: true, schema: { type: 'string' } },
          { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } },
        ],
        responses: {
          200: { description: 'server-sent events', content: { 'text/event-stream': {} } },
          401: {
            description: 'an invalid token: EventSource clients stop instead of retrying',
            content: { 'application/json': { schema: failure([401]) } },
          },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'opencube: the local Open API of a smart-home gateway',
      version: pkg.version,
      description:
        "Every REST path exists under /open-api/v1/rest and /open-api/v2/rest (the version segment in any case). Every failure is HTTP 200 with the envelope `{error, data: {}, message}`; an unknown path is HTTP 404 with the envelope. x-spec-id names the endpoint in the specification (G1..G9, D1..D6, S1..S5, T1, T3); X- ids are this gateway's own.",
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'a token from G1' },
        queryToken: { type: 'apiKey', in: 'query', name: 'access_token' },
      },
      ...(Object.keys(schemas).length > 0 ? { schemas } : {}),
    },
    paths,
  };
}
