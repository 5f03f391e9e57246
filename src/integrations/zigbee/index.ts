/**
 * Keeping a Zigbee network healthy, as an integration: the Zigbee upkeep service of the core
 * (firmware updates, groups, bindings, the network map: src/core/zigbee-upkeep/) with its routes on
 * both APIs (routes.ts), its events on both streams, the driver of the group devices (registered
 * before the drivers start) and the last network maps kept in the store. Always loaded (the
 * service is small): with `zigbee.mode` off its routes answer that no Zigbee network runs, and no
 * group driver is brought (the groups' devices then stay offline, as the Zigbee devices do).
 */
import type { Integration, IntegrationContext } from '../../core/integration.ts';
import type { RouteDecl } from '../../core/route.ts';
import { type MapStore, type StoredMap, ZigbeeUpkeepService } from '../../core/zigbee-upkeep/index.ts';
import { systemClock } from '../../lib/clock.ts';
import { silentLog } from '../../lib/log.ts';
import type { Settings } from '../../settings/index.ts';
import type { KvStore } from '../../store/db.ts';
import { zigbeeRoutes } from './routes.ts';
import { ZIGBEE_EVENTS } from './schemas.ts';

export { ZIGBEE_EVENTS };

/** The last map of each network, one key of the store each (a few hundred KB on a large network). */
function storedMaps(kv: KvStore): MapStore {
  return {
    load: (key) => kv.get<StoredMap | undefined>(`zigbee.map.${key}`, undefined),
    save: (key, map) => kv.set(`zigbee.map.${key}`, map),
  };
}

export function zigbeeIntegration(): Integration<Settings> {
  let service: ZigbeeUpkeepService | undefined;
  // Made when first asked for: the routes are declared (and the documents generated) before any context is real.
  const upkeep = (ctx: IntegrationContext<Settings>) => {
    service ??= new ZigbeeUpkeepService({
      registry: ctx.core.devices.registry,
      devices: ctx.core.devices,
      bus: ctx.bus,
      clock: ctx.clock,
      log: ctx.log,
      maps: storedMaps(ctx.kv),
    });
    return service;
  };
  return {
    events: { openApi: ZIGBEE_EVENTS, console: Object.keys(ZIGBEE_EVENTS) as (keyof typeof ZIGBEE_EVENTS)[] },
    drivers: (ctx) => (ctx.settings.zigbee.mode === 'off' ? [] : [upkeep(ctx).groupDriver]),
    routes: (ctx) => {
      const routes = zigbeeRoutes(() => upkeep(ctx), ctx.clock, ctx.log);
      return { openApi: routes, console: routes };
    },
    // After the drivers: it follows the running Zigbee drivers' networks.
    start: (ctx) => upkeep(ctx).start(),
    stop: () => service?.stop(),
  };
}

/** The routes as the generated documents show them (their handlers are never called). */
export function documentedRoutes(): RouteDecl[] {
  const none = (): never => {
    throw new Error('a route of the documents is never called');
  };
  return zigbeeRoutes(none, systemClock, silentLog);
}
