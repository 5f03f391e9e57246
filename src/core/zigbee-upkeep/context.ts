/**
 * The lookups every Zigbee upkeep request makes: the running Zigbee drivers and their networks, a
 * device named by serial number (and that it is a Zigbee device of a running driver), a group
 * named by `<network>/<id>` or by its device's serial number, a channel's endpoint, and the views
 * that name devices by serial number. Failures are values in the API's envelope terms, their
 * messages `path: rule`.
 */
import { ErrorCode, type Failure, failure } from '../../catalog/errors.ts';
import { fmt } from '../../lib/format.ts';
import type { DeviceRecord } from '../devices/contract.ts';
import type { DeviceRegistry } from '../devices/registry.ts';
import type { DeviceService } from '../devices/service.ts';
import { invalid } from './checks.ts';
import type { ZigbeeEndpoint, ZigbeeGroup, ZigbeeUpkeep } from './contract.ts';
import { GROUP_DRIVER, type GroupDevices, type GroupSource } from './groups.ts';
import type { GroupView } from './views.ts';

/** An answer of the service: the value, or the failure in the envelope's terms. */
export type Answer<T> = { ok: true; value: T } | ({ ok: false } & Failure);

/** A device of a running Zigbee driver. */
export interface ZigbeeDevice {
  device: DeviceRecord;
  driverId: string;
  ability: ZigbeeUpkeep;
  network: string;
}

/** A group of a running Zigbee driver. */
export interface FoundGroup {
  driverId: string;
  ability: ZigbeeUpkeep;
  group: ZigbeeGroup;
}

/** A name in a message: quoted, whole (names are bounded; a value a client sent is shown with fmt). */
export const quoted = (name: string) => JSON.stringify(name);

/** The API's id of a group: `<network>/<Zigbee group id>`. */
export const groupId = (g: ZigbeeGroup) => `${g.network}/${g.id}`;

export class UpkeepContext {
  constructor(
    readonly registry: DeviceRegistry,
    readonly devices: DeviceService,
    readonly groupDevices: GroupDevices,
  ) {}

  /** The running drivers that have Zigbee networks. */
  sources(): GroupSource[] {
    return this.devices
      .live()
      .filter((d) => d.zigbee && d.id !== GROUP_DRIVER)
      .map((d) => ({ driverId: d.id, ability: d.zigbee as ZigbeeUpkeep }));
  }

  /** The ability of the running driver `driverId`. */
  ability(driverId: string): ZigbeeUpkeep | undefined {
    return this.devices.driver(driverId)?.zigbee;
  }

  /** Every network, with its driver. */
  networks(): { network: string; driverId: string; ability: ZigbeeUpkeep }[] {
    return this.sources().flatMap((s) => s.ability.networks().map((network) => ({ network, ...s })));
  }

  /** The network named (or the only one when none is). */
  network(name: unknown, path = 'network'): Answer<{ network: string; driverId: string; ability: ZigbeeUpkeep }> {
    const all = this.networks();
    const names = all.map((n) => n.network).join(', ');
    if (all.length === 0)
      return invalid(`${path}: no Zigbee network runs here (zigbee.mode is off, or its driver has not started)`);
    if (name === undefined) {
      if (all.length > 1) return invalid(`${path}: required: this gateway runs the networks ${names}`);
      return { ok: true, value: all[0] as (typeof all)[number] };
    }
    const found = all.find((n) => n.network === name);
    return found
      ? { ok: true, value: found }
      : invalid(`${path}: ${fmt(name)} is not a network here (there is ${names})`);
  }

  /** A device of a running Zigbee driver, named by its serial number at `path`. */
  device(serial: string, path: string): Answer<ZigbeeDevice> {
    const device = this.registry.get(serial);
    if (!device) return { ok: false, ...failure(ErrorCode.DEVICE_NOT_FOUND, `${path}: no device ${fmt(serial)}`) };
    if (device.driver === GROUP_DRIVER) return invalid(`${path}: ${quoted(device.name)} is a group, not a device`);
    const ability = this.ability(device.driver);
    if (!ability) {
      if (device.protocol === 'zigbee')
        return {
          ok: false,
          ...failure(ErrorCode.SERVER_ERROR, `the ${device.driver} driver of ${quoted(device.name)} is not running`),
        };
      return invalid(`${path}: ${quoted(device.name)} is not a Zigbee device`);
    }
    const network = ability.networkOf(device);
    if (network === undefined)
      return {
        ok: false,
        ...failure(ErrorCode.DEVICE_UPDATE_FAILED, `the Zigbee network does not list ${quoted(device.name)} (yet)`),
      };
    return { ok: true, value: { device, driverId: device.driver, ability, network } };
  }

  /** A group named by `<network>/<id>` or by its device's serial number, at `path`. */
  group(ref: string, path = 'group'): Answer<FoundGroup> {
    for (const { driverId, ability } of this.sources())
      for (const group of ability.groups()) {
        if (groupId(group) === ref || this.groupDevices.deviceOf(driverId, group.key)?.serial_number === ref)
          return { ok: true, value: { driverId, ability, group } };
      }
    return { ok: false, ...failure(ErrorCode.DEVICE_NOT_FOUND, `${path}: no group ${fmt(ref)}`) };
  }

  /** The endpoints of a device, or why they are not known. */
  endpoints(z: ZigbeeDevice): Answer<ZigbeeEndpoint[]> {
    const eps = z.ability.endpoints(z.device);
    if (!eps || eps.length === 0)
      return {
        ok: false,
        ...failure(
          ErrorCode.DEVICE_UPDATE_FAILED,
          `the Zigbee network has not said which endpoints ${quoted(z.device.name)} has (yet)`,
        ),
      };
    return { ok: true, value: eps };
  }

  /** The endpoint of a named channel at `path`; undefined when no channel is named. */
  channel(
    z: ZigbeeDevice,
    eps: ZigbeeEndpoint[],
    channel: string | undefined,
    path: string,
  ): Answer<ZigbeeEndpoint | undefined> {
    if (channel === undefined) return { ok: true, value: undefined };
    const ep = eps.find((e) => e.channel === channel);
    if (ep) return { ok: true, value: ep };
    const channels = eps.flatMap((e) => (e.channel ? [e.channel] : []));
    return invalid(
      `${path}: ${fmt(channel)} is not a channel of ${quoted(z.device.name)} (${channels.length > 0 ? `its channels are ${channels.join(', ')}` : 'it has no channels'})`,
    );
  }

  /** The devices of a driver by IEEE address (to name members, binding targets and map nodes). */
  byIeee(driverId: string): Map<string, DeviceRecord> {
    const out = new Map<string, DeviceRecord>();
    for (const d of this.registry.listByDriver(driverId))
      if (typeof d.extra.ieee_address === 'string') out.set(d.extra.ieee_address, d);
    return out;
  }

  /** A group as the service shows it. */
  groupView(driverId: string, ability: ZigbeeUpkeep, g: ZigbeeGroup): GroupView {
    const devices = this.byIeee(driverId);
    const serial = this.groupDevices.deviceOf(driverId, g.key)?.serial_number;
    return {
      group: groupId(g),
      network: g.network,
      id: g.id,
      name: g.name,
      ...(serial ? { serial_number: serial } : {}),
      members: g.members.map((m) => {
        const d = devices.get(m.ieee);
        const channel = d ? ability.endpoints(d)?.find((e) => e.id === m.endpoint)?.channel : undefined;
        return {
          ...(d ? { serial_number: d.serial_number, name: d.name } : {}),
          ...(channel ? { channel } : {}),
          ieee_address: m.ieee,
          endpoint: m.endpoint,
        };
      }),
      capabilities: g.capabilities,
      display_category: g.display_category,
    };
  }
}
