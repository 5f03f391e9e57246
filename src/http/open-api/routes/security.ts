/**
 * The security module (spec 4.3): S1-S5, through the alarm (exit delays; a disarm stops an alarm);
 * and beyond the spec the alarm's state and each mode's alarm settings (docs/security.md).
 */
import { any, int, obj, oneOf, str } from '../../../catalog/schema.ts';
import { ALARM_SOUNDS, CONFIG_PATCH_SCHEMA, WATCHED_SCHEMA } from '../../../core/alarm/index.ts';
import { done, failed, type RouteSpec, route } from '../route.ts';
import type { OpenApiServices } from '../services.ts';
import { securityList } from '../wire.ts';

const sid = { security_id: str({ pattern: /^\d{1,9}$/, patternDoc: 'a security mode id' }) };

const delay = int({ min: 0, max: 3600, unit: 's' });
const configFields = {
  exit_delay: delay,
  entry_delay: delay,
  alarm_sound: oneOf(...ALARM_SOUNDS),
  alarm_duration: int({ min: -1, max: 3600, unit: 's', doc: 'seconds the alarm rings; -1 until cancelled' }),
  devices: WATCHED_SCHEMA,
};
const modeConfig = obj({ sid: int(), name: str(), ...configFields });

/** S1-S5 and the alarm's own routes. */
export function securityRoutes(s: OpenApiServices): RouteSpec[] {
  const unknown = (id: string) => failed(400, `security_id: no security mode with sid ${Number(id)}`);
  return [
    route({
      id: 'S1',
      method: 'GET',
      path: '/security',
      summary: 'The security modes',
      auth: 'token',
      answer: securityList,
      handle: () => done({ security_list: s.security.list() }),
    }),
    // S4, S5 and the alarm's state are static paths, so they win over the parametric ones.
    route({
      id: 'S4',
      method: 'PUT',
      path: '/security/enable',
      summary: 'Arm the default mode (one-click), after its exit delay',
      auth: 'token',
      handle({ actor }) {
        s.alarm.armDefault(actor);
        return done();
      },
    }),
    route({
      id: 'S5',
      method: 'PUT',
      path: '/security/disable',
      summary: 'Disarm every mode (stops a pending or sounding alarm)',
      auth: 'token',
      handle({ actor }) {
        s.alarm.disarmAll(actor);
        return done();
      },
    }),
    route({
      id: 'X-alarm-status',
      method: 'GET',
      path: '/security/alarm',
      summary: "The alarm's stage, state, mode, trigger and when the running delay or alarm ends",
      auth: 'token',
      answer: obj({
        stage: oneOf('disarmed', 'exit_delay', 'armed', 'entry_delay', 'alarming'),
        alarm_state: oneOf('normal', 'alarming'),
        mode: any('{sid, name} or null'),
        ends_at: any('ISO 8601 date, or null'),
        trigger: any(
          '{serial_number, capability, device_offline?} or null (device_offline: true when the device showed offline as it reported)',
        ),
        sound: any('the sound ringing, or null'),
      }),
      handle: () => done(s.alarm.status()),
    }),
    route({
      id: 'S2',
      method: 'PUT',
      path: '/security/{security_id}/enable',
      summary: 'Arm one mode (the mode armed before is disarmed), after its exit delay',
      auth: 'token',
      params: sid,
      handle: ({ params, actor }) =>
        s.alarm.arm(Number(params.security_id), actor).ok ? done() : unknown(params.security_id),
    }),
    route({
      id: 'S3',
      method: 'PUT',
      path: '/security/{security_id}/disable',
      summary: 'Disarm one mode (stops its pending or sounding alarm)',
      auth: 'token',
      params: sid,
      handle: ({ params, actor }) =>
        s.alarm.disarm(Number(params.security_id), actor).ok ? done() : unknown(params.security_id),
    }),
    route({
      id: 'X-alarm-config',
      method: 'GET',
      path: '/security/{security_id}/config',
      summary: "A mode's alarm settings",
      auth: 'token',
      params: sid,
      answer: modeConfig,
      handle({ params }) {
        const r = s.alarm.config(Number(params.security_id));
        return r.ok ? done(r.config) : unknown(params.security_id);
      },
    }),
    route({
      id: 'X-alarm-configure',
      method: 'PUT',
      path: '/security/{security_id}/config',
      summary: "Change a mode's alarm settings (only the fields given)",
      auth: 'token',
      params: sid,
      // Checked by the alarm (its schema, then the devices it names: they must exist and be able to trigger).
      requestDoc: CONFIG_PATCH_SCHEMA,
      answer: modeConfig,
      handle({ params, body }) {
        const r = s.alarm.configure(Number(params.security_id), body);
        if (r.ok) return done(r.config);
        return r.reason === 'unknown_sid' ? unknown(params.security_id) : failed(400, r.errors.join('; '));
      },
    }),
  ];
}
