/**
 * The gateway's scenes in Home Assistant: each scene (a manual scene of the automations) is a
 * `scene` entity of the gateway's own Home Assistant device (home-assistant.io/integrations/
 * scene.mqtt): activating it publishes `ON` on its command topic, and the gateway runs the scene
 * (its trace says "run by Home Assistant"). A scene that is disabled or broken is unavailable
 * (its own availability topic, beside the bridge's will). Topics, under the bridge's level of the
 * base topic (no device has the serial number `bridge`):
 * - config `<prefix>/scene/<node>/scene_<id>/config`;
 * - command `<base>/bridge/scene_<id>/set`, availability `<base>/bridge/scene_<id>/availability`.
 */
import type { Origin } from './discovery.ts';
import type { Topics } from './topics.ts';

/** A scene as the automations tell of it. */
export interface SceneView {
  id: string;
  name: string;
  /** Enabled and whole: it can run. */
  available: boolean;
}

/** What the bridge needs of the automations. */
export interface ScenesPort {
  list(): Promise<SceneView[]>;
  /** Runs a scene for Home Assistant; why not, in words, when it did not start. */
  run(id: string): Promise<{ ok: true } | { ok: false; message: string }>;
}

/** What Home Assistant sends to activate a scene (scene.mqtt's `payload_on` default). */
export const SCENE_ON = 'ON';

const KEY = /^scene_([0-9a-f]{12})$/;

/** The topic key of a scene's entity: `scene_<id>`. */
export function sceneKey(id: string): string {
  return `scene_${id}`;
}

/** The scene id a command topic's key names, or undefined. */
export function sceneOf(key: string): string | undefined {
  return KEY.exec(key)?.[1];
}

/** The retained topics and payloads of one scene: its config and its availability. */
export function sceneTopics(
  scene: SceneView,
  topics: Topics,
  origin: Origin,
): { config: [string, string]; availability: [string, string] } {
  const key = sceneKey(scene.id);
  const base = `${topics.base}/bridge/${key}`;
  const config = {
    name: scene.name,
    command_topic: `${base}/set`,
    payload_on: SCENE_ON,
    unique_id: `${topics.bridgeId}_${key}`,
    // The gateway's own device (bridgeDiscovery): its identifier ties the scene to it.
    device: { identifiers: [topics.bridgeId] },
    origin,
    availability: [{ topic: topics.bridgeAvailability }, { topic: `${base}/availability` }],
    availability_mode: 'all',
  };
  return {
    config: [`${topics.prefix}/scene/${topics.node}/${key}/config`, JSON.stringify(config)],
    availability: [`${base}/availability`, scene.available ? 'online' : 'offline'],
  };
}
