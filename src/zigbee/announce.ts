/**
 * How a Zigbee device becomes a device of the API, the same through every Zigbee driver (a
 * device paired through Zigbee2MQTT or through a coordinator of our own looks the same in D3 and
 * on the stream): its model's exposes mapped to capabilities, its channels labelled in
 * `tags.toggle`, and, when it is known already, only what changed updated (never re-added).
 */
import { sanitizeReport } from '../catalog/index.ts';
import {
  type DeviceAnnouncement,
  DeviceLimitReached,
  type DeviceRecord,
  type DriverHost,
} from '../core/devices/contract.ts';
import type { Log } from '../lib/log.ts';
import { isObject } from '../lib/object.ts';
import type { Expose } from './exposes.ts';
import { type DeviceMapping, toApiState } from './mapping.ts';

/** What a Zigbee driver knows of one device when it announces it (found, or listed again). */
export interface ZigbeeDeviceInfo {
  /** The driver's own id of the device (DeviceRecord.driver_ref). */
  ref: string;
  /** Its IEEE address (`0x` and 16 hex digits), kept in `extra.ieee_address` by every Zigbee driver. */
  ieee: string;
  /**
   * The other Zigbee drivers whose stored devices this one takes over when it finds the same
   * device (same IEEE address): moving between Zigbee2MQTT and a coordinator of the gateway's own
   * keeps serial numbers, names, tags and state.
   */
  adoptFrom: readonly string[];
  /** The name announced: the backend's own name of the device, or its model's description. */
  name: string;
  vendor: string;
  model: string;
  firmware: string;
  exposes: Expose[];
  /** `JSON.stringify(exposes)`, as the caller has it already. */
  exposesJson: string;
  mapping: DeviceMapping;
  /** Whether it is online, for a device added now. */
  online: boolean;
  /** Driver-private fields kept with the device (`exposes` and `channel_aliases` are added here). */
  extra: Record<string, unknown>;
  /** Whether the backend renamed the device since `stored` (the extra kept with it) was written. */
  renamed(stored: Record<string, unknown>): boolean;
}

/**
 * Adds the device (addDevice), or reconciles the one stored under the same ref: a rename on the
 * backend's side, new capabilities (their channels labelled, unless the user's tags already do),
 * new exposes or channel names (updateDeviceInfo only when something changed). A new device past
 * the most the gateway keeps is not added: `refused` says why.
 */
export function announceZigbeeDevice(
  host: DriverHost,
  driver: string,
  d: ZigbeeDeviceInfo,
): { added: boolean; record: DeviceRecord } | { added: false; refused: string } {
  const labels = d.mapping.channelLabels;
  const extra = { ...d.extra, exposes: d.exposes, channel_aliases: d.mapping.channelAliases };
  const existing = host.findByRef(driver, d.ref) ?? adopt(host, driver, d);
  if (!existing) {
    const announcement: DeviceAnnouncement = {
      driver_ref: d.ref,
      name: d.name,
      manufacturer: d.vendor,
      model: d.model,
      firmware_version: d.firmware,
      display_category: d.mapping.display_category,
      capabilities: d.mapping.capabilities,
      protocol: 'zigbee',
      online: d.online,
      ...(Object.keys(labels).length > 0 ? { tags: { toggle: labels } } : {}),
      extra,
    };
    try {
      return { added: true, record: host.deviceFound(driver, announcement) };
    } catch (err) {
      // The device stays on the Zigbee network; the gateway lists it once there is room.
      if (err instanceof DeviceLimitReached) return { added: false, refused: err.message };
      throw err;
    }
  }
  const prev = existing.extra ?? {};
  const info: Parameters<DriverHost['infoUpdated']>[1] = {};
  if (d.renamed(prev)) info.name = d.name;
  if (JSON.stringify(existing.capabilities) !== JSON.stringify(d.mapping.capabilities)) {
    info.capabilities = d.mapping.capabilities;
    // Channels renumbered (or new): label them, unless the user's tags already do.
    if (Object.keys(labels).length > 0 && !isObject(existing.tags?.toggle))
      info.tags = { ...existing.tags, toggle: labels };
  }
  // A firmware update (or one made elsewhere) shows at the device's next interview.
  if (d.firmware !== '' && d.firmware !== existing.firmware_version) info.firmware_version = d.firmware;
  if (
    info.name !== undefined ||
    info.firmware_version !== undefined ||
    info.capabilities ||
    JSON.stringify(prev.exposes) !== d.exposesJson ||
    JSON.stringify(prev.channel_aliases) !== JSON.stringify(extra.channel_aliases)
  ) {
    info.extra = extra;
    host.infoUpdated(existing.serial_number, info);
  }
  return { added: false, record: existing };
}

/** The device as another Zigbee driver stored it, moved to this one; undefined when there is none. */
function adopt(host: DriverHost, driver: string, d: ZigbeeDeviceInfo): DeviceRecord | undefined {
  for (const other of d.adoptFrom) {
    const stored = host.listByDriver(other).find((r) => r.extra.ieee_address === d.ieee);
    if (stored) return host.adopt(stored.serial_number, driver, d.ref);
  }
  return undefined;
}

/**
 * A state in Zigbee2MQTT's form (keyed by property, as zigbee-herdsman-converters produce it) as
 * an API report, cleaned like every device report: clamped or dropped, each with a warning.
 */
export function reportedState(
  mapping: DeviceMapping,
  z: Record<string, unknown>,
  warn: (warnings: string[]) => void,
): Record<string, unknown> {
  const clean = sanitizeReport(mapping.capabilities, toApiState(mapping, z));
  if (clean.warnings.length > 0) warn(clean.warnings);
  return clean.state;
}

/**
 * Says which models have exposes the mapping leaves out, once per model: their lists at `debug`
 * for whoever extends the mapping, and one line at `info` for each batch of models found together
 * (a whole device list at start-up is one line, not one per model).
 */
export class LeftOutLog {
  private readonly seen = new Set<string>();
  private pending: string[] = [];

  constructor(
    private readonly log: Log,
    private readonly driver: string,
    private readonly defer: (flush: () => void) => void = (flush) => setImmediate(flush),
  ) {}

  /** Notes what a device of `model` leaves out (nothing: nothing to say). */
  note(model: string, unmapped: readonly string[]): void {
    if (unmapped.length === 0 || this.seen.has(model)) return;
    this.seen.add(model);
    this.log.debug({ model, unmapped }, `${this.driver}: exposes left out of the mapping`);
    if (this.pending.length === 0) this.defer(() => this.flush());
    this.pending.push(model);
  }

  private flush(): void {
    const models = this.pending;
    this.pending = [];
    if (models.length === 0) return;
    const who = models.length === 1 ? `${models[0]} has` : `${models.length} models have`;
    this.log.info({ models }, `${this.driver}: ${who} features the API does not offer (listed at debug level)`);
  }
}
