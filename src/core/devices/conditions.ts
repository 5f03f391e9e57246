/**
 * What a device is, for the integrations that show it to another ecosystem (Home Assistant,
 * Matter): the conditions their mapping tables' rows may require, and the rows of a table that
 * apply to one capability object. Each integration keeps its own table; this reading is shared.
 */
import type { CapabilityObject } from '../../catalog/index.ts';
import type { DeviceRecord } from './contract.ts';

/**
 * Conditions on the device a row may require:
 * - `climate`: a thermostat or an air conditioner (thermostat, thermostat-target-setpoint or the
 *   `airConditionerMode` mode, or display category `thermostat` / `airConditioner`);
 * - `fan`: display category `fan` or `fanLight` with `power`, not a climate device;
 * - `lightPower`: a light whose on/off is `power` (category `light`, or brightness or colour
 *   capabilities), neither a climate nor a fan device;
 * - `lightChannel`: the light of a fan light, whose on/off is the `toggle` channel `light`;
 * - `light`: either of the two;
 * - `cover`: display category `curtain`, or a `motor-control` capability.
 */
export type Condition = 'climate' | 'fan' | 'lightPower' | 'lightChannel' | 'light' | 'cover';

/** Each condition in words, for the mapping tables the docs render. */
export const CONDITION_WORDS: Readonly<Record<Condition, string>> = {
  climate: 'a thermostat or air conditioner',
  fan: 'a fan (its power is the fan)',
  lightPower: 'a light',
  lightChannel: 'the light of a fan light',
  light: 'a device with a light',
  cover: 'a curtain or blind',
};

/** What of a mapping row says which capability objects it is about. */
export interface RowKey {
  capability: string;
  /** The capability's name level: none (undefined), any (`*`) or one name. */
  name?: string;
  when?: Condition;
  /** The row applies and the next matching rows are read too (else the first match wins). */
  also?: boolean;
}

/** Which conditions hold for a device. */
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
export function rowMatches(row: RowKey, cap: CapabilityObject): boolean {
  if (row.capability !== cap.capability) return false;
  if (row.name === undefined) return cap.name === undefined;
  return row.name === '*' ? cap.name !== undefined : row.name === cap.name;
}

/** The rows of `table` that apply to one capability object of a device with these conditions. */
export function rowsFor<R extends RowKey>(
  table: readonly R[],
  cap: CapabilityObject,
  conditions: Record<Condition, boolean>,
): R[] {
  const out: R[] = [];
  for (const row of table) {
    if (!rowMatches(row, cap) || (row.when && !conditions[row.when])) continue;
    out.push(row);
    if (!row.also) break;
  }
  return out;
}
