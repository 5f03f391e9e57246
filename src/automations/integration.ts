/**
 * Scenes and automations as an integration of the gateway (src/core/integration.ts): one entry
 * of src/integrations/load.ts, always loaded. It builds the engine on the core services of its
 * context (its device commands carry the actor "the automation <name>"), starts it once the
 * drivers have started (a trigger's device is then known, a command can reach its driver) and
 * stops it before they stop; serves the API on both surfaces (routes.ts); shows its events on
 * both streams; tells Home Assistant of the scenes and runs one when asked (`calls`); stops
 * around a factory reset, which clears the definitions; and, on the first start of a store
 * restored from a backup, ends the runs that were under way when the backup was taken.
 */
import type { Actor } from '../core/actor.ts';
import type { Integration, IntegrationContext } from '../core/integration.ts';
import { RESTORED_FROM_KEY } from '../core/maintenance/store-restore.ts';
import type { RouteDecl } from '../core/route.ts';
import type { Settings } from '../settings/index.ts';
import { eventSchemas } from './api-schema.ts';
import { choices } from './choices.ts';
import { corePorts, engineSettings } from './core-ports.ts';
import { AutomationEngine } from './engine.ts';
import type { NotRunOptions } from './not-run.ts';
import { type AutomationsApi, automationRoutes } from './routes.ts';

/** Where the Open API serves the automations (a vendor segment: docs/automations.md, "The API"). */
export const OPEN_API_BASE = '/opencube/automations';
/** Where the console's API serves them. */
export const CONSOLE_BASE = '/automations';

/** What tests pass (GatewayOptions.integrations.automations): a shorter batch of the traces not run. */
export interface AutomationsOptions {
  notRun?: NotRunOptions;
}

/** The events of the automations on the streams, with the schemas of their data (AsyncAPI). */
export const AUTOMATION_EVENTS = {
  openApi: {
    'automation#runStarted': {
      summary: 'A run of a scene or automation started (what set it off, in words)',
      data: eventSchemas.runStarted,
    },
    'automation#runFinished': {
      summary: 'A run ended: finished, failed (an action failed; the others ran) or stopped (with why)',
      data: eventSchemas.runFinished,
    },
    'automation#notify': {
      summary: "A scene or automation's notify action, or a loop the engine stopped",
      data: eventSchemas.notify,
    },
    'automation#changed': {
      summary: 'A scene or automation was saved, removed, enabled, disabled, or became broken or whole again',
      data: eventSchemas.changed,
    },
  },
  console: ['automation#runStarted', 'automation#runFinished', 'automation#notify', 'automation#changed'],
} as const;

/** The base URL the engine gives TTS for its clips: the gateway itself, by loopback when bound to every address. */
function ownUrl(ctx: IntegrationContext<Settings>): string {
  const host = ctx.settings.host;
  const reach = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${reach.includes(':') ? `[${reach}]` : reach}:${ctx.port()}`;
}

export class AutomationsIntegration implements Integration<Settings> {
  /** The engine, once the integration has its context (before the gateway listens). */
  engine: AutomationEngine | undefined;
  readonly events = AUTOMATION_EVENTS;

  /** The engine on this context's services, made once (routes are asked for before start). */
  private bind(ctx: IntegrationContext<Settings>): AutomationEngine {
    if (this.engine) return this.engine;
    const { core } = ctx;
    const ports = corePorts(
      {
        db: ctx.db,
        bus: ctx.bus,
        devices: core.devices,
        security: core.security,
        alarm: core.alarm,
        speaker: core.speaker,
        speech: { service: core.speech, baseUrl: () => ownUrl(ctx) },
        clock: ctx.clock,
        log: ctx.log,
      },
      engineSettings(ctx.settings),
    );
    this.engine = new AutomationEngine(ports, (ctx.options as AutomationsOptions).notRun);
    return this.engine;
  }

  private api(ctx: IntegrationContext<Settings>): AutomationsApi {
    const engine = this.bind(ctx);
    return {
      engine,
      choices: () =>
        choices({
          devices: ctx.core.devices.registry.list(),
          modes: ctx.core.security.list(),
          engines: ctx.core.speech.list(),
          definitions: engine.list(),
          timeZone: engine.zone.name,
          hasLocation: engine.location !== null,
        }),
    };
  }

  routes(ctx: IntegrationContext<Settings>) {
    const api = this.api(ctx);
    return { openApi: automationRoutes(api, OPEN_API_BASE), console: automationRoutes(api, CONSOLE_BASE) };
  }

  start(ctx: IntegrationContext<Settings>): void {
    const engine = this.bind(ctx);
    const mark = ctx.kv.get<{ taken_at: string | null } | null>(RESTORED_FROM_KEY, null);
    engine.start(
      mark ? { restoredFrom: { taken_at: mark.taken_at, done: () => ctx.kv.delete(RESTORED_FROM_KEY) } } : {},
    );
  }

  stop(): void {
    this.engine?.stop();
  }

  /** Counts for the CLI and metrics: definitions by kind, broken ones, runs under way. */
  status() {
    const list = this.engine?.list() ?? [];
    return {
      scenes: list.filter((d) => d.kind === 'scene').length,
      automations: list.filter((d) => d.kind === 'automation').length,
      broken: list.filter((d) => d.broken).length,
      running: this.engine?.active().length ?? 0,
    };
  }

  /** What other integrations ask by name (Home Assistant: the scenes, and running one). */
  readonly calls = {
    /** The scenes, each `{id, name, available}` (enabled and whole). */
    scenes: async () =>
      (this.engine?.list() ?? [])
        .filter((d) => d.kind === 'scene')
        .map((d) => ({ id: d.id, name: d.name, available: d.enabled && d.broken === null })),
    run: async (id: unknown, by: unknown) => {
      const engine = this.engine;
      if (!engine || typeof id !== 'string') return { ok: false, message: 'no such scene' };
      return engine.run(id, { by: by as Actor });
    },
  };

  /**
   * The engine stops while the reset clears its definitions, and starts afresh on the empty store;
   * each definition gone is told (`automation#changed`: consoles and Home Assistant follow).
   */
  async aroundReset(reset: () => Promise<void>): Promise<void> {
    const engine = this.engine;
    if (!engine) return reset();
    const wasRunning = engine.started;
    const before = engine.list().map((d) => d.id);
    engine.stop();
    try {
      await reset();
    } finally {
      if (wasRunning) engine.start();
      for (const id of before) if (!engine.get(id)) engine.tellRemoved(id);
    }
  }
}

/** The Open API routes as the generated documents show them (their handlers are never called). */
export function documentedRoutes(): RouteDecl[] {
  const none = (): never => {
    throw new Error('a route of the documents is never called');
  };
  return automationRoutes({ engine: undefined as unknown as AutomationEngine, choices: none }, OPEN_API_BASE);
}

/** A fresh integration for one gateway (the table's `load`). */
export function automationsIntegration(): AutomationsIntegration {
  return new AutomationsIntegration();
}
