/**
 * The generated documents of the Open API as files: docs/openapi.json and docs/asyncapi.json (npm
 * run docs), with the routes and events the integrations add (given by the caller: the HTTP layer
 * knows no integration).
 */
import type { RouteDecl } from '../../core/route.ts';
import { asyncApiDocument } from './asyncapi.ts';
import type { OpenApiEvents } from './events.ts';
import { openApiDocument } from './openapi.ts';
import { openApiRoutes } from './plugin.ts';
import { openApiRoute } from './route.ts';
import type { OpenApiServices } from './services.ts';

/** What the integrations add to the Open API (src/integrations/load.ts: openApiDeclarations). */
export interface Contributed {
  routes: readonly RouteDecl[];
  events: OpenApiEvents;
}

const NONE: Contributed = { routes: [], events: {} };

/** The route declarations with services that are never called (the documents need only the declarations). */
function declarations(extra: Contributed) {
  return [...openApiRoutes({} as OpenApiServices), ...extra.routes.map(openApiRoute)];
}

/** docs/openapi.json. */
export function openApiJson(extra: Contributed = NONE): string {
  return `${JSON.stringify(openApiDocument(declarations(extra)), null, 2)}\n`;
}

/** docs/asyncapi.json. */
export function asyncApiJson(extra: Contributed = NONE): string {
  return `${JSON.stringify(asyncApiDocument(extra.events), null, 2)}\n`;
}
