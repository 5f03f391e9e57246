/**
 * What a Zigbee driver offers for keeping its network healthy (`Driver.zigbee`): firmware updates
 * (OTA), groups, bindings and the network map. Each driver does it its own way (Zigbee2MQTT's
 * bridge requests, zigbee-herdsman directly, the simulated network); the core service
 * (service.ts) checks what clients ask, runs one update at a time per network, keeps groups in
 * the device registry and publishes progress on the bus. Expected failures are values (`Result`,
 * with the backend's own reason); faults are exceptions.
 */
import type { ErrorCodeValue } from '../../catalog/errors.ts';
import type { CapabilityObject } from '../../catalog/index.ts';
import type { DeviceRecord, Outcome } from '../devices/contract.ts';

/** An expected outcome: the value, or the error code and the reason (in the backend's words). */
export type Result<T> = { ok: true; value: T } | { ok: false; code: ErrorCodeValue; message: string };

/** One endpoint of a device: its number, the API channel it is (multi-channel devices), its clusters. */
export interface ZigbeeEndpoint {
  id: number;
  /** The channel of the API it serves (`1`, `2`), on a device with several. */
  channel?: string;
  /** Server clusters (commands are sent to them), by zigbee-herdsman's names (`genOnOff`). */
  input: string[];
  /** Client clusters (the device sends commands on them: a remote's `genOnOff`). */
  output: string[];
}

/** `idle`: nothing known to install; `available`: a newer image was found; `updating`: being installed. */
export type FirmwareState = 'idle' | 'available' | 'updating';

/** A device's firmware as its network knows it. */
export interface FirmwareInfo {
  /** Whether its model takes firmware updates. */
  supported: boolean;
  state?: FirmwareState;
  /** OTA file versions (what the device runs, what the index offers). */
  installed_version?: number;
  latest_version?: number;
  /** While updating: percent done, seconds remaining (an estimate). */
  progress?: number;
  remaining?: number;
}

export interface FirmwareCheck {
  available: boolean;
  installed_version?: number;
  latest_version?: number;
}

export interface FirmwareProgress {
  /** 0-100. */
  percent: number;
  /** Seconds left, as estimated from the pace so far (absent while unknown). */
  remaining?: number;
}

export interface FirmwareUpdated {
  from_version?: number;
  to_version?: number;
  /** The software build the device reports after the update, when it says. */
  firmware_version?: string;
}

/** One endpoint of a device in a group. */
export interface GroupMember {
  ieee: string;
  endpoint: number;
}

/** A Zigbee group as its network has it. */
export interface ZigbeeGroup {
  network: string;
  /** The driver's own key of the group: unique among its groups, stable while the group exists. */
  key: string;
  /** Its Zigbee group id (1-65527). */
  id: number;
  name: string;
  members: GroupMember[];
  /** What one group command reaches on every member, as capabilities (empty: nothing shared). */
  capabilities: CapabilityObject[];
  display_category: string;
  /** Some members' models are not known yet (the network is still reading its devices): the capabilities may be short. */
  pending?: boolean;
}

/** Where a binding sends: an endpoint of a device, the coordinator (bindings made for reporting), or a group. */
export type BindTarget =
  | { type: 'endpoint'; ieee: string; endpoint: number }
  | { type: 'coordinator' }
  | { type: 'group'; id: number };

/** One entry of a device's binding table. */
export interface ZigbeeBinding {
  source_endpoint: number;
  cluster: string;
  target: BindTarget;
}

/** A binding to make or undo: from an endpoint of a device, per cluster, to a device's endpoint or a group. */
export interface BindRequest {
  source: DeviceRecord;
  source_endpoint: number;
  target: { device: DeviceRecord; endpoint: number } | { group: string };
  clusters: string[];
}

/** The clusters bound (or unbound), and those the device refused. */
export interface BindResult {
  clusters: string[];
  failed: string[];
}

/** A node of the network map. */
export interface MapNode {
  ieee_address: string;
  network_address: number;
  type: string;
  /** What could not be read of it (`lqi`, `routing_table`): it did not answer. */
  failed: string[];
  /** When it was last heard (epoch ms), when the network says. */
  last_seen?: number;
}

export type MapRelationship = 'parent' | 'child' | 'sibling' | 'none' | 'previous_child';

/** A neighbour as `target` sees it: `source` is the neighbour, the quality as `target` measured it. */
export interface MapLink {
  source: { ieee_address: string; network_address: number };
  target: { ieee_address: string; network_address: number };
  /** Link quality 0-255. */
  lqi: number;
  depth: number;
  relationship: MapRelationship;
  /** The neighbour's type. */
  device_type: 'coordinator' | 'router' | 'end_device' | 'unknown';
  /** The routes of `target` whose next hop is this neighbour. */
  routes: MapRoute[];
}

export interface MapRoute {
  destination_address: number;
  next_hop_address: number;
  status: string;
}

export interface NetworkMap {
  nodes: MapNode[];
  links: MapLink[];
}

/** What a driver tells the core of changes on the network's side. */
export interface UpkeepListener {
  /** A device's firmware information changed (a check, an update's progress, Zigbee2MQTT's own state). */
  firmware(device: DeviceRecord, info: FirmwareInfo): void;
  /** The groups of the network changed (by the gateway, or by another client of Zigbee2MQTT). */
  groupsChanged(): void;
  /** A group's state, from its members' states (API form). */
  groupState(key: string, state: Record<string, unknown>): void;
}

/** The ability a Zigbee driver offers (optional, as `pairing` and `provisioning` are). */
export interface ZigbeeUpkeep {
  /** The networks it runs: one per Zigbee2MQTT instance (base topic), one per coordinator. */
  networks(): string[];
  /** The network a device of this driver is on; undefined when the driver does not know it (yet). */
  networkOf(device: DeviceRecord): string | undefined;
  /** Whether the network answers now; why not, in words for a user. */
  reachable(network: string): { ok: true } | { ok: false; message: string };
  /** A device's endpoints and clusters; undefined when unknown. */
  endpoints(device: DeviceRecord): ZigbeeEndpoint[] | undefined;
  /** Whether a device sleeps (a battery end device: it hears requests only when it wakes). */
  sleepy(device: DeviceRecord): boolean;

  firmware(device: DeviceRecord): FirmwareInfo | undefined;
  /** Asks the device what it runs and the index what there is. */
  checkFirmware(device: DeviceRecord): Promise<Result<FirmwareCheck>>;
  /** Installs the newest image (long: minutes on a real network); `progress` is told as it goes. */
  updateFirmware(device: DeviceRecord, progress: (p: FirmwareProgress) => void): Promise<Result<FirmwareUpdated>>;
  /**
   * Stops the update of a device that runs now (the device keeps the firmware it runs; the one
   * `updateFirmware` started then ends as a failure). Absent: the backend cannot stop one.
   */
  cancelFirmware?(device: DeviceRecord): Promise<Result<null>>;

  groups(): ZigbeeGroup[];
  /** What a group of these members would share (capabilities; empty: nothing), to check a member before adding it. */
  shared(network: string, members: readonly GroupMember[]): CapabilityObject[];
  /** `id` undefined: the network picks one. */
  createGroup(network: string, name: string, id?: number): Promise<Result<ZigbeeGroup>>;
  renameGroup(key: string, name: string): Promise<Result<ZigbeeGroup>>;
  removeGroup(key: string): Promise<Result<null>>;
  addGroupMember(key: string, device: DeviceRecord, endpoint: number): Promise<Result<ZigbeeGroup>>;
  removeGroupMember(key: string, device: DeviceRecord, endpoint: number): Promise<Result<ZigbeeGroup>>;
  /** One group command with `state` (validated against the group's capabilities); answers by `deadline` (epoch ms). */
  groupCommand(key: string, state: Record<string, unknown>, deadline?: number): Promise<Outcome>;

  /** A device's binding table as last read; undefined when unknown. */
  bindings(device: DeviceRecord): ZigbeeBinding[] | undefined;
  bind(request: BindRequest): Promise<Result<BindResult>>;
  unbind(request: BindRequest): Promise<Result<BindResult>>;

  /** Scans the network: every router's neighbour table (and routing table with `routes`). */
  networkMap(network: string, routes: boolean): Promise<Result<NetworkMap>>;

  /** Follows changes on the network's side; returns the function that stops it. */
  watch(listener: UpkeepListener): () => void;
}
