/**
 * The AsyncAPI 3 document of the Open API's event stream, generated from its declarations
 * (events.ts): every event name and the schema of its `data`. Served at
 * `GET /open-api/asyncapi.json` and written to docs/asyncapi.json (a test keeps it fresh).
 */
import pkg from '../../../package.json' with { type: 'json' };
import { type JsonSchema, toJsonSchema } from '../../catalog/json-schema.ts';
import { GAP_EVENT, GAP_EVENT_DATA, OPEN_API_EVENTS, type OpenApiEvents } from './events.ts';

/** The document: the gateway's events, and those the integrations add. */
export function asyncApiDocument(extra: OpenApiEvents = {}): JsonSchema {
  const messages: Record<string, JsonSchema> = {};
  const add = (key: string, name: string, summary: string, data: JsonSchema) => {
    messages[key] = {
      name,
      summary,
      contentType: 'application/json',
      description: `SSE event \`${name}\` (the version is the stream's: v1 or v2); \`data\` is one line of JSON.`,
      payload: data,
    };
  };
  for (const [name, e] of Object.entries({ ...OPEN_API_EVENTS, ...extra })) {
    if (!e) continue;
    const [module, type] = name.split('#') as [string, string];
    add(`${module}_${type}`, `${module}#{version}#${type}`, e.summary, toJsonSchema(e.data));
  }
  add(
    `bridge_${GAP_EVENT}`,
    `bridge#{version}#${GAP_EVENT}`,
    'Events a resuming client missed are no longer kept (its Last-Event-ID is older than the replay ring)',
    toJsonSchema(GAP_EVENT_DATA),
  );
  const refs = Object.fromEntries(Object.keys(messages).map((k) => [k, { $ref: `#/components/messages/${k}` }]));
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'opencube: the event stream of the Open API',
      version: pkg.version,
      description:
        'GET /open-api/{v1,v2}/sse/bridge?access_token=<token>. Each event has an `id` (rising, also across restarts), an `event` name and ONE `data:` line of JSON; heartbeats are `: ping` comments. A client resumes with Last-Event-ID.',
    },
    channels: {
      bridge: {
        address: '/open-api/{version}/sse/bridge',
        parameters: { version: { enum: ['v1', 'v2'] } },
        messages: refs,
      },
    },
    operations: {
      receiveEvents: {
        action: 'receive',
        channel: { $ref: '#/channels/bridge' },
        messages: Object.keys(messages).map((k) => ({ $ref: `#/channels/bridge/messages/${k}` })),
      },
    },
    components: { messages },
  };
}
