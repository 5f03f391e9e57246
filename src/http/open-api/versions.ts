/** The versions of the Open API and the path segment that carries one. */

/** API versions served; every REST and stream path exists under each (COMPAT.md). */
export const API_VERSIONS = ['v1', 'v2'] as const;

/** The path segment of the REST trees: a parameter `version` that only a served version matches. */
export const VERSION_SEGMENT = `:version(^(?:${API_VERSIONS.join('|')})$)`;

/**
 * A route's path as clients see it, for metrics and the list of served routes: the version
 * segment written as the version (`/open-api/v1/rest/devices`), every other parameter kept.
 */
export function routeForVersion(url: string, version: string): string {
  const at = url.indexOf(VERSION_SEGMENT);
  return at < 0 ? url : url.slice(0, at) + version + url.slice(at + VERSION_SEGMENT.length);
}
