/** Security in the console: the modes with their alarm settings, arming, disarming, the alarm live, cancelling it. */
import { obj, str } from '../../../catalog/schema.ts';
import {
  ALARM_SOUNDS,
  INTRUSION,
  LIFE_SAFETY,
  TRIGGER_CAPABILITIES,
  watchedSensors,
} from '../../../core/alarm/index.ts';
import { type ConsoleRoute, consoleRoute, ok, refuse } from '../route.ts';
import type { ConsoleServices } from '../services.ts';

const sid = { sid: str({ pattern: /^\d{1,9}$/, patternDoc: 'a security mode id' }) };
const triggers: ReadonlySet<string> = new Set(TRIGGER_CAPABILITIES);

export function securityRoutes(s: ConsoleServices): ConsoleRoute[] {
  const unknown = (id: string) => refuse(404, `there is no security mode ${Number(id)}`);
  const overview = () => {
    const all = s.devices.registry.list();
    return {
      // Each mode with the sensors it watches now (by name): what arming it means.
      modes: s.security.list().map((m) => {
        const c = s.alarm.config(m.sid);
        const watching = c.ok
          ? watchedSensors(c.config.devices, all).map((w) => ({
              serial_number: w.device.serial_number,
              name: w.device.name,
              kinds: w.kinds,
            }))
          : [];
        return { ...m, config: c.ok ? c.config : null, watching };
      }),
      alarm: s.alarm.status(),
      sounds: ALARM_SOUNDS,
      // The kinds a mode can watch, and the devices it can list: those with a detection capability.
      kinds: Object.keys(INTRUSION),
      // Smoke, gas and leak detectors ring in every mode, armed or not.
      always: all
        .filter((d) => d.capabilities.some((c) => c.capability in LIFE_SAFETY))
        .map((d) => ({ serial_number: d.serial_number, name: d.name })),
      sensors: all
        .filter((d) => d.capabilities.some((c) => triggers.has(c.capability)))
        .map((d) => ({
          serial_number: d.serial_number,
          name: d.name,
          display_category: d.display_category,
          kinds: d.capabilities.map((c) => c.capability).filter((c) => c in INTRUSION),
        })),
    };
  };
  return [
    consoleRoute({ method: 'GET', path: '/security', auth: 'session', handle: () => ok(overview()) }),
    consoleRoute({
      method: 'POST',
      path: '/security/{sid}/arm',
      auth: 'session',
      params: sid,
      handle: ({ params, actor }) => (s.alarm.arm(Number(params.sid), actor).ok ? ok(overview()) : unknown(params.sid)),
    }),
    consoleRoute({
      method: 'POST',
      path: '/security/{sid}/disarm',
      auth: 'session',
      params: sid,
      handle: ({ params, actor }) =>
        s.alarm.disarm(Number(params.sid), actor).ok ? ok(overview()) : unknown(params.sid),
    }),
    consoleRoute({
      method: 'POST',
      path: '/security/disarm',
      auth: 'session',
      handle({ actor }) {
        s.alarm.disarmAll(actor);
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
      handle({ actor }) {
        s.alarm.cancel(actor);
        s.speaker.cancelSound();
        return ok(overview());
      },
    }),
  ];
}
