/**
 * The Matter bridge in the console (docs/matter.md): turning it on and off, its pairing code and
 * QR code while it can be added to a controller, pairing mode opened again for another
 * controller, the controllers (fabrics) that have it, and removing one of them.
 */
import { bool, obj, str } from '../../../catalog/schema.ts';
import { type ConsoleRoute, consoleRoute, ok, refuse } from '../route.ts';
import type { ConsoleServices } from '../services.ts';
import type { MatterView } from '../views.ts';

export function matterRoutes(s: ConsoleServices): ConsoleRoute[] {
  return [
    consoleRoute({
      method: 'GET',
      path: '/matter',
      auth: 'session',
      handle: () => ok(matterView(s)),
    }),
    consoleRoute({
      method: 'PUT',
      path: '/matter',
      auth: 'session',
      body: obj({ enabled: bool() }),
      // Kept in the store: the bridge stays as the console left it across restarts.
      handle: async ({ body }) => {
        try {
          await s.switchMatter(body.enabled);
        } catch (err) {
          return refuse(409, `the Matter bridge could not start: ${(err as Error).message}`);
        }
        return ok(matterView(s));
      },
    }),
    consoleRoute({
      method: 'POST',
      path: '/matter/pairing',
      auth: 'session',
      // Pairing mode again, for another controller: the same code works for 15 minutes.
      handle: async () => {
        const m = s.matter();
        if (!m) return refuse(409, 'the Matter bridge is off');
        try {
          await m.openPairing();
        } catch (err) {
          return refuse(409, `pairing mode could not be opened: ${(err as Error).message}`);
        }
        return ok(matterView(s));
      },
    }),
    consoleRoute({
      method: 'DELETE',
      path: '/matter/pairing',
      auth: 'session',
      handle: async () => {
        const m = s.matter();
        if (!m) return refuse(409, 'the Matter bridge is off');
        await m.closePairing();
        return ok(matterView(s));
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

/** What the console shows of the bridge: off, or its status with the QR code to scan. */
function matterView(s: ConsoleServices): MatterView {
  const m = s.matter();
  const chosen_by = s.matterChosenBy();
  if (m) return { enabled: true, chosen_by, ...m.status(), qr_svg: m.qrSvg() };
  return s.matterStarting() ? { enabled: false, chosen_by, starting: true } : { enabled: false, chosen_by };
}
