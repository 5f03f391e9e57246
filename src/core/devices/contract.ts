/**
 * The one small contract every device backend implements (DESIGN.md "Drivers share one small
 * contract"). A driver knows the catalog and this contract, nothing of routes. It feeds the
 * device registry through the DriverHost it is given at start, and executes commands the
 * registry routes to it, returning the expected outcome as a value and throwing only for faults.
 */

import type { ErrorCodeValue, Failed } from '../../catalog/errors.ts';
import type { CapabilityObject } from '../../catalog/index.ts';
import type { Actor } from '../actor.ts';
import type { ZigbeeUpkeep } from '../zigbee-upkeep/contract.ts';

/** A device as the registry keeps it: every field of spec 2.3 plus the driver's own reference. */
export interface DeviceRecord {
  serial_number: string;
  /** Which driver owns the device: 'thirdparty', 'zigbee2mqtt', 'herdsman', 'camera'. */
  driver: string;
  /** The driver's own stable id of the device (Zigbee2MQTT: `<base_topic>/<ieee_address>`; herdsman: `<ieee_address>`; third party: `<token id>/<third_serial_number>`). */
  driver_ref: string;
  third_serial_number?: string;
  service_address?: string;
  name: string;
  manufacturer: string;
  model: string;
  firmware_version: string;
  hostname?: string;
  mac_address?: string;
  app_name?: string;
  display_category: string;
  capabilities: CapabilityObject[];
  /** Absent for third-party devices (COMPAT.md). */
  protocol?: string;
  state: Record<string, unknown>;
  tags?: Record<string, unknown>;
  online: boolean;
  /**
   * Driver-private data kept with the device (e.g. the Zigbee friendly name, exposes); never
   * served. One key is read by the core: `channel_aliases` (`{former name: served channel}`),
   * names still accepted on input after a driver renamed a device's channels.
   */
  extra: Record<string, unknown>;
}

/** What a driver announces when it finds a device; the registry assigns the serial_number. */
export type DeviceAnnouncement = Omit<DeviceRecord, 'serial_number' | 'driver' | 'online' | 'extra' | 'state'> & {
  state?: Record<string, unknown>;
  online?: boolean;
  extra?: Record<string, unknown>;
};

/**
 * A command the registry routes to the driver that owns the device. `deadline` (epoch ms), when
 * given, is when the client's request must be answered: a driver waits no longer than that, even
 * if its own timeout is longer (one D4 call may send two directives, and clients give up at 5 s).
 */
export type DriverCommand = (
  | { kind: 'update-state'; device: DeviceRecord; state: Record<string, unknown> }
  /** `query` is keyed by capability, as the spec writes query bodies: `{power-consumption:{...}}`. */
  | { kind: 'query-state'; device: DeviceRecord; capability: string; query: Record<string, unknown> }
  /** `capabilities` holds the entries that change, in their new form (settings values, configuration). */
  | { kind: 'configure'; device: DeviceRecord; capabilities: CapabilityObject[] }
  | { kind: 'remove'; device: DeviceRecord }
) & { deadline?: number };

/**
 * The outcome of a command. `state` on success is what the device now reports (the registry
 * stores and emits it). `offline` on failure tells the registry to mark the device offline.
 */
export type Outcome = { ok: true; state?: Record<string, unknown> } | (Failed & { offline?: boolean });

/** What a driver may change of a device's information. */
export interface DeviceInfoUpdate {
  name?: string;
  capabilities?: CapabilityObject[];
  /** null removes the tags. */
  tags?: Record<string, unknown> | null;
  /** Merged (shallowly) into the device's extra. */
  extra?: Record<string, unknown>;
  /** The software the device runs now (after a firmware update). */
  firmware_version?: string;
}

/**
 * A new device refused: the gateway holds the most devices it keeps (setting `devices.max`; each
 * costs memory, docs/benchmarks.md). Devices already kept are untouched; inside a batch, the
 * batch is rolled back. The message says so in words for a client or an operator.
 */
export class DeviceLimitReached extends Error {
  constructor(readonly max: number) {
    super(`the gateway keeps at most ${max} devices (setting devices.max): remove some first`);
    this.name = 'DeviceLimitReached';
  }
}

/** What the registry offers a driver. Every call is committed to the store before it returns. */
export interface DriverHost {
  /**
   * Adds a device, or updates the one with the same driver_ref (reconciled, not re-added). `by`:
   * who added it by hand (D2 of an app or the console), named in the activity log. Throws
   * DeviceLimitReached for a new device past the most the gateway keeps.
   */
  deviceFound(driver: string, device: DeviceAnnouncement, by?: Actor): DeviceRecord;
  /** Merges reported state (per capability and name level); emits only what changed. */
  stateReported(serial: string, state: Record<string, unknown>): void;
  onlineChanged(serial: string, online: boolean): void;
  infoUpdated(serial: string, info: DeviceInfoUpdate): void;
  /** The device left the network (removed on the backend side). */
  deviceLeft(serial: string): void;
  /**
   * Moves a stored device to this driver under its own ref (the same device, reached another way:
   * Zigbee through Zigbee2MQTT, then through a coordinator of the gateway's own): it keeps its
   * serial_number, names, tags and state. Undefined when there is no such device, or the ref is taken.
   */
  adopt(serial: string, driver: string, ref: string): DeviceRecord | undefined;
  get(serial: string): DeviceRecord | undefined;
  findByRef(driver: string, ref: string): DeviceRecord | undefined;
  listByDriver(driver: string): DeviceRecord[];
  /** Runs `fn` in one store transaction; the events of the calls it makes are published after the commit. */
  batch<T>(fn: () => T): T;
}

export interface Driver {
  /** The name devices are stored under in DeviceRecord.driver. */
  readonly id: string;
  start(host: DriverHost): Promise<void>;
  stop(): Promise<void>;
  execute(command: DriverCommand): Promise<Outcome>;
  /** D1, for drivers that pair new devices. */
  readonly pairing?: Pairing;
  /** D2, for drivers that add devices given by hand. */
  readonly provisioning?: Provisioning;
  /** Zigbee drivers: firmware updates, groups, bindings and the network map (src/core/zigbee-upkeep/). */
  readonly zigbee?: ZigbeeUpkeep;
  /**
   * After a factory reset cleared the registry: a driver whose network still holds its devices
   * (Zigbee) announces them again, as fresh devices.
   */
  afterReset?(): Promise<void>;
  /**
   * Whether the driver is connected to what it drives (its broker, its network), for `GET /ready`;
   * `reason` says what is missing, in words for an operator (never a credential). A driver
   * without it is always ready.
   */
  ready?(): Readiness;
  /** Counters that only rise (e.g. `mqtt_reconnects`), served as metrics `opencube_<name>_total{driver}`. */
  counters?(): Readonly<Record<string, number>>;
}

/** A driver's readiness. */
export interface Readiness {
  ok: boolean;
  reason?: string;
}

/**
 * D1: pairing of new devices, routed by the request's `type` (`Zigbee`; ONVIF cameras later). Two
 * drivers may pair the same type (two Zigbee networks): D1 opens (or closes) joining on all of them.
 */
export interface Pairing {
  /** The D1 `type` values it pairs, in lower case (`zigbee`). */
  readonly types: readonly string[];
  /** Opens (true) or closes (false) joining. */
  setDiscovery(enable: boolean): Promise<Outcome>;
  /** Whether it is pairing now. */
  discovering(): boolean;
}

/** The outcome of a D2: the serial numbers added (all, or none on failure). */
export type ProvisionOutcome =
  | { ok: true; serial_number: string; serial_numbers?: string[] }
  | { ok: false; code: ErrorCodeValue; message: string };

/** D2: devices added by hand (cameras), probed before they are added, routed by protocol. */
export interface Provisioning {
  /** The protocols it adds, in lower case (`rtsp`, `esp32-cam`). */
  readonly protocols: readonly string[];
  /** Reads the D2 body, probes, and adds through the host (`by` whom); answers by `deadline` (epoch ms). */
  provision(body: unknown, deadline: number, by?: Actor): Promise<ProvisionOutcome>;
}
