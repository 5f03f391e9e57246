/**
 * Reading a D2 body (spec 4.2: add a camera by hand) into what the driver probes and adds, and a
 * D4 camera-stream capability into the stream it now names. Clients differ in where they put the
 * stream URL: `configuration.streamSetting.value.stream_url` at the top of the body (the spec's
 * example), the same inside the capability, or `streamUrl` as in the 2.6 setting. All are read;
 * given twice, they must agree. A device is checked by its declared schema (CAMERA_SCHEMA, the
 * `path: rule` messages of every route) before what no schema says: the two spellings agreeing,
 * the capability as the catalog defines it, the stream URL. Problems are values: 400 naming the
 * path, 110011 for a URL that is not a stream address, 110015 for credentials in the URL that
 * differ from the account given.
 */
import { isDeepStrictEqual } from 'node:util';
import { compileStrict } from '../../catalog/compile-strict.ts';
import { ErrorCode } from '../../catalog/errors.ts';
import { type CapabilityObject, permissionBits, permissionCode, validateCapabilities } from '../../catalog/index.ts';
import { arr, obj, oneOf, opt, str } from '../../catalog/schema.ts';
import { isObject, own } from '../../lib/object.ts';
import { type Account, type CameraProtocol, maskUrl, parseStreamUrl, type StreamAddress } from './stream-url.ts';
import { type CameraFailure, cameraFailure } from './types.ts';

/** One camera to probe and add. */
export interface CameraSpec {
  name: string;
  protocol: CameraProtocol;
  address: StreamAddress;
  /** The account to use: the one given, or the one in the URL. */
  account?: Account;
  manufacturer: string;
  model: string;
  firmware_version: string;
  /** The capability's permission as sent (a read-only code or word); `0010` when none was sent. */
  permission: string;
  /** The capability's `configuration` as the client sent it (kept and served back). */
  configuration?: Record<string, unknown>;
}

/** Longest name, manufacturer, model accepted (as for D4 names). */
const MAX_TEXT = 256;
/** Most cameras one D2 request may add (a body may be one device or an array of them). */
export const MAX_CAMERAS_PER_REQUEST = 16;

const PROTOCOLS: Record<string, CameraProtocol> = { rtsp: 'rtsp', 'esp32-cam': 'esp32-cam' };

function bad(message: string): CameraFailure {
  return { ok: false, code: ErrorCode.INVALID_PARAMETERS, message };
}

/** A URL without its `user:pass@` part. */
function stripAccount(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@?#\s]*@/i, '$1');
}

/**
 * A copy with every string stream URL replaced by a well-formed one: the catalog checks the
 * shape of the capability, while the URL itself is judged by parseStreamUrl, whose failure is
 * 110011 (a bad stream address) rather than 400.
 */
function withoutUrls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutUrls);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    out[k] =
      (k === 'stream_url' || k === 'streamUrl') && typeof x === 'string' ? 'rtsp://checked.apart/' : withoutUrls(x);
  return out;
}

/** Where a stream setting value can be found, as [path, value object]. */
function streamValues(
  body: Record<string, unknown>,
  cap: Record<string, unknown>,
): [string, Record<string, unknown>][] {
  const out: [string, Record<string, unknown>][] = [];
  const pick = (path: string, holder: unknown) => {
    if (!isObject(holder) || !isObject(holder.streamSetting) || !isObject(holder.streamSetting.value)) return;
    out.push([`${path}.streamSetting.value`, holder.streamSetting.value]);
  };
  pick('configuration', body.configuration);
  pick('capabilities.0.configuration', cap.configuration);
  pick('capabilities.0.settings', cap.settings);
  return out;
}

/** The stream URL and account named by stream setting values; a failure when they disagree. */
export function streamSource(
  values: [string, Record<string, unknown>][],
): { url?: string; urlPath?: string; account?: Account } | CameraFailure {
  let url: string | undefined;
  let urlPath: string | undefined;
  let username: string | undefined;
  let password: string | undefined;
  for (const [path, value] of values) {
    for (const key of ['stream_url', 'streamUrl']) {
      const v = value[key];
      if (v === undefined) continue;
      if (typeof v !== 'string') return bad(`${path}.${key}: ${JSON.stringify(v)} is not a string`);
      if (v === '') continue;
      if (url !== undefined && stripAccount(v) !== stripAccount(url))
        return bad(
          `${path}.${key}: ${JSON.stringify(maskUrl(v))} differs from ${urlPath} ${JSON.stringify(maskUrl(url))}; give one stream URL`,
        );
      url ??= v;
      urlPath ??= `${path}.${key}`;
    }
    for (const key of ['username', 'password'] as const) {
      const v = value[key];
      if (v === undefined) continue;
      if (typeof v !== 'string') return bad(`${path}.${key}: expected a string`);
      if (key === 'username') username ??= v;
      else password ??= v;
    }
  }
  const account =
    username !== undefined || password !== undefined
      ? { username: username ?? '', password: password ?? '' }
      : undefined;
  return { ...(url !== undefined ? { url, urlPath } : {}), ...(account ? { account } : {}) };
}

/** Checks the account given against the one in the URL (110015) and returns the one to use. */
export function chooseAccount(address: StreamAddress, given: Account | undefined): Account | undefined | CameraFailure {
  const inUrl = address.account;
  const givenReal = given && (given.username !== '' || given.password !== '') ? given : undefined;
  if (inUrl && givenReal && (inUrl.username !== givenReal.username || inUrl.password !== givenReal.password))
    return cameraFailure(
      ErrorCode.CAMERA_PASSWORD_MISMATCH,
      inUrl.username !== givenReal.username
        ? `the URL names user ${JSON.stringify(inUrl.username)}, the account given is ${JSON.stringify(givenReal.username)}`
        : `the password in the URL is not the one given for user ${JSON.stringify(givenReal.username)}`,
    );
  return inUrl ?? givenReal;
}

/** A camera's protocol as clients write it: either word, in any case. */
const protocolWord = str({ pattern: /^(rtsp|esp32-cam)$/i, patternDoc: 'RTSP or ESP32-CAM' });
/** A text the camera may leave out (null reads as absent). */
const optionalText = opt(str({ maxLength: MAX_TEXT }));

/**
 * One device of a D2 body as data (spec 4.2). Open: clients send fields of other versions. The
 * capability object itself is the catalog's to check; the stream URL, in whichever of its three
 * places, is read after this (streamSource), as it may be given twice and must then agree.
 */
export const CAMERA_SCHEMA = obj(
  {
    name: str({ maxLength: MAX_TEXT, pattern: /\S/, patternDoc: 'a non-empty name' }),
    display_category: str({ pattern: /^camera$/i, patternDoc: 'camera (only cameras are added by hand)' }),
    // The spec's examples spell it `protocal`, its field table `protocol` (COMPAT.md): both are read.
    protocal: opt(protocolWord),
    protocol: opt(protocolWord),
    manufacturer: optionalText,
    model: optionalText,
    firmware_version: optionalText,
    capabilities: arr(obj({ capability: oneOf('camera-stream') }, { open: true }), {
      minItems: 1,
      maxItems: 1,
      doc: 'exactly one camera-stream capability',
    }),
    configuration: opt(obj({}, { open: true, doc: 'where the spec example puts streamSetting' })),
  },
  { open: true, atLeastOne: ['protocol', 'protocal'] },
);
const checkCamera = compileStrict(CAMERA_SCHEMA);
const TEXTS = ['name', 'manufacturer', 'model', 'firmware_version'] as const;

/** Reads one device of a D2 body; `at` prefixes paths (`0.` for the first of an array body). */
export function readCamera(raw: unknown, at = ''): CameraSpec | CameraFailure {
  // Clients send null for a text they do not know: read as absent (a name is then required).
  const body = isObject(raw) ? { ...raw } : raw;
  if (isObject(body)) for (const k of TEXTS) if (body[k] === null) delete body[k];
  const errors: string[] = [];
  // Paths as every route writes them: `name: ...` alone, `0.name: ...` in an array, `body: ...` for the whole.
  checkCamera(body, at.slice(0, -1), errors);
  if (errors.length > 0 || !isObject(body))
    return bad(errors.map((e) => (e.startsWith('.') ? e.slice(1) : e.startsWith(': ') ? `body${e}` : e)).join('; '));
  const name = body.name as string;

  let protocol: CameraProtocol | undefined;
  for (const k of ['protocol', 'protocal'] as const) {
    const v = body[k];
    if (typeof v !== 'string') continue;
    const p = own(PROTOCOLS, v.toLowerCase());
    if (protocol && p !== protocol) return bad(`${at}protocal and protocol name different protocols`);
    protocol = p;
  }
  const manufacturer = (body.manufacturer as string | undefined) ?? '';
  const model = (body.model as string | undefined) ?? '';
  const firmware = (body.firmware_version as string | undefined) ?? '';

  const cap = (body.capabilities as Record<string, unknown>[])[0] as Record<string, unknown>;
  // The catalog checks the object itself (settings and configuration shapes); a missing
  // permission is read as the catalog's own (configure only).
  const permission = cap.permission === undefined ? '0010' : cap.permission;
  const checked = validateCapabilities([withoutUrls({ ...cap, permission })], `${at}capabilities`);
  if (!checked.ok) return bad(checked.errors.join('; '));
  if (permissionBits(permissionCode(permission) as string).control)
    return bad(
      `${at}capabilities.0.permission: ${JSON.stringify(permission)} allows control; camera-stream is read-only`,
    );
  if (body.configuration !== undefined) {
    const top = validateCapabilities(
      [withoutUrls({ capability: 'camera-stream', permission: '0010', configuration: body.configuration })],
      'x',
    );
    if (!top.ok) return bad(top.errors.map((e) => e.replace(/^x\.0\.configuration/, `${at}configuration`)).join('; '));
  }

  const source = streamSource(streamValues(body, cap));
  if ('ok' in source) return { ...source, message: source.message.replace(/^/, at) };
  if (source.url === undefined)
    return bad(
      `${at}configuration.streamSetting.value.stream_url: required (the stream URL; also read from the capability's configuration or settings.streamSetting.value.streamUrl)`,
    );
  const address = parseStreamUrl(source.url, protocol as CameraProtocol);
  if ('error' in address)
    return cameraFailure(ErrorCode.CAMERA_STREAM_ADDRESS_ERROR, `${at}${source.urlPath}: ${address.error}`);
  const account = chooseAccount(address, source.account);
  if (account && 'ok' in account) return account;

  const configuration = isObject(cap.configuration)
    ? cap.configuration
    : isObject(body.configuration)
      ? body.configuration
      : undefined;
  return {
    name,
    protocol: protocol as CameraProtocol,
    address,
    ...(account ? { account } : {}),
    manufacturer,
    model,
    firmware_version: firmware,
    permission: permission as string,
    ...(configuration ? { configuration } : {}),
  };
}

/** Reads a D2 body: one device object, or an array of them (all are added, or none). */
export function readAddRequest(body: unknown): { ok: true; cameras: CameraSpec[] } | CameraFailure {
  if (body === undefined || body === null) return bad('body: required (the camera to add)');
  const list = Array.isArray(body) ? body : [body];
  if (list.length === 0) return bad('body: an empty array adds no camera');
  if (list.length > MAX_CAMERAS_PER_REQUEST)
    return bad(`body: at most ${MAX_CAMERAS_PER_REQUEST} cameras in one request, got ${list.length}`);
  const cameras: CameraSpec[] = [];
  for (const [i, raw] of list.entries()) {
    const c = readCamera(raw, Array.isArray(body) ? `${i}.` : '');
    if ('ok' in c) return c;
    cameras.push(c);
  }
  return { ok: true, cameras };
}

/**
 * The stream a D4 camera-stream capability now names: read from what changed (its configuration,
 * else its settings value); `url` is absent when neither names one, `account` when none is given.
 */
export function configuredSource(
  next: CapabilityObject,
  previous: CapabilityObject | undefined,
): { url?: string; account?: Account } | CameraFailure {
  const values: [string, Record<string, unknown>][] = [];
  const holders: [string, unknown, unknown][] = [
    ['configuration', next.configuration, previous?.configuration],
    ['capabilities.settings', next.settings, previous?.settings],
  ];
  for (const [path, holder, before] of holders) {
    if (isDeepStrictEqual(holder, before)) continue;
    if (isObject(holder) && isObject(holder.streamSetting) && isObject(holder.streamSetting.value))
      values.push([`${path}.streamSetting.value`, holder.streamSetting.value]);
  }
  const source = streamSource(values);
  if ('ok' in source) return source;
  return {
    ...(source.url !== undefined ? { url: source.url } : {}),
    ...(source.account ? { account: source.account } : {}),
  };
}
