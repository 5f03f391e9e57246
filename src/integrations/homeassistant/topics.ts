/**
 * Every topic and id of the bridge, from three settings:
 * - discovery configs: `<prefix>/<component>/<node>/<serial>_<key>/config` (node: the base topic
 *   as a node id, so the bridge can read back exactly its own retained configs);
 * - states `<base>/<serial>/<key>[_<sub>]`, commands on the same plus `/set`;
 * - availability `<base>/bridge/availability` (the bridge's will) and `<base>/<serial>/availability`;
 * - refused commands `<base>/<serial>/error` and `<base>/bridge/error`.
 */
import type { EntityTopics } from './entity.ts';

export interface TopicSettings {
  discovery_prefix: string;
  base_topic: string;
  status_topic: string;
}

/** Why a topic setting cannot be used, or undefined when it can. */
export function topicProblem(topic: string): string | undefined {
  if (topic === '') return 'must not be empty';
  if (/[+#]/.test(topic) || topic.includes('\0')) return 'must not hold the wildcards + or # (or NUL)';
  if (topic.startsWith('/') || topic.endsWith('/') || topic.includes('//')) return 'must not have an empty level';
  return undefined;
}

/** Characters of a discovery node or object id (Home Assistant: `[a-zA-Z0-9_-]`). */
function idPart(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, '_');
}

export class Topics {
  readonly prefix: string;
  readonly base: string;
  readonly status: string;
  /** The node id of every discovery topic of this gateway. */
  readonly node: string;
  readonly bridgeAvailability: string;
  readonly bridgeError: string;
  /** What the bridge subscribes to for commands: `<base>/<serial>/<key>/set`. */
  readonly commandFilter: string;
  /** What the bridge subscribes to for reading back its own retained configs. */
  readonly discoveryFilter: string;

  constructor(s: TopicSettings) {
    this.prefix = s.discovery_prefix;
    this.base = s.base_topic;
    this.status = s.status_topic;
    this.node = idPart(s.base_topic);
    this.bridgeAvailability = `${this.base}/bridge/availability`;
    this.bridgeError = `${this.base}/bridge/error`;
    this.commandFilter = `${this.base}/+/+/set`;
    this.discoveryFilter = `${this.prefix}/+/${this.node}/+/config`;
  }

  availability(serial: string): string {
    return `${this.base}/${serial}/availability`;
  }

  error(serial: string): string {
    return `${this.base}/${serial}/error`;
  }

  /** The state and command topics of one entity of a device. */
  entity(serial: string, topicKey: string): EntityTopics {
    const name = (sub?: string) => `${this.base}/${serial}/${sub ? `${topicKey}_${sub}` : topicKey}`;
    return { state: name, command: (sub) => `${name(sub)}/set` };
  }

  /** The last level of an entity's topics for one command sub-part (what a command topic carries). */
  static topicKey(topicKey: string, sub: string): string {
    return sub ? `${topicKey}_${sub}` : topicKey;
  }

  discovery(component: string, serial: string, key: string): string {
    return `${this.prefix}/${component}/${this.node}/${idPart(`${serial}_${key}`)}/config`;
  }

  uniqueId(serial: string, key: string): string {
    return `${this.node}_${serial}_${key}`;
  }

  deviceId(serial: string): string {
    return `${this.node}_${serial}`;
  }

  get bridgeId(): string {
    return `${this.node}_bridge`;
  }

  /** The serial and topic key of a command topic, or undefined when it is not one. */
  parseCommand(topic: string): { serial: string; key: string } | undefined {
    if (!topic.startsWith(`${this.base}/`) || !topic.endsWith('/set')) return undefined;
    const levels = topic.slice(this.base.length + 1, -'/set'.length).split('/');
    if (levels.length !== 2 || !levels[0] || !levels[1]) return undefined;
    return { serial: levels[0], key: levels[1] };
  }

  /** Whether a topic is one of this gateway's discovery config topics. */
  isOwnDiscovery(topic: string): boolean {
    const levels = topic.split('/');
    const prefixLevels = this.prefix.split('/').length;
    return (
      topic.startsWith(`${this.prefix}/`) &&
      levels.length === prefixLevels + 4 &&
      levels[prefixLevels + 1] === this.node &&
      levels[levels.length - 1] === 'config'
    );
  }
}

/** Whether a serial number can be a topic level (the registry's are hex; anything else is refused). */
export function topicSafe(serial: string): boolean {
  return serial !== '' && serial !== 'bridge' && !/[/+#]/.test(serial) && !serial.includes('\0');
}
