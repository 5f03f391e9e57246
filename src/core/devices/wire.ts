/** The device object of spec 2.3 as served (D3, addDevice), built from a DeviceRecord. */

import type { Endpoint } from '../event-bus.ts';
import type { DeviceRecord } from './contract.ts';

/** Field order of the served object; absent optional fields are left out. */
const WIRE_FIELDS = [
  'serial_number',
  'third_serial_number',
  'service_address',
  'name',
  'manufacturer',
  'model',
  'firmware_version',
  'hostname',
  'mac_address',
  'app_name',
  'display_category',
  'capabilities',
  'protocol',
  'state',
  'tags',
  'online',
] as const;

/**
 * The served device object. `driver`, `driver_ref` and `extra` stay inside. `tags` is always there,
 * `{}` when the device has none: the spec makes it optional, but an add-on written for the hardware
 * reads `JSON.stringify(device.tags)` on every listed device and fails without it (COMPAT.md).
 */
export function toWire(d: DeviceRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Third-party devices carry no protocol (COMPAT.md), whatever a driver put there.
  const noProtocol = d.third_serial_number !== undefined && d.driver === 'thirdparty';
  for (const k of WIRE_FIELDS) {
    const v = k === 'tags' ? (d.tags ?? {}) : d[k];
    if (v !== undefined && !(k === 'protocol' && noProtocol)) out[k] = v;
  }
  return out;
}

/** The `endpoint` of a device event. */
export function endpointOf(d: DeviceRecord): Endpoint {
  return d.third_serial_number === undefined
    ? { serial_number: d.serial_number }
    : { serial_number: d.serial_number, third_serial_number: d.third_serial_number };
}
