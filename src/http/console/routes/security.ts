/** Security in the console: the modes with their alarm settings, arming, disarming, the alarm live, cancelling it. */
import { obj, str } from '../../../catalog/schema.ts';
import { ALARM_SOUNDS, TRIGGER_CAPABILITIES } from '../../../core/alarm/index.ts';
import { type ConsoleRoute, consoleRoute, ok, refuse } from '../route.ts';
import type { ConsoleServices } from '../services.ts';

const sid = { sid: str({ pattern: /^\d{1,9}$/, patternDoc: 'a security mode id' }) };
const triggers: ReadonlySet<string> = new Set(TRIGGER_CAPABILITIES);

export function securityRoutes(s: ConsoleServices): ConsoleRoute[] {
  const unknown = (id: string) => refuse(404, `there is no security mode ${Number(id)}`);
  const overview = () => ({
    modes: s.security.list().map((m) => {
      const c = s.alarm.config(m.sid);
      return { ...m, config: c.ok ? c.config : null };
    }),
    alarm: s.alarm.status(),
    sounds: ALARM_SOUNDS,
    // The devices a mode can list as its triggers: those with a detection capability.
    sensors: s.devices.registry
      .list()
      .filter((d) => d.capabilities.some((c) => triggers.has(c.capability)))
      .map((d) => ({ serial_number: d.serial_number, name: d.name, display_category: d.display_category })),
  });
  return [
    consoleRoute({ method: 'GET', path: '/security', auth: 'session', handle: () => ok(overview()) }),
    consoleRoute({
      method: 'POST',
      path: '/security/{sid}/arm',
      auth: 'session',
      params: sid,
      handle: ({ params }) => (s.alarm.arm(Number(params.sid)).ok ? ok(overview()) : unknown(params.sid)),
    }),
    consoleRoute({
      method: 'POST',
      path: '/security/{sid}/disarm',
      auth: 'session',
      params: sid,
      handle: ({ params }) => (s.alarm.disarm(Number(params.sid)).ok ? ok(overview()) : unknown(params.sid)),
    }),
    consoleRoute({
      method: 'POST',
      path: '/security/disarm',
      auth: 'session',
      handle() {
        s.alarm.disarmAll();
        return ok(overview());
      },
    }),
    consoleRoute({
      method: 'PUT',
      path: '/security/{sid}/config',
      auth: 'session',
      params: sid,
      // Checked by the alarm against the devices it names (they must exist and be able to trigger).
      body: obj({}, { open: true }),
      handle({ params, body }) {
        const r = s.alarm.configure(Number(params.sid), body);
        if (r.ok) return ok(overview());
        return r.reason === 'unknown_sid' ? unknown(params.sid) : refuse(400, r.errors.join('; '));
      },
    }),
    consoleRoute({
      method: 'POST',
      path: '/alarm/cancel',
      auth: 'session',
      handle() {
        s.alarm.cancel();
        s.speaker.cancelSound();
        return ok(overview());
      },
    }),
  ];
}
