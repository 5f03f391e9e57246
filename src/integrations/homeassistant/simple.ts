/**
 * Entities over one capability (or one name of it): switch, sensor, enum sensor, binary sensor,
 * select, number, button, and the connectivity sensor every device has. Commands become the
 * capability's D4 body unchanged in meaning; D4 validates them as it validates any client's.
 */
import type { CapabilityObject } from '../../catalog/index.ts';
import type { DeviceRecord } from '../../core/devices/contract.ts';
import { type Entity, type EntityTopics, type Message, OFF, ON, refuse } from './entity.ts';
import type { EntityCategory, MappingRow, Role } from './mapping-table.ts';
import { enumValues, fieldIn, finite, numberRange, parseNumber, scaled, shown } from './values.ts';

/** The key of an entity over one capability: `toggle_1`, `thermostat_mode_detect_temperature`. */
export function capabilityKey(cap: CapabilityObject): string {
  const base = cap.capability.replace(/[^A-Za-z0-9]/g, '_');
  return cap.name === undefined ? base : `${base}_${cap.name.replace(/[^A-Za-z0-9]/g, '_')}`;
}

/** The entity name: the row's label, with the channel (or the `toggle` tag's label of it). */
export function entityName(row: MappingRow, cap: CapabilityObject, device: DeviceRecord): string | null {
  if (cap.name !== undefined && cap.capability === 'toggle') {
    const labels = device.tags?.toggle;
    const label = labels && typeof labels === 'object' ? (labels as Record<string, unknown>)[cap.name] : undefined;
    if (typeof label === 'string' && label.trim() !== '') return label;
  }
  if (row.label === undefined) return null;
  return cap.name === undefined ? row.label : `${row.label} ${cap.name}`;
}

/** A state body for one field of a capability (with its name level when it has one). */
export function bodyFor(cap: CapabilityObject, fields: Record<string, unknown>): Record<string, unknown> {
  return { [cap.capability]: cap.name === undefined ? fields : { [cap.name]: fields } };
}

function category(c: EntityCategory | undefined): Record<string, unknown> {
  return c ? { entity_category: c } : {};
}

interface Base {
  cap: CapabilityObject;
  key: string;
  name: string | null;
  device: DeviceRecord;
}

function value(device: DeviceRecord, b: Base, field: string): unknown {
  return fieldIn(device.state, b.cap.capability, b.cap.name, field);
}

/** What every entity over one capability has: its component, key and source, following the device. */
function head(b: Base, component: Entity['component'], commandable: boolean) {
  return {
    component,
    key: b.key,
    sources: new Set([b.cap.capability]),
    followsDevice: true,
    commands: commandable ? [''] : [],
  };
}

/** The start of its config: its name, its state topic and, when it takes commands, its command topic. */
function named(b: Base, t: EntityTopics, topics: { state: boolean; command: boolean }) {
  return {
    name: b.name,
    ...(topics.state ? { state_topic: t.state() } : {}),
    ...(topics.command ? { command_topic: t.command() } : {}),
  };
}

function onOff(b: Base, role: Extract<Role, { entity: 'switch' }>): Entity {
  const plug = role.plugOutlet && b.device.display_category === 'plug';
  return {
    ...head(b, 'switch', true),
    config: (t) => ({
      ...named(b, t, { state: true, command: true }),
      payload_on: ON,
      payload_off: OFF,
      ...(plug ? { device_class: 'outlet' } : role.plugOutlet ? { device_class: 'switch' } : {}),
      ...category(role.category),
    }),
    states(device) {
      const v = value(device, b, role.field);
      if (v === role.on) return [{ payload: ON }];
      if (v === role.off) return [{ payload: OFF }];
      return [];
    },
    command(_sub, payload) {
      if (payload === ON) return { ok: true, state: bodyFor(b.cap, { [role.field]: role.on }) };
      if (payload === OFF) return { ok: true, state: bodyFor(b.cap, { [role.field]: role.off }) };
      return refuse(`payload: ${shown(payload)} is not ON or OFF`);
    },
  };
}

function sensor(b: Base, role: Extract<Role, { entity: 'sensor' }>): Entity {
  return {
    ...head(b, 'sensor', false),
    config: (t) => ({
      ...named(b, t, { state: true, command: false }),
      ...(role.device_class ? { device_class: role.device_class } : {}),
      ...(role.unit ? { unit_of_measurement: role.unit } : {}),
      ...(role.state_class ? { state_class: role.state_class } : {}),
      ...category(role.category),
    }),
    states(device) {
      const v = finite(value(device, b, role.field));
      if (v === undefined) return [];
      // Home Assistant sets a numeric sensor to unknown on `None`.
      if (role.unknown !== undefined && v === role.unknown) return [{ payload: 'None' }];
      return [{ payload: String(scaled(v, role.scale)) }];
    },
  };
}

function enumSensor(b: Base, role: Extract<Role, { entity: 'enum_sensor' }>): Entity {
  const options = enumValues(b.cap, role.field).map(String);
  return {
    ...head(b, 'sensor', false),
    config: (t) => ({
      ...named(b, t, { state: true, command: false }),
      device_class: 'enum',
      options,
      ...category(role.category),
    }),
    states(device) {
      const v = value(device, b, role.field);
      return v !== undefined && options.includes(String(v)) ? [{ payload: String(v) }] : [];
    },
  };
}

function binarySensor(b: Base, role: Extract<Role, { entity: 'binary_sensor' }>): Entity {
  return {
    ...head(b, 'binary_sensor', false),
    config: (t) => ({
      ...named(b, t, { state: true, command: false }),
      payload_on: ON,
      payload_off: OFF,
      ...(role.device_class ? { device_class: role.device_class } : {}),
      ...category(role.category),
    }),
    states(device) {
      const v = value(device, b, role.field);
      if (v === undefined) return [];
      return [{ payload: v === role.on ? ON : OFF }];
    },
  };
}

function select(b: Base, role: Extract<Role, { entity: 'select' }>): Entity {
  const values = enumValues(b.cap, role.field);
  const options = values.map(String);
  return {
    ...head(b, 'select', true),
    config: (t) => ({
      ...named(b, t, { state: true, command: true }),
      options,
      ...category(role.category),
    }),
    states(device) {
      const v = value(device, b, role.field);
      return v !== undefined && options.includes(String(v)) ? [{ payload: String(v) }] : [];
    },
    command(_sub, payload) {
      // An option is sent as the value it stands for; anything else goes as sent, for D4 to refuse.
      const i = options.indexOf(payload);
      return { ok: true, state: bodyFor(b.cap, { [role.field]: i >= 0 ? values[i] : payload }) };
    },
  };
}

function numberEntity(b: Base, role: Extract<Role, { entity: 'number' }>): Entity {
  const { min = 0, max = 100, step } = numberRange(b.cap, role.field);
  return {
    ...head(b, 'number', true),
    config: (t) => ({
      ...named(b, t, { state: true, command: true }),
      min,
      max,
      ...(step !== undefined ? { step } : {}),
      mode: 'slider',
      ...(role.unit ? { unit_of_measurement: role.unit } : {}),
    }),
    states(device) {
      const v = finite(value(device, b, role.field));
      return v === undefined ? [] : [{ payload: String(v) }];
    },
    command(_sub, payload) {
      const n = parseNumber(payload);
      if (n === undefined) return refuse(`payload: ${shown(payload)} is not a number`);
      return { ok: true, state: bodyFor(b.cap, { [role.field]: n }) };
    },
  };
}

/** Home Assistant's default `payload_press`. */
const PRESS = 'PRESS';

function button(b: Base, role: Extract<Role, { entity: 'button' }>): Entity {
  return {
    ...head(b, 'button', true),
    config: (t) => ({
      ...named(b, t, { state: false, command: true }),
      payload_press: PRESS,
      device_class: role.device_class,
      ...(role.device_class === 'restart' ? { entity_category: 'config' } : {}),
    }),
    states: () => [],
    command(_sub, payload) {
      if (payload !== PRESS) return refuse(`payload: ${shown(payload)} is not ${PRESS}`);
      return { ok: true, state: bodyFor(b.cap, { ...role.press }) };
    },
  };
}

/** The entity of a row of a simple kind over one capability (composite and press rows are built elsewhere). */
export function simpleEntity(row: MappingRow, cap: CapabilityObject, device: DeviceRecord): Entity | undefined {
  const b: Base = { cap, key: capabilityKey(cap), name: entityName(row, cap, device), device };
  const role = row.role;
  switch (role.entity) {
    case 'switch':
      // The device's one power switch is the device itself in Home Assistant: no entity name.
      return onOff({ ...b, name: cap.capability === 'power' ? null : b.name }, role);
    case 'sensor':
      return sensor(b, role);
    case 'enum_sensor':
      return enumSensor(b, role);
    case 'binary_sensor':
      return binarySensor(b, role);
    case 'select':
      return select(b, role);
    case 'number':
      return numberEntity(b, role);
    case 'button':
      return button(b, role);
    default:
      return undefined;
  }
}

/**
 * The connectivity of the device (every device has one): on while the device is online. It reads
 * the device's availability topic itself and follows only the bridge's availability, so an offline
 * device shows as disconnected rather than unavailable.
 */
export function connectivity(availabilityTopic: string): Entity {
  return {
    component: 'binary_sensor',
    key: 'online',
    sources: new Set(),
    followsDevice: false,
    commands: [],
    config: () => ({
      name: 'Connectivity',
      state_topic: availabilityTopic,
      payload_on: 'online',
      payload_off: 'offline',
      device_class: 'connectivity',
      entity_category: 'diagnostic',
    }),
    states: (): Message[] => [],
  };
}
