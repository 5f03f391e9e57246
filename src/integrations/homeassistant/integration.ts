/**
 * Home Assistant as an integration: loaded only when `homeassistant.enabled` is on (the bridge's
 * code stays out of gateways that do not use it), started once the drivers have started, and
 * renaming the gateway's own device at once when the gateway is renamed (`gateway#renamed`). The
 * gateway's scenes come from the automations' integration through its calls (`scenes`, `run`).
 */
import type { Integration } from '../../core/integration.ts';
import type { Settings } from '../../settings/index.ts';
import type { HomeAssistantBridge } from './bridge.ts';
import { startHomeAssistant } from './index.ts';
import type { SceneView } from './scenes.ts';

export function homeAssistantIntegration(): Integration<Settings> {
  let bridge: HomeAssistantBridge | undefined;
  let unsubscribe: (() => void) | undefined;
  return {
    start(ctx) {
      const { devices } = ctx.core;
      bridge = startHomeAssistant({
        ...ctx.settings.homeassistant,
        // Tests shorten the reconnect backoff.
        ...(ctx.options as { reconnectMinMs?: number; reconnectMaxMs?: number }),
        gatewayName: ctx.settings.name,
        version: ctx.version,
        registry: devices.registry,
        devices: {
          update: (serial, body) => devices.update(serial, body, { kind: 'homeassistant' }),
        },
        bus: ctx.bus,
        log: ctx.log,
        clock: ctx.clock,
        // The Open API's snapshot: the same cache, and one ffmpeg per camera whoever asks.
        snapshot: async (serial) =>
          (await ctx.core.cameras()?.snapshot(serial)) ?? { ok: false, message: 'the camera driver is not running' },
        // The scenes of the automations (another integration: reached by its calls).
        scenes: {
          list: async () => ((await ctx.gateway.call('automations', 'scenes')) as SceneView[] | undefined) ?? [],
          run: async (id) =>
            ((await ctx.gateway.call('automations', 'run', id, { kind: 'homeassistant' })) as
              | { ok: true }
              | { ok: false; message: string }
              | undefined) ?? { ok: false, message: 'scenes and automations are not running' },
        },
      });
      const running = bridge;
      unsubscribe = ctx.bus.subscribe((e) => {
        if (e.name === 'gateway#renamed') running.rename((e.data as { payload: { name: string } }).payload.name);
      });
    },
    async stop() {
      unsubscribe?.();
      await bridge?.stop();
    },
  };
}
