/**
 * `screen/*`: the paths of the panels' own screen (brightness, display timeout), which clients
 * written for every gateway of this API call (COMPAT.md "seen in clients"). This gateway has no
 * screen: each path answers, with the envelope and HTTP 200, that it is not supported. A .NET
 * client throws on an HTTP 404 (and then tries another port), where an envelope with an error code
 * is an answer it reads: the feature is not there.
 */
import { ErrorCode } from '../../../catalog/errors.ts';
import { str } from '../../../catalog/schema.ts';
import { failed, type RouteSpec, route } from '../route.ts';

/** The screen routes: every method of `screen/{setting}`. */
export function screenRoutes(): RouteSpec[] {
  return [
    route({
      id: 'X-screen',
      method: ['GET', 'PUT', 'POST', 'DELETE'],
      path: '/screen/{setting}',
      summary: "A panel's screen settings (brightness, display): not supported, this gateway has no screen",
      description:
        'Always error 404 in the envelope (HTTP 200): clients read it as "not supported"; an HTTP 404 makes some of them throw or switch port.',
      auth: 'token',
      params: { setting: str({ maxLength: 500 }) },
      errors: [ErrorCode.NOT_FOUND],
      handle: ({ params }) =>
        failed(
          ErrorCode.NOT_FOUND,
          `screen/${params.setting}: not supported (this gateway has no screen; the screen paths are a panel's)`,
        ),
    }),
  ];
}
