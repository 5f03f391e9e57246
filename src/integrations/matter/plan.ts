/**
 * What one gateway device becomes on the Matter bridge, read off the mapping table: the conditions
 * of the device, the rows each declared capability matches, and the endpoints they gather into
 * (one per function, one per channel or button), with the Matter device type of each. Pure data:
 * nothing of matter.js is needed to plan, so the plan is tested on its own and documented.
 */
import type { CapabilityObject } from '../../catalog/index.ts';
import { conditionsOf, rowsFor } from '../../core/devices/conditions.ts';
import type { DeviceRecord } from '../../core/devices/contract.ts';
import { type EndpointKind, type Feature, mappingTable } from './mapping-table.ts';

/** The Matter device types the bridge uses (matter.js names them `<name>Device`). */
export type DeviceTypeName =
  | 'OnOffLight'
  | 'DimmableLight'
  | 'ColorTemperatureLight'
  | 'ExtendedColorLight'
  | 'OnOffPlugInUnit'
  | 'WindowCovering'
  | 'Thermostat'
  | 'Fan'
  | 'ContactSensor'
  | 'OccupancySensor'
  | 'WaterLeakDetector'
  | 'SmokeCoAlarm'
  | 'TemperatureSensor'
  | 'HumiditySensor'
  | 'PressureSensor'
  | 'LightSensor'
  | 'AirQualitySensor'
  | 'GenericSwitch';

/** Device type ids (Matter Device Library), for the docs and the tests. */
export const DEVICE_TYPE_IDS: Readonly<Record<DeviceTypeName, number>> = {
  OnOffLight: 0x0100,
  DimmableLight: 0x0101,
  ColorTemperatureLight: 0x010c,
  ExtendedColorLight: 0x010d,
  OnOffPlugInUnit: 0x010a,
  WindowCovering: 0x0202,
  Thermostat: 0x0301,
  Fan: 0x002b,
  ContactSensor: 0x0015,
  OccupancySensor: 0x0107,
  WaterLeakDetector: 0x0043,
  SmokeCoAlarm: 0x0076,
  TemperatureSensor: 0x0302,
  HumiditySensor: 0x0307,
  PressureSensor: 0x0305,
  LightSensor: 0x0106,
  AirQualitySensor: 0x002c,
  GenericSwitch: 0x000f,
};

/**
 * The device types this version of the bridge builds (src/integrations/matter/endpoints.ts); an
 * endpoint of another type is planned but left out for now, as docs/matter.md says.
 */
export const BUILT_TYPES: ReadonlySet<DeviceTypeName> = new Set<DeviceTypeName>([
  'OnOffLight',
  'DimmableLight',
  'ColorTemperatureLight',
  'ExtendedColorLight',
  'OnOffPlugInUnit',
  'WindowCovering',
  'SmokeCoAlarm',
  'Thermostat',
  'GenericSwitch',
  'Fan',
  'AirQualitySensor',
  'ContactSensor',
  'OccupancySensor',
  'WaterLeakDetector',
  'TemperatureSensor',
  'HumiditySensor',
  'PressureSensor',
  'LightSensor',
]);

/** One endpoint of a bridged device. */
export interface EndpointPlan {
  /** Stable within the device (`light`, `outlet`, `channel-1`, `button-left`): its storage key. */
  key: string;
  kind: Exclude<EndpointKind, 'device'>;
  deviceType: DeviceTypeName;
  /** The capability objects that feed each feature of the endpoint. */
  features: Partial<Record<Feature, CapabilityObject[]>>;
  /** The channel (toggle) or button (multi-press) name, for endpoints of one. */
  channel?: string;
}

/** A bridged device: its endpoints and what the device as a whole holds. */
export interface DevicePlan {
  endpoints: EndpointPlan[];
  /** The `battery` capability, when the device has one (a Power Source cluster). */
  battery?: CapabilityObject;
  /** Whether Identify commands reach the device (it declares `identify`). */
  identify: boolean;
  /**
   * Changes exactly when the Matter structure changes (endpoints, device types, clusters and
   * their features): an unchanged signature is updated in place, a changed one is rebuilt.
   */
  signature: string;
}

/** Endpoint kinds in the order their endpoints are listed (the main function first). */
const KIND_ORDER: readonly Exclude<EndpointKind, 'device'>[] = [
  'light',
  'outlet',
  'channel',
  'cover',
  'thermostat',
  'fan',
  'contact',
  'occupancy',
  'leak',
  'smoke',
  'temperature',
  'humidity',
  'pressure',
  'illuminance',
  'airQuality',
  'button',
];

/** The device type of each endpoint kind (lights and channels: see planDevice). */
export const FIXED_TYPES: Readonly<Partial<Record<EndpointKind, DeviceTypeName>>> = {
  outlet: 'OnOffPlugInUnit',
  cover: 'WindowCovering',
  thermostat: 'Thermostat',
  fan: 'Fan',
  contact: 'ContactSensor',
  occupancy: 'OccupancySensor',
  leak: 'WaterLeakDetector',
  smoke: 'SmokeCoAlarm',
  temperature: 'TemperatureSensor',
  humidity: 'HumiditySensor',
  pressure: 'PressureSensor',
  illuminance: 'LightSensor',
  airQuality: 'AirQualitySensor',
  button: 'GenericSwitch',
};

/** The device type of a light: the richest its features allow. */
function lightType(features: EndpointPlan['features']): DeviceTypeName {
  if (features.color) return 'ExtendedColorLight';
  if (features.colorTemperature) return 'ColorTemperatureLight';
  if (features.level) return 'DimmableLight';
  return 'OnOffLight';
}

/** Kinds with one endpoint per name (channel, button); the others have one per device. */
const PER_NAME = new Set<EndpointKind>(['channel', 'button']);

/** The bridged device a gateway device becomes (no endpoint at all: nothing of it is bridged). */
export function planDevice(device: Pick<DeviceRecord, 'capabilities' | 'display_category'>): DevicePlan {
  const conditions = conditionsOf(device);
  const byKey = new Map<string, EndpointPlan>();
  let battery: CapabilityObject | undefined;
  let identify = false;
  for (const cap of device.capabilities) {
    for (const row of rowsFor(mappingTable, cap, conditions)) {
      if (row.endpoint === 'device') {
        if (row.feature === 'battery') battery ??= cap;
        if (row.feature === 'identify') identify = true;
        continue;
      }
      const channel = PER_NAME.has(row.endpoint) ? (cap.name ?? '') : undefined;
      const key = channel === undefined ? row.endpoint : `${row.endpoint}-${channel}`;
      let ep = byKey.get(key);
      if (!ep) {
        ep = {
          key,
          kind: row.endpoint,
          deviceType: FIXED_TYPES[row.endpoint] ?? 'OnOffLight',
          features: {},
          ...(channel !== undefined ? { channel } : {}),
        };
        byKey.set(key, ep);
      }
      ep.features[row.feature] = [...(ep.features[row.feature] ?? []), cap];
    }
  }
  const endpoints = [...byKey.values()].sort(
    (a, b) =>
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || (a.channel ?? '').localeCompare(b.channel ?? ''),
  );
  for (const ep of endpoints) {
    if (ep.kind === 'light') ep.deviceType = lightType(ep.features);
    if (ep.kind === 'channel') ep.deviceType = device.display_category === 'light' ? 'OnOffLight' : 'OnOffPlugInUnit';
  }
  const signature = JSON.stringify({
    endpoints: endpoints.map((e) => [e.key, e.deviceType, Object.keys(e.features).sort(), shapeOf(e)]),
    battery: battery !== undefined,
    identify,
  });
  return { endpoints, ...(battery ? { battery } : {}), identify, signature };
}

/**
 * What of an endpoint's declarations shapes its clusters beyond its features: a thermostat cools
 * when the air conditioner has a `cool` mode (the Cooling feature of the Thermostat cluster).
 * Ranges and value lists are attributes, updated in place: a rebuilt endpoint is a new accessory
 * to a controller (its room and name there are lost), so only a real change of shape rebuilds.
 */
function shapeOf(ep: EndpointPlan): unknown {
  return ep.kind === 'thermostat' ? { cooling: cools(ep) } : null;
}

/** Whether a thermostat endpoint is an air conditioner that cools. */
export function cools(ep: EndpointPlan): boolean {
  const ac = ep.features.acMode?.[0];
  if (!ac) return false;
  const supported = ac.settings?.supportedValues;
  const values = supported && typeof supported === 'object' ? (supported as { values?: unknown }).values : undefined;
  return Array.isArray(values) ? values.includes('cool') : true;
}
