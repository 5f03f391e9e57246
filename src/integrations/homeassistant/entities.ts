/**
 * The entities of one device, read off the mapping table: the conditions of the device, the rows
 * each declared capability matches (first match wins; `also` rows apply and go on), entities of
 * one capability built at once, parts of composite entities gathered into one light, fan, cover
 * and climate per device, a camera entity and its Snapshot button per camera, and the
 * connectivity sensor every device has.
 */
import type { CapabilityObject } from '../../catalog/index.ts';
import { conditionsOf, rowsFor } from '../../core/devices/conditions.ts';
import type { DeviceRecord } from '../../core/devices/contract.ts';
import { cameraEntities, hasSnapshots } from './camera.ts';
import { climateEntity } from './climate.ts';
import { coverEntity } from './cover.ts';
import type { Entity } from './entity.ts';
import { fanEntity } from './fan.ts';
import { lightEntity } from './light.ts';
import { mappingTable } from './mapping-table.ts';
import { pressEntities } from './presses.ts';
import { connectivity, simpleEntity } from './simple.ts';

type Composite = 'light' | 'fan' | 'cover' | 'climate';

/** Every entity of a device; `availabilityTopic` is the device's own (read by its connectivity sensor). */
export function entitiesOf(device: DeviceRecord, availabilityTopic: string): Entity[] {
  const conditions = conditionsOf(device);
  const entities: Entity[] = [];
  const composite = new Map<Composite, Map<string, CapabilityObject[]>>();
  for (const cap of device.capabilities) {
    for (const row of rowsFor(mappingTable, cap, conditions)) {
      const role = row.role;
      if (role.entity === 'light' || role.entity === 'fan' || role.entity === 'cover' || role.entity === 'climate') {
        const parts = composite.get(role.entity) ?? new Map<string, CapabilityObject[]>();
        composite.set(role.entity, parts);
        parts.set(role.part, [...(parts.get(role.part) ?? []), cap]);
      } else if (role.entity === 'press') {
        entities.push(...pressEntities(cap, row.label ?? 'Button'));
      } else if (role.entity === 'camera') {
        // Only the gateway's own cameras have snapshots to show; another device's stream has none.
        if (hasSnapshots(device)) entities.push(...cameraEntities(row.label ?? 'Snapshot'));
      } else {
        const e = simpleEntity(row, cap, device);
        if (e) entities.push(e);
      }
    }
  }
  const main: Entity[] = [];
  for (const [kind, parts] of composite) {
    const e =
      kind === 'light'
        ? lightEntity(parts)
        : kind === 'fan'
          ? fanEntity(parts)
          : kind === 'cover'
            ? coverEntity(parts, device.display_category)
            : climateEntity(parts, device);
    if (e) main.push(e);
  }
  return [...main, ...entities, connectivity(availabilityTopic)];
}
