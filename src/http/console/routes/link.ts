/**
 * Access requests (spec 3): every app that polls G1 without approval shows as a pop-up on every
 * console; approving or denying it on one closes it on the others (the token service publishes
 * the new waiting list). Approve gives that app its token on its next poll; deny keeps it
 * refused for the window. Pressing the link button (as `opencube link` does) approves the apps
 * waiting at that moment, which it names, or the first app that asks if none was (TokenService).
 */
import { obj, str } from '../../../catalog/schema.ts';
import { type ConsoleRoute, consoleRoute, ok } from '../route.ts';
import type { ConsoleServices } from '../services.ts';

const app = obj({ app_name: str({ maxLength: 200, doc: "the app's name as it polls; '' for none" }) }, { open: true });

export function linkRoutes(s: ConsoleServices): ConsoleRoute[] {
  return [
    consoleRoute({
      method: 'GET',
      path: '/link',
      auth: 'session',
      handle: () => ok({ waiting: s.tokens.waitingApps(), window: s.tokens.windowState() }),
    }),
    consoleRoute({
      method: 'POST',
      path: '/link/approve',
      auth: 'session',
      body: app,
      handle: ({ body }) => ok(s.tokens.approve(body.app_name)),
    }),
    consoleRoute({
      method: 'POST',
      path: '/link/deny',
      auth: 'session',
      body: app,
      handle: ({ body, actor }) => ok(s.tokens.deny(body.app_name, actor)),
    }),
    consoleRoute({
      method: 'POST',
      path: '/link/press',
      auth: 'session',
      handle: ({ actor }) => ok(s.tokens.press(actor)),
    }),
  ];
}
