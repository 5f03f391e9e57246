/**
 * The entities of one device, read off the mapping table: the conditions of the device, the rows
 * each declared capability matches (first match wins; `also` rows apply and go on), entities of
 * one capability built at once, parts of composite entities gathered into one light, fan, cover
 * and climate per device, and the connectivity sensor every device has.
 */
import type { CapabilityObject } from '../../catalog/index.ts';
import type { DeviceRecord } from '../../core/devices/contract.ts';
import { climateEntity } from './climate.ts';
import { coverEntity } from './cover.ts';
import type { Entity } from './entity.ts';
import { fanEntity } from './fan.ts';
import { lightEntity } from './light.ts';
import { type Condition, type MappingRow, mappingTable } from './mapping-table.ts';
import { pressEntities } from './presses.ts';
import { connectivity, simpleEntity } from './simple.ts';

/** Which conditions of the mapping table hold for a device (see Condition). */
export function conditionsOf(
  device: Pick<DeviceRecord, 'capabilities' | 'display_category'>,
): Record<Condition, boolean> {
  const caps = device.capabilities;
  const cat = device.display_category;
  const has = (capability: string, name?: string) =>
    caps.some((c) => c.capability === capability && (name === undefined || c.name === name));
  const climate =
    has('thermostat') ||
    has('thermostat-target-setpoint') ||
    has('mode', 'airConditionerMode') ||
    cat === 'thermostat' ||
    cat === 'airConditioner';
  const fan = !climate && (cat === 'fan' || cat === 'fanLight') && has('power');
  const lightLike =
    cat === 'light' || cat === 'fanLight' || has('brightness') || has('color-temperature') || has('color-rgb');
  const lightChannel = !climate && lightLike && has('toggle', 'light');
  const lightPower = !climate && !fan && !lightChannel && lightLike && has('power');
  return {
    climate,
    fan,
    lightChannel,
    lightPower,
    light: lightChannel || lightPower,
    cover: cat === 'curtain' || has('motor-control'),
  };
}

/** Whether a row is about this capability object (its capability and its name level). */
export function rowMatches(row: MappingRow, cap: CapabilityObject): boolean {
  if (row.capability !== cap.capability) return false;
  if (row.name === undefined) return cap.name === undefined;
  return row.name === '*' ? cap.name !== undefined : row.name === cap.name;
}

/** The rows that apply to one capability object of a device. */
export function rowsFor(cap: CapabilityObject, conditions: Record<Condition, boolean>): MappingRow[] {
  const out: MappingRow[] = [];
  for (const row of mappingTable) {
    if (!rowMatches(row, cap) || (row.when && !conditions[row.when])) continue;
    out.push(row);
    if (!row.also) break;
  }
  return out;
}

type Composite = 'light' | 'fan' | 'cover' | 'climate';

/** Every entity of a device; `availabilityTopic` is the device's own (read by its connectivity sensor). */
export function entitiesOf(device: DeviceRecord, availabilityTopic: string): Entity[] {
  const conditions = conditionsOf(device);
  const entities: Entity[] = [];
  const composite = new Map<Composite, Map<string, CapabilityObject[]>>();
  for (const cap of device.capabilities) {
    for (const row of rowsFor(cap, conditions)) {
      const role = row.role;
      if (role.entity === 'light' || role.entity === 'fan' || role.entity === 'cover' || role.entity === 'climate') {
        const parts = composite.get(role.entity) ?? new Map<string, CapabilityObject[]>();
        composite.set(role.entity, parts);
        parts.set(role.part, [...(parts.get(role.part) ?? []), cap]);
      } else if (role.entity === 'press') {
        entities.push(...pressEntities(cap, row.label ?? 'Button'));
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
