/**
 * The Matter bridge as an integration. It is always loaded (this file is small), because the
 * console's switch may turn the bridge on at any time; matter.js itself is loaded only when the
 * bridge starts (index.ts). The bridge runs as the switch last said (kept in the store), else as
 * the setting `matter.enabled` says. Its turns (a click, the start, a factory reset) run one at a
 * time: a second click waits for the first. It follows a rename of the gateway at once
 * (`gateway#renamed`), and adds the console's routes of the bridge.
 */

import { ErrorCode } from '../../catalog/errors.ts';
import { bool, obj, str } from '../../catalog/schema.ts';
import type { Integration, IntegrationContext } from '../../core/integration.ts';
import { answered, type RouteAnswer, type RouteDecl, refused } from '../../core/route.ts';
import type { Settings } from '../../settings/index.ts';
import type { MatterHandle, MatterStatus } from './index.ts';
import type { MatterView } from './view.ts';

/** A request that needs the bridge while it is off (409 in the console). */
const OFF = refused(ErrorCode.SERVER_ERROR, 'the Matter bridge is off', 409);

/** Where the store keeps the console's switch. */
const SWITCH_KEY = 'matter_enabled';

export class MatterIntegration implements Integration<Settings> {
  private handle: MatterHandle | undefined;
  /** While the bridge starts, the CLI and the console say "starting" rather than "off". */
  private starting = false;
  private turns: Promise<unknown> = Promise.resolve();
  private unsubscribe: (() => void) | undefined;
  private ctx: IntegrationContext<Settings> | undefined;

  /** Runs `fn` after the bridge's earlier turns (a click, the start, a reset), one at a time. */
  private inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const turn = this.turns.then(fn);
    this.turns = turn.catch(() => {});
    return turn;
  }

  private context(): IntegrationContext<Settings> {
    if (!this.ctx) throw new Error('the Matter integration is not started');
    return this.ctx;
  }

  private async startNow(): Promise<void> {
    if (this.handle) return;
    const ctx = this.context();
    this.starting = true;
    try {
      // Loaded only when on: nothing of matter.js is in a gateway that does not use it.
      const { startMatter } = await import('./index.ts');
      const name = ctx.settings.name;
      const { devices } = ctx.core;
      this.handle = await startMatter({
        ...ctx.settings.matter,
        gatewayName: name,
        version: ctx.version,
        db: ctx.db,
        registry: devices.registry,
        devices: { update: (serial, body) => devices.update(serial, body, { kind: 'matter' }) },
        bus: ctx.bus,
        log: ctx.log,
        clock: ctx.clock,
      });
      // A rename while it started reached no bridge yet.
      if (ctx.settings.name !== name) await this.handle.rename(ctx.settings.name);
    } finally {
      this.starting = false;
    }
  }

  private async stopNow(): Promise<boolean> {
    const running = this.handle;
    this.handle = undefined;
    await running?.stop();
    return running !== undefined;
  }

  /** Turns the bridge on or off now, and keeps the choice for the next starts. */
  switch(on: boolean): Promise<void> {
    return this.inTurn(async () => {
      const ctx = this.context();
      if (on) await this.startNow();
      else await this.stopNow();
      ctx.kv.set(SWITCH_KEY, on);
      ctx.log.info({}, on ? 'Matter bridge turned on' : 'Matter bridge turned off');
    });
  }

  async start(ctx: IntegrationContext<Settings>): Promise<void> {
    this.ctx = ctx;
    this.unsubscribe = ctx.bus.subscribe((e) => {
      if (e.name !== 'gateway#renamed') return;
      const name = (e.data as { payload: { name: string } }).payload.name;
      this.handle?.rename(name).catch((err) => ctx.log.warn({ err }, 'matter: the new name could not be set'));
    });
    // In the queue of the console's switch: a click while the gateway starts waits for this.
    if (ctx.kv.get<boolean>(SWITCH_KEY, ctx.settings.matter.enabled)) await this.inTurn(() => this.startNow());
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.turns;
    await this.stopNow();
  }

  /** The pairing code, QR payload and fabrics; `starting` while it starts; undefined: off. */
  status(): MatterStatus | { starting: true } | undefined {
    return this.handle?.status() ?? (this.starting ? { starting: true } : undefined);
  }

  /**
   * In turn with the switch: a running bridge stops before its storage is cleared, then starts
   * again as a new bridge (new pairing code, no controllers).
   */
  aroundReset(reset: () => Promise<void>): Promise<void> {
    return this.inTurn(async () => {
      const wasRunning = await this.stopNow();
      await reset();
      if (wasRunning) await this.startNow();
    });
  }

  /** Opens (true) or closes pairing mode for another controller; undefined while the bridge is off. */
  private pairing(open: boolean): Promise<MatterStatus> | undefined {
    const m = this.handle;
    return m && (open ? m.openPairing() : m.closePairing());
  }

  /** `opencube matter open|close` (the control socket). */
  readonly calls = {
    pairing: async (open: unknown) => this.pairing(open === true),
  };

  /** The view once `step` (the switch, pairing mode) is done, or why it could not be (409 in the console). */
  private async viewAfter(step: Promise<unknown>, words: string): Promise<RouteAnswer> {
    try {
      await step;
    } catch (err) {
      return refused(ErrorCode.SERVER_ERROR, `${words}: ${(err as Error).message}`, 409);
    }
    return answered(this.view());
  }

  /** What the console shows of the bridge: off, or its status with the QR code to scan. */
  private view(): MatterView {
    const ctx = this.context();
    const chosen_by = ctx.kv.get<boolean | null>(SWITCH_KEY, null) === null ? 'setting' : 'console';
    const m = this.handle;
    if (m) return { enabled: true, chosen_by, ...m.status(), qr_svg: m.qrSvg() };
    return this.starting ? { enabled: false, chosen_by, starting: true } : { enabled: false, chosen_by };
  }

  routes(ctx: IntegrationContext<Settings>): { console: RouteDecl[] } {
    // Asked for before the gateway listens: a request may come before start().
    this.ctx = ctx;
    return {
      console: [
        {
          method: 'GET',
          path: '/matter',
          summary: 'The Matter bridge: off, starting, or its pairing code, QR code and controllers',
          handle: () => answered(this.view()),
        },
        {
          method: 'PUT',
          path: '/matter',
          summary: 'Turns the Matter bridge on or off (kept in the store: it stays so across restarts)',
          body: obj({ enabled: bool() }),
          handle: ({ body }) => this.viewAfter(this.switch(body.enabled), 'the Matter bridge could not start'),
        },
        {
          method: 'POST',
          path: '/matter/pairing',
          summary: 'Opens pairing mode again for another controller: the same code works for 15 minutes',
          handle: () => {
            const opened = this.pairing(true);
            return opened ? this.viewAfter(opened, 'pairing mode could not be opened') : OFF;
          },
        },
        {
          method: 'DELETE',
          path: '/matter/pairing',
          summary: 'Closes pairing mode opened for another controller',
          handle: () => {
            const closed = this.pairing(false);
            return closed ? this.viewAfter(closed, 'pairing mode could not be closed') : OFF;
          },
        },
        {
          method: 'DELETE',
          path: '/matter/fabrics/{index}',
          summary: 'Removes a controller (fabric) from the bridge',
          params: { index: str({ maxLength: 3 }) },
          handle: async ({ params }) => {
            const m = this.handle;
            if (!m) return OFF;
            const index = Number(params.index);
            if (!/^[1-9][0-9]*$/.test(params.index) || index > 254)
              return refused(
                ErrorCode.INVALID_PARAMETERS,
                `index: ${JSON.stringify(params.index)} is not a fabric index (1..254)`,
              );
            return (await m.removeFabric(index))
              ? answered({ removed: index })
              : refused(ErrorCode.NOT_FOUND, 'no controller has this fabric index (already removed?)');
          },
        },
      ],
    };
  }
}
