/**
 * Zigbee groups as devices of the registry: one device per group whose members share a
 * capability, so that every client of the device list switches a whole room with the D4 it
 * already sends, and the event stream shows the group like any device. Its capabilities are what
 * its members share (computed by its driver from their models); its state follows its members
 * (on when any is on: src/zigbee/groups.ts); it is online while its network runs and a member is
 * online. A group whose members share nothing (an empty one) is not listed.
 *
 * The devices belong to a driver of their own (`zigbee-group`, GroupDriver): a D4 reaches the
 * group's Zigbee driver as one group command, a D5 removes the group from its network. The Zigbee
 * drivers' own device lists are left as they are.
 */
import { ErrorCode } from '../../catalog/errors.ts';
import type { DeviceRecord, Driver, DriverCommand, Outcome } from '../devices/contract.ts';
import type { DeviceRegistry } from '../devices/registry.ts';
import type { ZigbeeGroup, ZigbeeUpkeep } from './contract.ts';

/** The driver the group devices are stored under. */
export const GROUP_DRIVER = 'zigbee-group';

/** A Zigbee driver that has groups. */
export interface GroupSource {
  driverId: string;
  ability: ZigbeeUpkeep;
}

/** `<driver>/<key>`: a group device's ref (the driver's id has no slash; a key may have). */
export function groupRef(driverId: string, key: string): string {
  return `${driverId}/${key}`;
}

/** The driver and key of a group device's ref. */
export function splitGroupRef(ref: string): { driverId: string; key: string } {
  const i = ref.indexOf('/');
  return { driverId: ref.slice(0, i), key: ref.slice(i + 1) };
}

/** What the group devices keep in their extra (never served). */
interface GroupExtra {
  network: string;
  key: string;
  id: number;
  members: ZigbeeGroup['members'];
}

export class GroupDevices {
  constructor(private readonly registry: DeviceRegistry) {}

  /** The device of a group, if it is listed. */
  deviceOf(driverId: string, key: string): DeviceRecord | undefined {
    return this.registry.findByRef(GROUP_DRIVER, groupRef(driverId, key));
  }

  /**
   * Lists the groups of every running Zigbee driver: added, changed, or removed (deleteDevice) when
   * gone or when their members no longer share anything. Groups of a driver that is not running
   * are kept, offline, as any device of a stopped driver is.
   */
  sync(sources: readonly GroupSource[]): void {
    this.registry.batch(() => {
      const listed = new Set<string>();
      for (const { driverId, ability } of sources) {
        for (const g of ability.groups()) {
          const ref = groupRef(driverId, g.key);
          // While its members' models are being read, a listed group stays as it is.
          if (g.pending && this.registry.findByRef(GROUP_DRIVER, ref)) {
            listed.add(ref);
            continue;
          }
          if (g.capabilities.length === 0) continue;
          listed.add(ref);
          const extra: GroupExtra = { network: g.network, key: g.key, id: g.id, members: g.members };
          if (!this.registry.findByRef(GROUP_DRIVER, ref) && this.registry.size >= this.registry.maxDevices) {
            // A group is listed as a device: past the most the gateway keeps (devices.max) it is not
            // listed (it still works on the network), and the groups listed before stay.
            continue;
          }
          this.registry.deviceFound(GROUP_DRIVER, {
            driver_ref: ref,
            name: g.name,
            manufacturer: 'Zigbee',
            model: 'Zigbee group',
            firmware_version: '',
            display_category: g.display_category,
            capabilities: g.capabilities,
            protocol: 'zigbee',
            online: this.online(driverId, ability, g),
            extra: { group: extra },
          });
        }
      }
      const running = new Set(sources.map((s) => s.driverId));
      for (const r of this.registry.listByDriver(GROUP_DRIVER)) {
        if (listed.has(r.driver_ref)) continue;
        if (running.has(splitGroupRef(r.driver_ref).driverId)) this.registry.deviceLeft(r.serial_number);
        else this.registry.onlineChanged(r.serial_number, false);
      }
    });
  }

  /** A group's state from its members (API form). */
  state(driverId: string, key: string, state: Record<string, unknown>): void {
    const d = this.deviceOf(driverId, key);
    if (d && Object.keys(state).length > 0) this.registry.stateReported(d.serial_number, state);
  }

  /** Online again or not, after a member's online changed (or the network's). */
  refreshOnline(sources: readonly GroupSource[]): void {
    this.registry.batch(() => {
      for (const { driverId, ability } of sources)
        for (const g of ability.groups()) {
          const d = this.deviceOf(driverId, g.key);
          if (d) this.registry.onlineChanged(d.serial_number, this.online(driverId, ability, g));
        }
    });
  }

  /** Online while the network answers and one member is online. */
  private online(driverId: string, ability: ZigbeeUpkeep, g: ZigbeeGroup): boolean {
    if (!ability.reachable(g.network).ok) return false;
    const members = new Set(g.members.map((m) => m.ieee));
    return this.registry
      .listByDriver(driverId)
      .some((d) => d.online && typeof d.extra.ieee_address === 'string' && members.has(d.extra.ieee_address));
  }
}

/**
 * The driver of the group devices: a D4 becomes one group command of the group's Zigbee driver,
 * a D6 answers the state the members give the group, a D5 removes the group from its network.
 */
export class GroupDriver implements Driver {
  readonly id = GROUP_DRIVER;

  /** `owner` finds the running Zigbee driver of a group device's ref. */
  constructor(private readonly owner: (driverId: string) => ZigbeeUpkeep | undefined) {}

  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  async execute(command: DriverCommand): Promise<Outcome> {
    const { driverId, key } = splitGroupRef(command.device.driver_ref);
    const ability = this.owner(driverId);
    if (!ability)
      return {
        ok: false,
        code: ErrorCode.GROUP_UPDATE_FAILED,
        message: `the ${driverId} driver of this group is not running`,
      };
    switch (command.kind) {
      case 'update-state':
        return ability.groupCommand(key, command.state, command.deadline);
      case 'query-state': {
        const value = command.device.state[command.capability];
        return { ok: true, state: value !== undefined ? { [command.capability]: value } : {} };
      }
      case 'configure':
        return { ok: true };
      case 'remove': {
        const r = await ability.removeGroup(key);
        return r.ok ? { ok: true } : { ok: false, code: r.code, message: r.message };
      }
    }
  }
}
