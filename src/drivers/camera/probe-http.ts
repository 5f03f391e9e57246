/**
 * ESP32-CAM boards over HTTP: probing (the given path answers an MJPEG stream,
 * `multipart/x-mixed-replace`, or one JPEG, `image/jpeg`), finding the other of the two where
 * the board's usual layout puts it (capture at `/capture`, stream at `/stream`, the stream often
 * on port 81), reading one frame, and the watcher's liveness check.
 */
import type { Dispatcher } from 'undici';
import { ErrorCode } from '../../catalog/errors.ts';
import type { LazyAgent } from '../../lib/lazy-agent.ts';
import type { Log } from '../../lib/log.ts';
import { basicAuthorization } from './auth.ts';
import { isJpeg, jpegSize, MAX_FRAME_BYTES, MultipartReader, multipartBoundary } from './mjpeg.ts';
import { type Account, hostPort, type StreamAddress } from './stream-url.ts';
import { cameraFailure, noCameraAt, type ProbeOutcome, type StreamFacts } from './types.ts';

export interface HttpProbeOptions {
  deadline: number;
  dispatcher: LazyAgent;
  now?: () => number;
  /** Where the reasons a probe does not tell the client go (at debug). */
  log?: Log;
}

/** What a client is told of a path that answers, but not as a camera: never what it answered. */
const NOT_A_CAMERA = 'answered neither an MJPEG stream nor a JPEG';

/** Longest a look for the other path (capture or stream) may take within the probe's time. */
const SIDE_LOOK_MS = 1000;

function authHeaders(account: Account | undefined): Record<string, string> {
  return account && (account.username !== '' || account.password !== '')
    ? { authorization: basicAuthorization(account) }
    : {};
}

type Fetched =
  | { ok: true; status: number; contentType: string; body: Dispatcher.ResponseData['body'] }
  | { ok: false; kind: 'unresolvable' | 'unreachable' | 'not-http' | 'timeout'; detail: string };

/** Opens a GET (or HEAD); the caller reads or destroys the body. */
async function open(
  url: string,
  account: Account | undefined,
  waitMs: number,
  dispatcher: LazyAgent,
  method: 'GET' | 'HEAD' = 'GET',
): Promise<Fetched> {
  if (waitMs <= 0) return { ok: false, kind: 'timeout', detail: 'no time was left' };
  // One timer for the whole exchange, body included; cleared once the body is closed, so no
  // abort fires into a finished request.
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), waitMs);
  const signal = abort.signal;
  try {
    const res = await dispatcher.request(url, { method, headers: authHeaders(account), signal });
    res.body.on('error', () => {}); // read errors surface in the reader; a late one must not be uncaught
    res.body.once('close', () => clearTimeout(timer));
    const type = res.headers['content-type'];
    return {
      ok: true,
      status: res.statusCode,
      contentType: (Array.isArray(type) ? type[0] : type) ?? '',
      body: res.body,
    };
  } catch (err) {
    clearTimeout(timer);
    const e = err as Error & { code?: string; cause?: { code?: string } };
    const code = e.cause?.code ?? e.code ?? e.name;
    if (signal.aborted || /Timeout/i.test(code))
      return { ok: false, kind: 'timeout', detail: `no answer within ${waitMs} ms` };
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL')
      return { ok: false, kind: 'unresolvable', detail: `the host name does not resolve (${code})` };
    if (/HTTP_PARSER|HPE_|SocketError|UND_ERR_SOCKET/i.test(code) || e.name === 'HTTPParserError')
      return { ok: false, kind: 'not-http', detail: `the answer is not HTTP (${code})` };
    return { ok: false, kind: 'unreachable', detail: code };
  }
}

function drop(body: Dispatcher.ResponseData['body']): void {
  body.destroy();
}

/** Reads a whole JPEG body (bounded); undefined when it is larger than a frame or cut off. */
async function readJpeg(body: Dispatcher.ResponseData['body']): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > MAX_FRAME_BYTES) {
        drop(body);
        return undefined;
      }
      chunks.push(chunk as Buffer);
    }
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks);
}

/** Reads the first frame of an MJPEG body, then closes it; undefined when none came in time. */
async function firstFrame(body: Dispatcher.ResponseData['body'], boundary: string): Promise<Buffer | undefined> {
  let frame: Buffer | undefined;
  const reader = new MultipartReader(boundary, (f) => {
    frame ??= f;
  });
  try {
    for await (const chunk of body) {
      reader.push(chunk as Buffer);
      if (frame) break;
    }
  } catch {
    // aborted at the deadline, or cut by the camera
  } finally {
    drop(body);
  }
  return frame;
}

/** The URL of `path` on the same host, on `port` (or the same port). */
function sibling(address: StreamAddress, path: string, port = address.port): string {
  const scheme = address.url.slice(0, address.url.indexOf('://'));
  const host = address.hostname.includes(':') ? `[${address.hostname}]` : address.hostname;
  return `${scheme}://${host}:${port}${path}`;
}

/** Candidate capture paths for a board whose stream is at `address`, in the usual layouts. */
function captureCandidates(address: StreamAddress): string[] {
  const out = [sibling(address, '/capture')];
  if (address.port === 81) out.push(sibling(address, '/capture', 80));
  return out.filter((u) => u !== address.url);
}

/** Candidate stream paths for a board whose capture path is at `address`. */
function streamCandidates(address: StreamAddress): string[] {
  const out = [sibling(address, '/stream')];
  if (address.port === 80) out.push(sibling(address, '/stream', 81));
  return out.filter((u) => u !== address.url);
}

/**
 * One JPEG from a capture URL, or why not (for the snapshot's error and the log): in words, never
 * what the server answered.
 */
export async function fetchCapture(
  url: string,
  account: Account | undefined,
  waitMs: number,
  dispatcher: LazyAgent,
): Promise<{ ok: true; jpeg: Buffer } | { ok: false; reason: string }> {
  const r = await open(url, account, waitMs, dispatcher);
  if (!r.ok) return { ok: false, reason: 'the capture path could not be reached' };
  if (r.status !== 200 || !/^image\/jpeg\b/i.test(r.contentType)) {
    drop(r.body);
    return { ok: false, reason: 'the capture path answered no JPEG' };
  }
  const jpeg = await readJpeg(r.body);
  return jpeg && isJpeg(jpeg) ? { ok: true, jpeg } : { ok: false, reason: 'the capture path answered no whole JPEG' };
}

/** The first frame of an MJPEG stream URL, or why not (in words, as fetchCapture). */
export async function fetchStreamFrame(
  url: string,
  account: Account | undefined,
  waitMs: number,
  dispatcher: LazyAgent,
): Promise<{ ok: true; jpeg: Buffer } | { ok: false; reason: string }> {
  const r = await open(url, account, waitMs, dispatcher);
  if (!r.ok) return { ok: false, reason: 'the stream could not be reached' };
  const boundary = multipartBoundary(r.contentType);
  if (r.status !== 200 || !boundary) {
    drop(r.body);
    return { ok: false, reason: 'the stream answered no MJPEG' };
  }
  const frame = await firstFrame(r.body, boundary);
  return frame && isJpeg(frame)
    ? { ok: true, jpeg: frame }
    : { ok: false, reason: 'no whole frame came from the stream' };
}

/** Whether `url` answers an MJPEG stream (headers only). */
async function isStream(url: string, account: Account | undefined, waitMs: number, d: LazyAgent): Promise<boolean> {
  const r = await open(url, account, waitMs, d);
  if (!r.ok) return false;
  drop(r.body);
  return r.status === 200 && multipartBoundary(r.contentType) !== undefined;
}

/** Probes an ESP32-CAM path. Never throws. */
export async function probeEsp32(
  address: StreamAddress,
  account: Account | undefined,
  opts: HttpProbeOptions,
): Promise<ProbeOutcome> {
  const now = opts.now ?? Date.now;
  const r = await open(address.url, account, opts.deadline - now(), opts.dispatcher);
  if (!r.ok) {
    // Refused, cut, silent, unresolvable or not HTTP: one answer (a scanner learns nothing).
    opts.log?.debug({ address: hostPort(address), detail: r.detail }, 'camera probe: no web server answered');
    return noCameraAt(address);
  }
  if (r.status === 401 || r.status === 403) {
    drop(r.body);
    return cameraFailure(
      ErrorCode.CAMERA_AUTH_ERROR,
      account ? 'the camera refused the account given' : 'the camera needs a username and password',
    );
  }
  const notACamera = () => {
    opts.log?.debug(
      { path: address.path, status: r.status, content_type: r.contentType.slice(0, 100) },
      'camera probe: the path answered, not as a camera',
    );
    return cameraFailure(ErrorCode.ESP_CAMERA_PATH_WRONG, `${address.path} ${NOT_A_CAMERA}`);
  };
  if (r.status !== 200) {
    drop(r.body);
    return notACamera();
  }
  const facts: StreamFacts = { protocol: 'esp32-cam', videoCodec: 'MJPEG' };
  const boundary = multipartBoundary(r.contentType);
  if (boundary) {
    facts.mjpegUrl = address.url;
    const frame = await firstFrame(r.body, boundary);
    const size = frame && jpegSize(frame);
    if (size) facts.resolution = size;
    for (const url of captureCandidates(address)) {
      const got = await fetchCapture(url, account, Math.min(SIDE_LOOK_MS, opts.deadline - now()), opts.dispatcher);
      if (got.ok) {
        facts.captureUrl = url;
        facts.resolution ??= jpegSize(got.jpeg);
        break;
      }
    }
    return { ok: true, facts };
  }
  if (/^image\/jpeg\b/i.test(r.contentType)) {
    const jpeg = await readJpeg(r.body);
    const size = jpeg && isJpeg(jpeg) ? jpegSize(jpeg) : undefined;
    if (!size) return notACamera();
    facts.captureUrl = address.url;
    facts.resolution = size;
    for (const url of streamCandidates(address)) {
      if (await isStream(url, account, Math.min(SIDE_LOOK_MS, opts.deadline - now()), opts.dispatcher)) {
        facts.mjpegUrl = url;
        break;
      }
    }
    return { ok: true, facts };
  }
  drop(r.body);
  return notACamera();
}

/** Checks that a board answers at all (the watcher): any HTTP answer to HEAD counts. */
export async function httpAlive(
  url: string,
  account: Account | undefined,
  waitMs: number,
  dispatcher: LazyAgent,
): Promise<{ alive: true } | { alive: false; reason: string }> {
  const r = await open(url, account, waitMs, dispatcher, 'HEAD');
  if (!r.ok) return { alive: false, reason: r.detail };
  drop(r.body);
  return { alive: true };
}
