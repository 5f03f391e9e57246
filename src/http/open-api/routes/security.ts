/** The security module (spec 4.3): S1-S5. */
import { str } from '../../../catalog/schema.ts';
import { done, failed, type RouteSpec, route } from '../route.ts';
import type { OpenApiServices } from '../services.ts';
import { securityList } from '../wire.ts';

const sid = { security_id: str({ pattern: /^\d{1,9}$/, patternDoc: 'a security mode id' }) };

/** S1-S5. */
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
    // S4 and S5 are static paths, so they win over the parametric ones.
    route({
      id: 'S4',
      method: 'PUT',
      path: '/security/enable',
      summary: 'Arm the default mode (one-click)',
      auth: 'token',
      handle() {
        s.security.enableDefault();
        s.speaker.rearm();
        return done();
      },
    }),
    route({
      id: 'S5',
      method: 'PUT',
      path: '/security/disable',
      summary: 'Disarm every mode',
      auth: 'token',
      handle() {
        s.security.disableAll();
        return done();
      },
    }),
    route({
      id: 'S2',
      method: 'PUT',
      path: '/security/{security_id}/enable',
      summary: 'Arm one mode (the mode armed before is disarmed)',
      auth: 'token',
      params: sid,
      handle({ params }) {
        if (!s.security.enable(Number(params.security_id)).ok) return unknown(params.security_id);
        s.speaker.rearm();
        return done();
      },
    }),
    route({
      id: 'S3',
      method: 'PUT',
      path: '/security/{security_id}/disable',
      summary: 'Disarm one mode',
      auth: 'token',
      params: sid,
      handle({ params }) {
        if (!s.security.disable(Number(params.security_id)).ok) return unknown(params.security_id);
        return done();
      },
    }),
  ];
}
