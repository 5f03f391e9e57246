/**
 * The history as an integration of the gateway (src/core/integration.ts): one entry of
 * src/integrations/load.ts, always loaded (with `history.enabled` off it records nothing new, and
 * what it kept stays readable). It reads the bus and the device registry of its context, writes
 * to the one store, keeps days and months in the zone of the setting `time_zone`, serves its API on
 * both surfaces (routes.ts) and clears itself in a factory reset.
 */
import type { Integration, IntegrationContext } from '../core/integration.ts';
import type { RouteDecl } from '../core/route.ts';
import type { Settings } from '../settings/index.ts';
import { History } from './history.ts';
import type { StepReport } from './ports.ts';
import { historyRoutes } from './routes.ts';

/** Where the Open API serves the history (a vendor segment, as the automations': docs/history.md, "The API"). */
export const OPEN_API_BASE = '/opencube/history';
/** Where the console's API serves it. */
export const CONSOLE_BASE = '/history';

/** What tests pass (GatewayOptions.integrations.history): each upkeep step, observed. */
export interface HistoryIntegrationOptions {
  observe?: (step: StepReport) => void;
}

export class HistoryIntegration implements Integration<Settings> {
  /** The history, once the integration has its context (routes are asked for before start). */
  history: History | undefined;

  private bind(ctx: IntegrationContext<Settings>): History {
    if (this.history) return this.history;
    const { observe } = ctx.options as HistoryIntegrationOptions;
    this.history = new History({
      db: ctx.db,
      bus: ctx.bus,
      devices: ctx.core.devices.registry,
      clock: ctx.clock,
      log: ctx.log,
      settings: ctx.settings.history,
      timeZone: ctx.settings.time_zone,
      ...(observe ? { observe } : {}),
    });
    return this.history;
  }

  routes(ctx: IntegrationContext<Settings>) {
    const api = { history: this.bind(ctx), recording: () => ctx.settings.history.enabled };
    return { openApi: historyRoutes(api, OPEN_API_BASE), console: historyRoutes(api, CONSOLE_BASE) };
  }

  start(ctx: IntegrationContext<Settings>): void {
    this.bind(ctx).start();
  }

  async stop(): Promise<void> {
    await this.history?.stop();
  }

  /** What the history holds in memory (`opencube` status, metrics). */
  status() {
    return this.history?.stats();
  }

  /** A factory reset deletes the whole history too (a reset gateway keeps nothing of its home), and every exclusion. */
  async aroundReset(reset: () => Promise<void>): Promise<void> {
    await reset();
    await this.history?.clear();
  }
}

export const historyIntegration = () => new HistoryIntegration();

/** The Open API routes as the generated documents show them (their handlers are never called). */
export function documentedRoutes(): RouteDecl[] {
  return historyRoutes({ history: undefined as unknown as History, recording: () => true }, OPEN_API_BASE);
}
