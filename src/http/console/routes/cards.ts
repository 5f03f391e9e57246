/**
 * The dashboard: the cards add-ons registered (`ui/cards` of the Open API, src/core/ui-cards.ts),
 * which the console shows as frames of the add-ons' pages, and their removal by the user.
 */
import { str } from '../../../catalog/schema.ts';
import { type ConsoleRoute, consoleRoute, ok, refuse } from '../route.ts';
import type { ConsoleServices } from '../services.ts';

export function cardRoutes(s: ConsoleServices): ConsoleRoute[] {
  return [
    consoleRoute({
      method: 'GET',
      path: '/cards',
      auth: 'session',
      handle: () => ok({ cards: s.cards.list() }),
    }),
    consoleRoute({
      method: 'DELETE',
      path: '/cards/{id}',
      auth: 'session',
      params: { id: str({ maxLength: 64 }) },
      handle: ({ params }) =>
        s.cards.delete(params.id)
          ? ok({ deleted: params.id })
          : refuse(404, 'there is no such card (already removed?)'),
    }),
  ];
}
