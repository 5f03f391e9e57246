/**
 * The Matter bridge in the console (docs/matter.md): its pairing code and QR payload while it can
 * be added to a controller, the controllers (fabrics) that have it, and removing one of them.
 */
import { str } from '../../../catalog/schema.ts';
import { type ConsoleRoute, consoleRoute, ok, refuse } from '../route.ts';
import type { ConsoleServices } from '../services.ts';

export function matterRoutes(s: ConsoleServices): ConsoleRoute[] {
  return [
    consoleRoute({
      method: 'GET',
      path: '/matter',
      auth: 'session',
      handle: () => {
        const m = s.matter();
        return ok(m ? { enabled: true, ...m.status() } : { enabled: false });
      },
    }),
    consoleRoute({
      method: 'DELETE',
      path: '/matter/fabrics/{index}',
      auth: 'session',
      params: { index: str({ maxLength: 3 }) },
      handle: async ({ params }) => {
        const m = s.matter();
        if (!m) return refuse(409, 'the Matter bridge is off');
        const index = Number(params.index);
        if (!/^[1-9][0-9]*$/.test(params.index) || index > 254)
          return refuse(400, `index: ${JSON.stringify(params.index)} is not a fabric index (1..254)`);
        return (await m.removeFabric(index))
          ? ok({ removed: index })
          : refuse(404, 'no controller has this fabric index (already removed?)');
      },
    }),
  ];
}
