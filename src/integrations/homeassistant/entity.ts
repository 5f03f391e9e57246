/**
 * What every published entity is to the bridge: a Home Assistant component with a key unique on
 * its device, a discovery config, the retained state messages it derives from the device's state,
 * momentary messages (presses), and the commands it takes, each turned into a D4 `state` body.
 */
import type { CapabilityObject } from '../../catalog/index.ts';
import type { DeviceRecord } from '../../core/devices/contract.ts';
import type { Component } from './mapping-table.ts';

/** The topics of one entity: `<base>/<serial>/<key>[_<sub>]`, commands on `.../set`. */
export interface EntityTopics {
  state(sub?: string): string;
  command(sub?: string): string;
}

/** One message to publish: the topic's sub-part of the entity (see EntityTopics) and the payload. */
export interface Message {
  sub?: string;
  payload: string;
}

/**
 * A command from Home Assistant: a D4 `state` body, a snapshot the bridge takes itself (a camera's
 * Snapshot button), or why it cannot be either.
 */
export type CommandResult =
  | { ok: true; state: Record<string, unknown> }
  | { ok: true; snapshot: true }
  | { ok: false; message: string };

export interface Entity {
  readonly component: Component;
  /** Unique on the device: the last part of the unique id and (unless `topicKey` is given) of the topics. */
  readonly key: string;
  /** The key its topics are named by, when several entities share them (the device triggers of one button). */
  readonly topicKey?: string;
  /** Capabilities the entity stands for (a state change of one republishes its states). */
  readonly sources: ReadonlySet<string>;
  /** The component's own config keys, topics included; the bridge adds the device, availability and ids. */
  config(t: EntityTopics): Record<string, unknown>;
  /**
   * The retained state messages of the device's current state; `changed` is the state change
   * that led to them, when there is one (a light tells its colour mode by what changed last).
   */
  states(device: DeviceRecord, changed?: Record<string, unknown>): Message[];
  /** Momentary messages (presses) a state change carries; not retained. */
  events?(changed: Record<string, unknown>): Message[];
  /** Sub-parts of the command topics it listens on (`''`: the entity's own command topic). */
  readonly commands: readonly string[];
  /** The D4 `state` body of a command on one of its command topics. */
  command?(sub: string, payload: string, device: DeviceRecord): CommandResult;
  /**
   * Whether the entity follows the device's availability (and the bridge's); false for the
   * connectivity entity, which shows the device being offline, and for device triggers.
   */
  readonly followsDevice: boolean;
}

/** ON/OFF as Home Assistant's default payloads. */
export const ON = 'ON';
export const OFF = 'OFF';

/** The capabilities of a composite entity, by the part each fills. */
export type Parts = ReadonlyMap<string, readonly CapabilityObject[]>;

/** The one capability filling a part, if any. */
export function part(parts: Parts, name: string): CapabilityObject | undefined {
  return parts.get(name)?.[0];
}

/** A refused command. */
export function refuse(message: string): CommandResult {
  return { ok: false, message };
}
