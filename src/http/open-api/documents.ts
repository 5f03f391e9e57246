/** The generated documents of the Open API as files: docs/openapi.json and docs/asyncapi.json (npm run docs). */
import { asyncApiDocument } from './asyncapi.ts';
import { openApiDocument } from './openapi.ts';
import { openApiRoutes } from './plugin.ts';
import type { OpenApiServices } from './services.ts';

/** The route declarations with services that are never called (the documents need only the declarations). */
function declarations() {
  return openApiRoutes({} as OpenApiServices);
}

/** docs/openapi.json. */
export function openApiJson(): string {
  return `${JSON.stringify(openApiDocument(declarations()), null, 2)}\n`;
}

/** docs/asyncapi.json. */
export function asyncApiJson(): string {
  return `${JSON.stringify(asyncApiDocument(), null, 2)}\n`;
}
