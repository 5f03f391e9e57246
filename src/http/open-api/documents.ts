/**
 * The generated documents of the Open API as files: docs/openapi.json and docs/asyncapi.json (npm
 * run docs), with what the integrations every gateway loads add to them (`contributed`: the
 * scenes and automations' and the history's routes, and the automations' events,
 * src/integrations/load.ts `documented()`).
 */
import type { RouteDecl } from '../../core/route.ts';
import { asyncApiDocument } from './asyncapi.ts';
import type { OpenApiEvents } from './events.ts';
import { openApiDocument } from './openapi.ts';
import { openApiRoutes } from './plugin.ts';
import { openApiRoute } from './route.ts';
import type { OpenApiServices } from './services.ts';

/** What integrations add to the documents. */
export interface Contributed {
  routes: readonly RouteDecl[];
  events: OpenApiEvents;
}

/** The route declarations with services that are never called (the documents need only the declarations). */
function declarations() {
  return openApiRoutes({} as OpenApiServices);
}

/** docs/openapi.json. */
export function openApiJson(contributed: Contributed): string {
  const routes = [...declarations(), ...contributed.routes.map(openApiRoute)];
  return `${JSON.stringify(openApiDocument(routes), null, 2)}\n`;
}

/** docs/asyncapi.json. */
export function asyncApiJson(contributed: Contributed): string {
  return `${JSON.stringify(asyncApiDocument(contributed.events), null, 2)}\n`;
}
