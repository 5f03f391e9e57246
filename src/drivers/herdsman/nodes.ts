/**
 * The devices of the coordinator's network as the driver follows them: each one's model (found
 * by zigbee-herdsman-converters from what the interview read: the Basic cluster's model id and
 * manufacturer, the endpoints and clusters), its exposes mapped by the shared mapping, its last
 * state in Zigbee2MQTT's form, and its commands in flight.
 */

import type { Definition } from 'zigbee-herdsman-converters';
import { findByDevice } from 'zigbee-herdsman-converters';
import { ACCESS_GET, type DeviceMapping, DeviceWaiters, type Expose, mapExposes } from '../../zigbee/index.ts';
import type { KeyValue, ZhDevice } from './converters.ts';

/** One device of the network. */
export interface Node {
  ieee: string;
  /** zigbee-herdsman's device (a new object after every start of the coordinator). */
  device: ZhDevice;
  definition: Definition;
  exposes: Expose[];
  /** The exposes as JSON, to remap only when they change. */
  exposesJson: string;
  mapping: DeviceMapping;
  /** The mapped properties that can be read (read-back, D6). */
  readable: string[];
  /** The device's state in Zigbee2MQTT's form, merged message by message (button actions are not kept). */
  last: KeyValue;
  waiters: DeviceWaiters;
  /** Left the network (or no longer in the coordinator's database): kept, offline. */
  missing: boolean;
  /** A sleeping end device: not read, not pinged. */
  sleepy: boolean;
  /** A configuration (bindings, reporting) in flight. */
  configuring: boolean;
  /** After a failed configuration, not before this time (epoch ms). */
  configureAfter: number;
}

/** What the model of a device gives: its definition, exposes and their mapping. */
export interface Description {
  definition: Definition;
  exposes: Expose[];
  exposesJson: string;
  mapping: DeviceMapping;
  readable: string[];
}

/**
 * Finds the model of an interviewed device; a model the converters do not know gets the
 * definition they generate from its clusters (as Zigbee2MQTT 2.x does). Undefined when there is
 * none.
 */
export async function describe(device: ZhDevice): Promise<Description | undefined> {
  const definition = await findByDevice(device as never, true);
  if (!definition) return undefined;
  const raw = typeof definition.exposes === 'function' ? definition.exposes(device as never, {}) : definition.exposes;
  // The exposes as Zigbee2MQTT publishes them: plain JSON of the expose objects.
  const exposesJson = JSON.stringify(raw);
  const exposes = (JSON.parse(exposesJson) as unknown[]).filter(
    (e): e is Expose => typeof e === 'object' && e !== null,
  );
  const mapping = mapExposes(exposes, { description: definition.description, addLqi: true });
  const readable = mapping.bindings
    .filter((b) => b.access & ACCESS_GET && !b.presses && b.conv.kind !== 'command')
    .map((b) => b.property);
  return { definition, exposes, exposesJson, mapping, readable: [...new Set(readable)] };
}

/** A battery-powered end device (it sleeps): the rule Zigbee2MQTT's `power_source` gives. */
export function isSleepy(device: ZhDevice): boolean {
  return device.type === 'EndDevice' && !/mains|dc/i.test(String(device.powerSource ?? ''));
}

/** The commands in flight to one device, worded for this driver. */
export function nodeWaiters(): DeviceWaiters {
  return new DeviceWaiters(
    (verb, waitMs) => `the device did not ${verb === 'set' ? 'confirm the new state' : 'answer'} within ${waitMs} ms`,
  );
}

/** Properties the state does not keep: a button's action is an event, not a state. */
export function isEvent(property: string): boolean {
  return property === 'action' || property.startsWith('action_');
}
