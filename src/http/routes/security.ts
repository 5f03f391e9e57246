import type { RestModule } from '../app.ts';
import type { HttpContext } from '../context.ts';
import { badRequest, ok } from '../envelope.ts';

function sidParam(raw: string): number {
  if (!/^\d{1,9}$/.test(raw)) badRequest(`security_id: ${JSON.stringify(raw)} is not a security mode id`);
  return Number(raw);
}

function unknownSid(sid: number): never {
  badRequest(`security_id: no security mode with sid ${sid}`);
}

/**
 * Security module: S1-S5, through the alarm (exit delays, stopping alarms on a disarm), and
 * beyond the spec the alarm's state and each mode's alarm settings (docs/security.md).
 */
export function securityRoutes(ctx: HttpContext): RestModule {
  return (app, auth) => {
    app.get('/security', { preHandler: auth }, async () => ok({ security_list: ctx.security.list() }));

    // S4 and S5 are static paths, so they win over the parametric ones below.
    app.put('/security/enable', { preHandler: auth }, async () => {
      ctx.alarm.armDefault();
      return ok();
    });
    app.put('/security/disable', { preHandler: auth }, async () => {
      ctx.alarm.disarmAll();
      return ok();
    });
    app.get('/security/alarm', { preHandler: auth }, async () => ok(ctx.alarm.status()));

    app.put('/security/:sid/enable', { preHandler: auth }, async (req) => {
      const sid = sidParam((req.params as { sid: string }).sid);
      if (!ctx.alarm.arm(sid).ok) unknownSid(sid);
      return ok();
    });
    app.put('/security/:sid/disable', { preHandler: auth }, async (req) => {
      const sid = sidParam((req.params as { sid: string }).sid);
      if (!ctx.alarm.disarm(sid).ok) unknownSid(sid);
      return ok();
    });

    app.get('/security/:sid/config', { preHandler: auth }, async (req) => {
      const sid = sidParam((req.params as { sid: string }).sid);
      const r = ctx.alarm.config(sid);
      if (!r.ok) unknownSid(sid);
      return ok(r.config);
    });
    app.put('/security/:sid/config', { preHandler: auth }, async (req) => {
      const sid = sidParam((req.params as { sid: string }).sid);
      const r = ctx.alarm.configure(sid, req.body ?? {});
      if (!r.ok) return r.reason === 'unknown_sid' ? unknownSid(sid) : badRequest(r.errors.join('; '));
      return ok(r.config);
    });
  };
}
