/**
 * The parameters of the Zigbee network the coordinator forms: PAN id, extended PAN id, network
 * key and channel. They are made once, at random, the first time the gateway starts in
 * `herdsman` mode, and kept in `network.json` of the Zigbee data folder (readable by the owner
 * only): every device paired is bound to them, so the file is never rewritten from scratch and a
 * file that cannot be read stops the coordinator with an error naming the file, rather than a
 * new network that would orphan every device. The key is never logged.
 *
 * The names and forms are those of Zigbee2MQTT's `advanced` settings (`pan_id`, `ext_pan_id`,
 * `network_key`, `channel`), so the values can be carried to and from a Zigbee2MQTT
 * `configuration.yaml` as they are (docs/zigbee.md, "Moving between Zigbee2MQTT and herdsman").
 */
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObject } from '../../lib/object.ts';

export interface NetworkParameters {
  /** 1-0xfffe. */
  pan_id: number;
  /** 8 bytes. */
  ext_pan_id: number[];
  /** 16 bytes. */
  network_key: number[];
  /** 11-26. */
  channel: number;
}

/** The file name in the Zigbee data folder. */
export const NETWORK_FILE = 'network.json';

/** Channels picked for a new network: between the Wi-Fi channels 1, 6 and 11, where there is the least interference. */
const PICKED_CHANNELS = [15, 20, 25] as const;

/** Raised when the network file cannot be used, or a channel is not a Zigbee channel; the message names the file or setting. */
export class NetworkParametersError extends Error {}

const isByte = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 255;

function bytes(v: unknown, length: number, what: string, file: string): number[] {
  if (!Array.isArray(v) || v.length !== length || !v.every(isByte))
    throw new NetworkParametersError(`${file}: ${what} must be ${length} numbers 0-255`);
  return v;
}

/** Reads and checks a network file's content; the error names the file and the field (never a value). */
export function parseNetworkParameters(text: string, file: string): NetworkParameters {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new NetworkParametersError(`${file}: not JSON`);
  }
  if (!isObject(raw)) throw new NetworkParametersError(`${file}: not a JSON object`);
  const pan = raw.pan_id;
  if (!Number.isInteger(pan) || (pan as number) < 1 || (pan as number) > 0xfffe)
    throw new NetworkParametersError(`${file}: pan_id must be an integer 1-65534`);
  const channel = raw.channel;
  if (!Number.isInteger(channel) || (channel as number) < 11 || (channel as number) > 26)
    throw new NetworkParametersError(`${file}: channel must be an integer 11-26`);
  return {
    pan_id: pan as number,
    ext_pan_id: bytes(raw.ext_pan_id, 8, 'ext_pan_id', file),
    network_key: bytes(raw.network_key, 16, 'network_key', file),
    channel: channel as number,
  };
}

/** New parameters, at random (the channel given, or one of 15, 20, 25). */
export function newNetworkParameters(channel = 0, random: (n: number) => Buffer = randomBytes): NetworkParameters {
  const pan = random(2).readUInt16BE(0) % 0xfffe; // 0-0xfffd, then 1-0xfffe
  return {
    pan_id: pan + 1,
    ext_pan_id: [...random(8)],
    network_key: [...random(16)],
    channel: channel || (PICKED_CHANNELS[randomInt(PICKED_CHANNELS.length)] as number),
  };
}

/** Writes the file readable by its owner only, replacing any earlier one at once (never half written). */
export function writeNetworkParameters(dir: string, p: NetworkParameters): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, NETWORK_FILE);
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(p, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/**
 * The network of the Zigbee data folder `dir`: read from its file, or made and written once. A
 * `channel` setting (11-26) other than the stored one moves the network to it (zigbee-herdsman
 * tells the devices to follow); 0 keeps the stored channel.
 */
export function loadNetworkParameters(
  dir: string,
  channel: number,
): { params: NetworkParameters; created: boolean; channelChanged: boolean } {
  if (channel !== 0 && (channel < 11 || channel > 26))
    throw new NetworkParametersError(`zigbee.channel: ${channel} is not a Zigbee channel (11-26, or 0 to pick one)`);
  const file = join(dir, NETWORK_FILE);
  if (!existsSync(file)) {
    const params = newNetworkParameters(channel);
    writeNetworkParameters(dir, params);
    return { params, created: true, channelChanged: false };
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new NetworkParametersError(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const params = parseNetworkParameters(text, file);
  if (channel === 0 || channel === params.channel) return { params, created: false, channelChanged: false };
  const moved = { ...params, channel };
  writeNetworkParameters(dir, moved);
  return { params: moved, created: false, channelChanged: true };
}
