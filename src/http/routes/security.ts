import type { RestModule } from '../app.ts';
import type { HttpContext } from '../context.ts';
import { badRequest, ok } from '../envelope.ts';

function sidParam(raw: string): number {
  if (!/^\d{1,9}$/.test(raw)) badRequest(`security_id: ${JSON.stringify(raw)} is not a security mode id`);
  return Number(raw);
}

/** Security module: S1-S5. */
export function securityRoutes(ctx: HttpContext): RestModule {
  return (app, auth) => {
    app.get('/security', { preHandler: auth }, async () => ok({ security_list: ctx.security.list() }));

    // S4 and S5 are static paths, so they win over the parametric ones below.
    app.put('/security/enable', { preHandler: auth }, async () => {
      ctx.security.enableDefault();
      ctx.speaker.rearm();
      return ok();
    });
    app.put('/security/disable', { preHandler: auth }, async () => {
      ctx.security.disableAll();
      return ok();
    });

    app.put('/security/:sid/enable', { preHandler: auth }, async (req) => {
      const sid = sidParam((req.params as { sid: string }).sid);
      const result = ctx.security.enable(sid);
      if (!result.ok) badRequest(`security_id: no security mode with sid ${sid}`);
      ctx.speaker.rearm();
      return ok();
    });
    app.put('/security/:sid/disable', { preHandler: auth }, async (req) => {
      const sid = sidParam((req.params as { sid: string }).sid);
      const result = ctx.security.disable(sid);
      if (!result.ok) badRequest(`security_id: no security mode with sid ${sid}`);
      return ok();
    });
  };
}
