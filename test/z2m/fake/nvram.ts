/**
 * The network a fake coordinator keeps in its NVRAM, its backup, and what it does at start, as a
 * Z-Stack 3 coordinator under zigbee-herdsman 10.9 does (facts from its adapter: the start
 * strategy of `z-stack/adapter/manager.js`, the backup model of `models/backup.d.ts`, the open
 * coordinator backup file that herdsman writes from it, and the frame counter raised by 2500 on a
 * restore so that devices do not take the restored coordinator's frames for replays):
 *
 * - NVRAM holding the configured network (PAN id, extended PAN id, key): `resumed`;
 * - otherwise (a blank or another network), a backup file holding the configured network: it is
 *   written into NVRAM, `restored` (herdsman keeps its device database);
 * - otherwise the configured network is formed anew, `reset` (herdsman clears its database, and
 *   every device must be paired again even with the same key: its frame counter starts over).
 */
import { existsSync, readFileSync } from 'node:fs';

/** What makes a network the same network for its devices. */
export interface NetworkIdentity {
  panId: number;
  /** Hex, 16 digits. */
  extendedPanId: string;
  /** Hex, 32 digits. */
  networkKey: string;
}

export interface CoordinatorNvram extends NetworkIdentity {
  channel: number;
  /** The outgoing network frame counter. */
  frameCounter: number;
}

/** The margin Z-Stack's restore adds to the backed-up frame counter (frames sent after the backup). */
export const RESTORE_FRAME_COUNTER_MARGIN = 2500;

export function sameNetwork(a: NetworkIdentity, b: NetworkIdentity): boolean {
  return a.panId === b.panId && a.extendedPanId === b.extendedPanId && a.networkKey === b.networkKey;
}

/** The network options herdsman hands an adapter, as NVRAM contents. */
export function configuredNetwork(o: {
  panID: number;
  extendedPanID?: number[];
  channelList: number[];
  networkKey?: number[];
}): CoordinatorNvram {
  const hex = (bytes: number[]) => Buffer.from(bytes).toString('hex');
  return {
    panId: o.panID,
    extendedPanId: hex(o.extendedPanID ?? Array(8).fill(0xdd)),
    networkKey: hex(o.networkKey ?? Array(16).fill(0)),
    channel: o.channelList[0] ?? 11,
    frameCounter: 0,
  };
}

/** What the coordinator does at start, and the NVRAM it runs with then. */
export function startStrategy(
  current: CoordinatorNvram | undefined,
  configured: CoordinatorNvram,
  backup: CoordinatorNvram | undefined,
): { result: 'resumed' | 'restored' | 'reset'; nvram: CoordinatorNvram } {
  // The channel is not compared: herdsman moves a resumed network to the configured channel itself.
  if (current && sameNetwork(current, configured))
    return { result: 'resumed', nvram: { ...current, channel: configured.channel } };
  if (backup && sameNetwork(backup, configured))
    return {
      result: 'restored',
      nvram: { ...backup, frameCounter: backup.frameCounter + RESTORE_FRAME_COUNTER_MARGIN },
    };
  return { result: 'reset', nvram: { ...configured, frameCounter: 0 } };
}

/** The open coordinator backup file herdsman wrote (`zigpy/open-coordinator-backup` version 1), if there is one. */
export function readBackupFile(path: string): CoordinatorNvram | undefined {
  if (!existsSync(path)) return undefined;
  const data = JSON.parse(readFileSync(path, 'utf8'));
  if (data?.metadata?.format !== 'zigpy/open-coordinator-backup' || data.metadata.version !== 1)
    throw new Error(`${path}: not an open coordinator backup (version 1)`);
  return {
    panId: Number.parseInt(data.pan_id, 16),
    extendedPanId: data.extended_pan_id,
    networkKey: data.network_key.key,
    channel: data.channel,
    frameCounter: data.network_key.frame_counter,
  };
}

/** A backup in herdsman's internal model (what `adapter.backup()` returns; herdsman writes the file from it). */
export function backupOf(
  nvram: CoordinatorNvram,
  coordinatorIeee: string,
  devices: { ieee: string; nwk: number }[],
): unknown {
  const eui64 = (ieee: string) => Buffer.from(ieee.replace(/^0x/, ''), 'hex');
  return {
    networkOptions: {
      panId: nvram.panId,
      extendedPanId: Buffer.from(nvram.extendedPanId, 'hex'),
      channelList: [nvram.channel],
      networkKey: Buffer.from(nvram.networkKey, 'hex'),
      networkKeyDistribute: false,
    },
    logicalChannel: nvram.channel,
    networkKeyInfo: { sequenceNumber: 0, frameCounter: nvram.frameCounter },
    securityLevel: 5,
    networkUpdateId: 0,
    coordinatorIeeeAddress: eui64(coordinatorIeee),
    devices: devices.map((d) => ({ networkAddress: d.nwk, ieeeAddress: eui64(d.ieee), isDirectChild: false })),
    // Z-Stack 3.x (herdsman's ZnpVersion.ZStack3x0).
    znp: { version: 1 },
  };
}
