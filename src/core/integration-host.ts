/**
 * Runs the loaded integrations (src/core/integration.ts) for the gateway: gives each its context,
 * collects the routes and events they add, starts them at their moment (before the gateway
 * listens, or after the drivers), stops them in the reverse order, tells their status, and runs
 * a factory reset inside the turns of those that ask for it.
 */
import type { Driver } from './devices/contract.ts';
import type { EventName } from './event-bus.ts';
import type { Integration, IntegrationContext, IntegrationEvents, Taps } from './integration.ts';
import type { RouteDecl } from './route.ts';

type RequestTap = (route: string, method: string, outcome: string) => void;
type WriteTap = (ms: number) => void;

/** The taps of a gateway: the HTTP server and the store call them; integrations listen. */
export class TapHub implements Taps {
  private readonly requests: RequestTap[] = [];
  private readonly writes: WriteTap[] = [];
  /** The request taps as one function, made once (it runs at every request). */
  private tellRequest: RequestTap | undefined;

  onRequest(fn: RequestTap): void {
    this.requests.push(fn);
    const all = [...this.requests];
    this.tellRequest =
      all.length === 1
        ? fn
        : (route, method, outcome) => {
            for (const tap of all) tap(route, method, outcome);
          };
  }

  onStoreWrite(fn: WriteTap): void {
    this.writes.push(fn);
  }

  /** The request tap, or undefined when nobody listens (the server then works out no route label). */
  requestTap(): RequestTap | undefined {
    return this.tellRequest;
  }

  storeWrite(ms: number): void {
    for (const fn of this.writes) fn(ms);
  }
}

interface Loaded<S> {
  id: string;
  integration: Integration<S>;
  ctx: IntegrationContext<S>;
  started: boolean;
}

export class IntegrationHost<S> {
  private loaded: Loaded<S>[] = [];
  /** The events the integrations show, by stream (read for each event a stream sees). */
  readonly events: Required<IntegrationEvents> = { openApi: {}, console: [] };
  /** The routes the integrations add, by surface (read once, when the server starts listening). */
  readonly routes = { openApi: [] as RouteDecl[], console: [] as RouteDecl[] };
  /** The drivers the integrations bring (registered before the drivers start). */
  private readonly brought: Driver[] = [];

  /** Takes the loaded integrations; `contextOf` gives each its context. */
  add(list: readonly { id: string; integration: Integration<S> }[], contextOf: (id: string) => IntegrationContext<S>) {
    for (const { id, integration } of list) {
      const ctx = contextOf(id);
      this.loaded.push({ id, integration, ctx, started: false });
      Object.assign(this.events.openApi, integration.events?.openApi);
      (this.events.console as EventName[]).push(...(integration.events?.console ?? []));
      const r = integration.routes?.(ctx);
      this.routes.openApi.push(...(r?.openApi ?? []));
      this.routes.console.push(...(r?.console ?? []));
      this.brought.push(...(integration.drivers?.(ctx) ?? []));
    }
  }

  /** The drivers the integrations bring, in the table's order. */
  drivers(): readonly Driver[] {
    return this.brought;
  }

  /** Starts, in order, the integrations of this moment. */
  async start(moment: 'listen' | 'drivers'): Promise<void> {
    for (const l of this.loaded) {
      if ((l.integration.startsAt ?? 'drivers') !== moment) continue;
      // Marked first: a stop during its start stops it too.
      l.started = true;
      await l.integration.start(l.ctx);
    }
  }

  /** Stops the started integrations, the last started first. */
  async stop(): Promise<void> {
    for (const l of [...this.loaded].reverse()) {
      if (!l.started) continue;
      l.started = false;
      await l.integration.stop();
    }
  }

  /** A loaded integration itself, by id (the composition root hands the automations' engine to tests). */
  get(id: string): Integration<S> | undefined {
    return this.loaded.find((l) => l.id === id)?.integration;
  }

  /** What an integration tells of itself; undefined when it is not loaded or tells nothing. */
  status(id: string): unknown {
    return this.loaded.find((l) => l.id === id)?.integration.status?.();
  }

  /** Runs one of an integration's calls; undefined when it is not loaded or has no such call. */
  async call(id: string, name: string, ...args: unknown[]): Promise<unknown> {
    return this.loaded.find((l) => l.id === id)?.integration.calls?.[name]?.(...args);
  }

  /** Runs `reset` inside the turns of every integration that asks for it. */
  aroundReset(reset: () => Promise<void>): Promise<void> {
    let run = reset;
    for (const l of this.loaded) {
      const around = l.integration.aroundReset?.bind(l.integration);
      if (!around) continue;
      const inner = run;
      run = () => around(inner);
    }
    return run();
  }
}
