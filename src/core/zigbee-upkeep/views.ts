/**
 * What the Zigbee upkeep service gives its callers (phase 2's routes and console) and publishes
 * on the bus: devices named by their serial numbers and channels (never IEEE addresses alone),
 * wire names in snake_case.
 */
import type { CapabilityObject } from '../../catalog/index.ts';
import type { FirmwareState, MapLink, MapNode } from './contract.ts';

/** A device's firmware. */
export interface FirmwareView {
  serial_number: string;
  /** Whether its model takes firmware updates. */
  supported: boolean;
  /**
   * `idle`: nothing newer known; `available`: a newer image was found; `checking`: a check runs;
   * `queued`: waiting for the update before it on the same network; `updating`: being installed;
   * `unknown`: never checked.
   */
  state: FirmwareState | 'checking' | 'queued' | 'unknown';
  installed_version?: number;
  latest_version?: number;
  /** While updating: percent done and seconds remaining (an estimate). */
  progress?: number;
  remaining?: number;
  /** While queued: its place (1: next). */
  position?: number;
  /** The software the device reports running (D3's firmware_version). */
  firmware_version: string;
  /** When the last check answered (ISO 8601). */
  checked_at?: string;
}

/** An event of a device's firmware: a check, an update queued, its progress, its end. */
export interface FirmwareEvent {
  serial_number: string;
  state: 'checking' | 'idle' | 'available' | 'queued' | 'updating' | 'updated' | 'failed' | 'cancelled';
  installed_version?: number;
  latest_version?: number;
  progress?: number;
  remaining?: number;
  position?: number;
  /** A failure's reason, in the backend's words (Zigbee2MQTT's or zigbee-herdsman's). */
  reason?: string;
  firmware_version?: string;
}

/** One member of a group: a device, or one channel of it. */
export interface GroupMemberView {
  /** Absent for a member the gateway does not list (a device not interviewed yet). */
  serial_number?: string;
  channel?: string;
  ieee_address: string;
  endpoint: number;
  name?: string;
}

/** A Zigbee group. */
export interface GroupView {
  /** Its id in this API: `<network>/<Zigbee group id>` (`zigbee2mqtt/3`). */
  group: string;
  network: string;
  /** Its Zigbee group id. */
  id: number;
  name: string;
  /** The device it is listed as (while its members share a capability). */
  serial_number?: string;
  members: GroupMemberView[];
  capabilities: CapabilityObject[];
  display_category: string;
}

/** An event of the groups: one created, changed (name, members) or removed. */
export interface GroupEvent {
  action: 'created' | 'changed' | 'removed';
  group: GroupView;
}

/** Where a binding sends. */
export type BindingTargetView =
  | { type: 'device'; serial_number?: string; channel?: string; ieee_address: string; endpoint: number }
  | { type: 'coordinator' }
  | { type: 'group'; group: string; serial_number?: string };

/** One binding of a device. */
export interface BindingView {
  cluster: string;
  source_endpoint: number;
  source_channel?: string;
  target: BindingTargetView;
}

/** A node of the network map, with the device it is in the API. */
export interface NetworkMapNode extends MapNode {
  serial_number?: string;
  name?: string;
  online?: boolean;
}

/** The network map of one network. */
export interface NetworkMapView {
  network: string;
  /** When the scan finished (ISO 8601). */
  scanned_at: string;
  routes: boolean;
  nodes: NetworkMapNode[];
  links: MapLink[];
}

/** A scan started: it runs on, its map comes as a `zigbee#networkMap` event `done`. */
export interface ScanStarted {
  network: string;
  state: 'scanning';
  /** When it started (ISO 8601). */
  since: string;
  routes: boolean;
}

/** An event of a network map scan. */
export interface NetworkMapEvent {
  network: string;
  state: 'scanning' | 'done' | 'failed';
  reason?: string;
  nodes?: number;
  links?: number;
}
