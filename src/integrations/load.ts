/**
 * The integrations of a gateway, each loaded (`await import`) only when the settings enable it,
 * mirroring src/drivers/load.ts. An integration is a folder of src/integrations/ and one entry
 * here; it gets what it uses through its context (src/core/integration.ts). See
 * docs/architecture.md, "Adding an integration".
 */
import type { Integration, IntegrationEntry, IntegrationEvents } from '../core/integration.ts';
import type { RouteDecl } from '../core/route.ts';
import type { Settings } from '../settings/index.ts';

/** In the order they start (and the reverse of their stop). */
export const INTEGRATIONS: readonly IntegrationEntry<Settings>[] = [
  {
    // The local socket of the CLI (link button, tokens, backup): always there.
    id: 'control',
    enabled: () => true,
    load: async () => (await import('./control/index.ts')).controlIntegration(),
  },
  {
    id: 'metrics',
    enabled: (s) => s.metrics !== 'off',
    load: async () => (await import('./metrics/integration.ts')).metricsIntegration(),
  },
  {
    // The history (src/history, a folder of its own): always; `history.enabled` off records nothing new.
    id: 'history',
    enabled: () => true,
    load: async () => (await import('../history/integration.ts')).historyIntegration(),
  },
  {
    // Scenes and automations (src/automations, a folder of its own): always. Before Home
    // Assistant, which shows the scenes (and stops first).
    id: 'automations',
    enabled: () => true,
    load: async () => (await import('../automations/integration.ts')).automationsIntegration(),
  },
  {
    // Always (small): its routes answer in every mode. Before the bridges, so that they find the
    // groups already listed as devices when they start.
    id: 'zigbee',
    enabled: () => true,
    load: async () => (await import('./zigbee/index.ts')).zigbeeIntegration(),
  },
  {
    id: 'homeassistant',
    enabled: (s) => s.homeassistant.enabled,
    load: async () => (await import('./homeassistant/integration.ts')).homeAssistantIntegration(),
  },
  {
    // Always: the console's switch may turn the bridge on at any time (matter.js loads only then).
    id: 'matter',
    enabled: () => true,
    load: async () => new (await import('./matter/integration.ts')).MatterIntegration(),
  },
  {
    id: 'mdns',
    enabled: (s) => s.mdns,
    load: async () => (await import('./mdns/index.ts')).mdnsIntegration(),
  },
];

/** The integrations the settings enable, loaded, with their ids, in the table's order. */
export async function loadIntegrations(
  settings: Settings,
  table: readonly IntegrationEntry<Settings>[] = INTEGRATIONS,
): Promise<{ id: string; integration: Integration<Settings> }[]> {
  const enabled = table.filter((e) => e.enabled(settings));
  const loaded = await Promise.all(enabled.map((e) => e.load()));
  return enabled.map((e, i) => ({ id: e.id, integration: loaded[i] as Integration<Settings> }));
}

/**
 * The Open API routes and events of the integrations every gateway loads (the history, the scenes
 * and automations, the Zigbee upkeep), as the generated documents show them (docs/openapi.json,
 * docs/asyncapi.json): the declarations only, whose handlers are never called.
 */
export async function documented(): Promise<{
  routes: RouteDecl[];
  events: NonNullable<IntegrationEvents['openApi']>;
}> {
  const history = await import('../history/integration.ts');
  const automations = await import('../automations/integration.ts');
  const zigbee = await import('./zigbee/index.ts');
  return {
    routes: [...history.documentedRoutes(), ...automations.documentedRoutes(), ...zigbee.documentedRoutes()],
    events: { ...automations.AUTOMATION_EVENTS.openApi, ...zigbee.ZIGBEE_EVENTS },
  };
}
