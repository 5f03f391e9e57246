/**
 * A camera as the console shows it: its stream address, account and what the probe found, with
 * the password left out of everything the page receives (the device view, its events). The
 * Open API serves the password to token holders as the spec shapes the setting (docs/cameras.md);
 * a console shows a form, and a password once typed is never shown back.
 */
import type { CapabilityObject } from '../../catalog/types.ts';
import { isObject } from '../../lib/object.ts';
import type { CameraView } from './views.ts';

const STREAM = 'camera-stream';

/** A URL without its user name and password (`rtsp://host:554/path`); text that is no URL as it is. */
export function withoutAccount(url: string): string {
  try {
    const u = new URL(url);
    if (u.username === '' && u.password === '') return url;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1');
  }
}

/** The stream setting value of a camera-stream capability (the probe's facts and the account). */
function streamValue(c: CapabilityObject): Record<string, unknown> {
  const v = c.settings?.streamSetting?.value;
  return isObject(v) ? v : {};
}

/** A copy of a stream value (setting or configuration) with no password in it. */
function clean(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'password') continue;
    out[k] = (k === 'streamUrl' || k === 'stream_url') && typeof v === 'string' ? withoutAccount(v) : v;
  }
  return out;
}

/** Capabilities with the camera-stream passwords taken out (of its settings and its configuration). */
export function withoutCredentials(capabilities: readonly CapabilityObject[]): CapabilityObject[] {
  return capabilities.map((c) => {
    if (c.capability !== STREAM) return c;
    const settings = c.settings?.streamSetting
      ? { ...c.settings, streamSetting: { ...c.settings.streamSetting, value: clean(c.settings.streamSetting.value) } }
      : c.settings;
    const config = c.configuration?.streamSetting;
    const configuration =
      isObject(config) && c.configuration
        ? { ...c.configuration, streamSetting: { ...config, value: clean(config.value) } }
        : c.configuration;
    return {
      ...c,
      ...(settings ? { settings } : {}),
      ...(configuration ? { configuration } : {}),
    };
  });
}

/** A device event's payload for a console: a device's capabilities without camera passwords. */
export function eventWithoutCredentials(payload: unknown): unknown {
  if (!isObject(payload) || !Array.isArray(payload.capabilities)) return payload;
  return { ...payload, capabilities: withoutCredentials(payload.capabilities as CapabilityObject[]) };
}

function fact(label: string, text: string | undefined): { label: string; text: string }[] {
  return text ? [{ label, text }] : [];
}

/** The camera's view, for a device with a camera-stream capability. */
export function cameraView(d: {
  capabilities: readonly CapabilityObject[];
  protocol?: string;
}): CameraView | undefined {
  const c = d.capabilities.find((x) => x.capability === STREAM);
  if (!c) return undefined;
  const v = streamValue(c);
  const config = c.configuration?.streamSetting;
  const configured = isObject(config) && isObject(config.value) ? config.value.stream_url : undefined;
  const url = typeof v.streamUrl === 'string' ? v.streamUrl : typeof configured === 'string' ? configured : '';
  const resolution = isObject(v.resolution) ? v.resolution : undefined;
  const str = (x: unknown) => (typeof x === 'string' && x !== '' ? x : undefined);
  const num = (x: unknown) => (typeof x === 'number' ? x : undefined);
  const audio = str(v.audioCodec);
  const rate = num(v.samplingRate);
  const dataRate = num(v.dataRate);
  return {
    protocol: d.protocol === 'esp32-cam' ? 'ESP32-CAM' : 'RTSP',
    stream_url: withoutAccount(url),
    username: str(v.username) ?? '',
    has_password: typeof v.password === 'string' && v.password !== '',
    facts: [
      ...fact('Video', str(v.videoCodec)),
      ...fact(
        'Picture size',
        resolution && num(resolution.width) && num(resolution.height)
          ? `${resolution.width} × ${resolution.height} pixels`
          : undefined,
      ),
      ...fact('Audio', audio ? (rate ? `${audio}, ${rate} Hz` : audio) : undefined),
      ...fact('Data rate', dataRate ? `${dataRate} kb/s` : undefined),
    ],
  };
}
