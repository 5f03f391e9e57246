/**
 * A camera as the driver keeps it with its device: the stream address, the account, and what
 * the probe found (for ESP32-CAM boards, where the stream and the capture path are). Stored in
 * the device's `extra` (never served); the served camera-stream capability is built from it.
 */
import type { CapabilityObject } from '../../catalog/index.ts';
import type { DeviceRecord } from '../../core/devices/contract.ts';
import {
  type Account,
  type CameraProtocol,
  parseStreamUrl,
  type StreamAddress,
  streamIdentity,
  urlWithAccount,
} from './stream-url.ts';
import type { StreamFacts } from './types.ts';

export const CAMERA_DRIVER = 'camera';

/** What the driver needs of one camera. */
export interface Camera {
  serial: string;
  protocol: CameraProtocol;
  address: StreamAddress;
  account?: Account;
  /** ESP32-CAM: the MJPEG stream and the capture path, when known (no credentials). */
  mjpegUrl?: string;
  captureUrl?: string;
}

/** The device's `extra` of a camera: what `cameraOf` reads back. */
export function cameraExtra(address: StreamAddress, account: Account | undefined, facts: StreamFacts) {
  return {
    url: address.url,
    stream_key: streamIdentity(address),
    username: account?.username ?? '',
    password: account?.password ?? '',
    mjpeg_url: facts.mjpegUrl ?? null,
    capture_url: facts.captureUrl ?? null,
  };
}

/** The camera of a device record; undefined when the record is not a camera this driver can read. */
export function cameraOf(d: DeviceRecord): Camera | undefined {
  const protocol = d.protocol === 'rtsp' || d.protocol === 'esp32-cam' ? d.protocol : undefined;
  const url = d.extra.url;
  if (!protocol || typeof url !== 'string') return undefined;
  const address = parseStreamUrl(url, protocol);
  if ('error' in address) return undefined;
  const username = typeof d.extra.username === 'string' ? d.extra.username : '';
  const password = typeof d.extra.password === 'string' ? d.extra.password : '';
  return {
    serial: d.serial_number,
    protocol,
    address,
    ...(username !== '' || password !== '' ? { account: { username, password } } : {}),
    ...(typeof d.extra.mjpeg_url === 'string' ? { mjpegUrl: d.extra.mjpeg_url } : {}),
    ...(typeof d.extra.capture_url === 'string' ? { captureUrl: d.extra.capture_url } : {}),
  };
}

/** The identity of a device's stream (110013), from its extra. */
export function streamKeyOf(d: DeviceRecord): string | undefined {
  return typeof d.extra.stream_key === 'string' ? d.extra.stream_key : undefined;
}

/** The stream setting value of spec 2.6 filled from a probe: only what the stream told. */
export function streamSettingValue(
  address: StreamAddress,
  account: Account | undefined,
  facts: StreamFacts,
): Record<string, unknown> {
  const value: Record<string, unknown> = {
    username: account?.username ?? '',
    password: account?.password ?? '',
    streamUrl: urlWithAccount(address, account),
    videoCodec: facts.videoCodec,
  };
  if (facts.resolution) value.resolution = { ...facts.resolution };
  if (facts.audioCodec !== undefined) value.audioCodec = facts.audioCodec;
  if (facts.samplingRate !== undefined) value.samplingRate = facts.samplingRate;
  if (facts.dataRate !== undefined) value.dataRate = facts.dataRate;
  return value;
}

/** The camera-stream capability of a camera: settings from the probe, configuration as the client gave it. */
export function cameraCapability(
  address: StreamAddress,
  account: Account | undefined,
  facts: StreamFacts,
  permission: string,
  configuration: Record<string, unknown> | undefined,
): CapabilityObject {
  return {
    capability: 'camera-stream',
    permission,
    settings: {
      streamSetting: { type: 'object', permission: '11', value: streamSettingValue(address, account, facts) },
    },
    configuration: configuration ?? {
      streamSetting: { type: 'object', permission: '11', value: { stream_url: urlWithAccount(address, account) } },
    },
  };
}
