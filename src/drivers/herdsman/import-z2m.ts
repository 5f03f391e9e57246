/**
 * Taking over the network of a Zigbee2MQTT installation (`opencube zigbee import <folder>`), so
 * that a user who moves from `z2m` mode to `herdsman` mode with the same coordinator keeps every
 * paired device: Zigbee2MQTT's data folder holds zigbee-herdsman's own device database
 * (`database.db`) and the coordinator's network backup (`coordinator_backup.json`, the open
 * coordinator backup format, which Zigbee2MQTT 2.x writes for zstack, ember and deconz
 * coordinators). The backup gives the network's PAN id, extended PAN id, key and channel; with
 * them in network.json the coordinator resumes the same network. Nothing is overwritten: a
 * gateway that has a network of its own already is refused.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObject } from '../../lib/object.ts';
import { NETWORK_FILE, type NetworkParameters, writeNetworkParameters } from './network-parameters.ts';

/** Raised when the folder cannot be imported; the message says why and what to do. */
export class ImportError extends Error {}

export interface ImportResult {
  /** Devices in the imported database (the coordinator not counted). */
  devices: number;
  channel: number;
  pan_id: number;
}

const hexBytes = (v: unknown, bytes: number): number[] | undefined =>
  typeof v === 'string' && new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(v) ? [...Buffer.from(v, 'hex')] : undefined;

/** The network of an open coordinator backup; the error names the field (never a value). */
export function networkFromBackup(text: string, file: string): NetworkParameters {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ImportError(`${file}: not JSON`);
  }
  if (!isObject(raw) || !isObject(raw.metadata) || raw.metadata.format !== 'zigpy/open-coordinator-backup')
    throw new ImportError(`${file}: not an open coordinator backup (metadata.format)`);
  const pan =
    typeof raw.pan_id === 'string' && /^[0-9a-fA-F]{1,4}$/.test(raw.pan_id) ? Number.parseInt(raw.pan_id, 16) : 0;
  if (pan < 1 || pan > 0xfffe) throw new ImportError(`${file}: pan_id must be 1-4 hex digits, 0001-fffe`);
  const ext = hexBytes(raw.extended_pan_id, 8);
  if (!ext) throw new ImportError(`${file}: extended_pan_id must be 16 hex digits`);
  const key = hexBytes(isObject(raw.network_key) ? raw.network_key.key : undefined, 16);
  if (!key) throw new ImportError(`${file}: network_key.key must be 32 hex digits`);
  const channel = raw.channel;
  if (!Number.isInteger(channel) || (channel as number) < 11 || (channel as number) > 26)
    throw new ImportError(`${file}: channel must be an integer 11-26`);
  return { pan_id: pan, ext_pan_id: ext, network_key: key, channel: channel as number };
}

/** Devices in a zigbee-herdsman database (one JSON object a line), the coordinator not counted. */
export function countDevices(text: string, file: string): number {
  let n = 0;
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      throw new ImportError(`${file}: line ${i + 1} is not JSON`);
    }
    if (isObject(entry) && typeof entry.ieeeAddr === 'string' && entry.type !== 'Coordinator') n++;
  }
  return n;
}

/** Copies a Zigbee2MQTT data folder's network into the Zigbee data folder `to`. */
export function importZigbee2mqtt(from: string, to: string): ImportResult {
  if (existsSync(join(to, NETWORK_FILE)))
    throw new ImportError(
      `${join(to, NETWORK_FILE)} exists: this gateway has a Zigbee network of its own already; move its zigbee folder away first to replace it`,
    );
  const backupFile = join(from, 'coordinator_backup.json');
  const databaseFile = join(from, 'database.db');
  if (!existsSync(backupFile))
    throw new ImportError(
      `${backupFile} not found: give the data folder of Zigbee2MQTT (the one with configuration.yaml); Zigbee2MQTT 2.x writes this backup for zstack, ember and deconz coordinators (docs/zigbee.md says what to do without one)`,
    );
  if (!existsSync(databaseFile)) throw new ImportError(`${databaseFile} not found: it lists the paired devices`);
  const network = networkFromBackup(readFileSync(backupFile, 'utf8'), backupFile);
  const devices = countDevices(readFileSync(databaseFile, 'utf8'), databaseFile);
  // The database and the backup first: network.json last, so an import cut short can be done again.
  mkdirSync(to, { recursive: true, mode: 0o700 });
  copyFileSync(databaseFile, join(to, 'database.db'));
  copyFileSync(backupFile, join(to, 'coordinator_backup.json'));
  writeNetworkParameters(to, network);
  return { devices, channel: network.channel, pan_id: network.pan_id };
}
