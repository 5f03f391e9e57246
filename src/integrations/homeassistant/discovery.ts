/**
 * Discovery configs as Home Assistant reads them: the entity's own keys plus its unique id, the
 * device block (one Home Assistant device per gateway device, linked to the gateway's own device
 * through `via_device`), the origin, and availability: the bridge's will and, for entities that
 * follow it, the device's `online`, both required (`availability_mode: all`). Full key names only.
 */
import type { DeviceRecord } from '../../core/devices/contract.ts';
import type { Entity } from './entity.ts';
import type { Topics } from './topics.ts';

export interface Origin {
  name: string;
  sw_version: string;
}

/** The device block of a gateway device. */
export function deviceBlock(device: DeviceRecord, topics: Topics): Record<string, unknown> {
  return {
    identifiers: [topics.deviceId(device.serial_number)],
    name: device.name,
    manufacturer: device.manufacturer,
    model: device.model,
    ...(device.firmware_version ? { sw_version: device.firmware_version } : {}),
    via_device: topics.bridgeId,
  };
}

/** The discovery topic and config of one entity of a device. */
export function entityDiscovery(
  entity: Entity,
  device: DeviceRecord,
  topics: Topics,
  origin: Origin,
): { topic: string; config: Record<string, unknown> } {
  const serial = device.serial_number;
  const own = entity.config(topics.entity(serial, entity.topicKey ?? entity.key));
  const dev = deviceBlock(device, topics);
  const topic = topics.discovery(entity.component, serial, entity.key);
  // A device trigger has no entity: no unique id, no availability (its documented keys).
  if (entity.component === 'device_automation') return { topic, config: { ...own, device: dev, origin } };
  const availability = [
    { topic: topics.bridgeAvailability },
    ...(entity.followsDevice ? [{ topic: topics.availability(serial) }] : []),
  ];
  return {
    topic,
    config: {
      ...own,
      unique_id: topics.uniqueId(serial, entity.key),
      device: dev,
      origin,
      availability,
      availability_mode: 'all',
    },
  };
}

/** The gateway's own Home Assistant device: one connectivity sensor reading the bridge's will. */
export function bridgeDiscovery(
  topics: Topics,
  origin: Origin,
  gatewayName: string,
): { topic: string; config: Record<string, unknown> } {
  return {
    topic: `${topics.prefix}/binary_sensor/${topics.node}/bridge_connection/config`,
    config: {
      name: 'Connection',
      state_topic: topics.bridgeAvailability,
      payload_on: 'online',
      payload_off: 'offline',
      device_class: 'connectivity',
      entity_category: 'diagnostic',
      unique_id: `${topics.bridgeId}_connection`,
      device: {
        identifiers: [topics.bridgeId],
        name: gatewayName,
        manufacturer: 'opencube',
        model: 'opencube gateway',
        sw_version: origin.sw_version,
      },
      origin,
    },
  };
}
