/**
 * The Home Assistant MQTT discovery bridge (docs/home-assistant.md), loaded by the gateway only
 * when `homeassistant.enabled` is on. Its public surface: start it, stop it.
 */
import { type BridgeOptions, HomeAssistantBridge } from './bridge.ts';
import { urlProblem } from './connection.ts';
import { topicProblem } from './topics.ts';

export { HomeAssistantBridge } from './bridge.ts';
export { redact } from './connection.ts';
export { renderMappingDoc, withMappingDoc } from './docs.ts';
export { leftOut, mappingTable } from './mapping-table.ts';

/** Raised when a `homeassistant.*` setting cannot be used; the message names it (never the password). */
export class HomeAssistantSettingsError extends Error {}

/** Checks the settings, then starts the bridge (it connects in the background). */
export function startHomeAssistant(opts: BridgeOptions): HomeAssistantBridge {
  const url = urlProblem(opts.mqtt_url);
  if (url) throw new HomeAssistantSettingsError(`homeassistant.mqtt_url ${url}`);
  for (const key of ['discovery_prefix', 'base_topic', 'status_topic'] as const) {
    const problem = topicProblem(opts[key]);
    if (problem) throw new HomeAssistantSettingsError(`homeassistant.${key}: ${JSON.stringify(opts[key])} ${problem}`);
  }
  const interval = opts.camera_interval_seconds;
  if (!Number.isInteger(interval) || interval < 0)
    throw new HomeAssistantSettingsError(
      `homeassistant.camera_interval_seconds: ${JSON.stringify(interval)} is not a whole number of seconds, 0 or more`,
    );
  if (opts.base_topic === opts.discovery_prefix)
    throw new HomeAssistantSettingsError('homeassistant.base_topic: must differ from homeassistant.discovery_prefix');
  const bridge = new HomeAssistantBridge(opts);
  bridge.start();
  return bridge;
}
