/**
 * Probing an RTSP camera before it is added (D2) or re-configured (D4): OPTIONS, then DESCRIBE
 * for the SDP, over one TCP connection, answering 401 with the account. Every way it can fail
 * becomes one error code of spec section 7 (docs/cameras.md lists them with their causes).
 */
import type { LookupFunction } from 'node:net';
import { ErrorCode } from '../../catalog/errors.ts';
import type { Log } from '../../lib/log.ts';
import { h264SizeFromFmtp, h265SizeFromFmtp } from './parameter-sets.ts';
import { header, type RtspResponse, withRtspSession } from './rtsp-client.ts';
import { parseSdp, type SdpMedia } from './sdp.ts';
import { type Account, hostPort, type StreamAddress } from './stream-url.ts';
import { type CameraFailure, cameraFailure, noCameraAt, type ProbeOutcome, type StreamFacts } from './types.ts';

export interface RtspProbeOptions {
  /** Epoch ms on `now`'s clock. */
  deadline: number;
  lookup?: LookupFunction;
  /** The clock the deadline is on (the gateway's); Date.now by default. */
  now?: () => number;
  /** Where the reasons a probe does not tell the client go (at debug). */
  log?: Log;
}

/** The session options of a probe: its deadline on its clock, and the account and lookup when given. */
function sessionOptions(opts: RtspProbeOptions, account: Account | undefined) {
  return {
    deadline: opts.deadline,
    ...(account ? { account } : {}),
    ...(opts.lookup ? { lookup: opts.lookup } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  };
}

/** How often, and how far apart, a DESCRIBE answered 503 (busy) is sent again. */
const BUSY_RETRIES = 5;
const BUSY_PAUSE_MS = 200;

/** Video encodings the gateway supports, as rtpmap names them, and the name it serves. */
const SUPPORTED_VIDEO: Record<string, string> = { H264: 'H264', H265: 'H265' };

/** Audio encodings served under another name. */
const AUDIO_NAMES: Record<string, string> = { 'MPEG4-GENERIC': 'AAC', 'MP4A-LATM': 'AAC' };

/**
 * The failure a status other than 200 means for a request; undefined when the probe may go on.
 * In words, never the camera's own (its reason phrase or headers are whatever answered there).
 */
function statusFailure(r: RtspResponse, method: string, hasAccount: boolean): CameraFailure | undefined {
  if (r.status === 401 || r.status === 403)
    return cameraFailure(
      ErrorCode.CAMERA_AUTH_ERROR,
      hasAccount ? 'the camera refused the account given' : 'the camera needs a username and password',
    );
  if (r.status === 404) return cameraFailure(ErrorCode.CAMERA_STREAM_ADDRESS_ERROR, 'no stream at this path');
  if (r.status >= 300 && r.status < 400)
    return cameraFailure(
      ErrorCode.CAMERA_STREAM_ADDRESS_ERROR,
      'the camera sends this path elsewhere (redirects are not followed)',
    );
  if (r.status >= 400 && method === 'DESCRIBE')
    return cameraFailure(ErrorCode.CAMERA_STREAM_ADDRESS_ERROR, 'the camera did not describe a stream at this path');
  return undefined;
}

/** An encoding name as the SDP gives it, when it looks like one (else it is not repeated). */
function encodingName(m: SdpMedia): string {
  return /^[A-Za-z0-9._-]{1,32}$/.test(m.encoding) ? m.encoding : `payload type ${m.payloadType}`;
}

/** Reads the facts of the stream from its SDP, or the failure when its video is not supported. */
export function factsFromSdp(sdp: string): { ok: true; facts: StreamFacts } | CameraFailure {
  const media = parseSdp(sdp);
  const videos = media.filter((m) => m.type === 'video');
  if (videos.length === 0)
    return cameraFailure(
      ErrorCode.CAMERA_CODEC_UNSUPPORTED,
      'the stream has no video (only H.264 and H.265 are supported)',
    );
  const video = videos.find((m) => SUPPORTED_VIDEO[m.encoding.toUpperCase()] !== undefined);
  if (!video) {
    const names = videos.map(encodingName).join(', ');
    return cameraFailure(
      ErrorCode.CAMERA_CODEC_UNSUPPORTED,
      `the video is ${names}; only H.264 and H.265 are supported`,
    );
  }
  const codec = SUPPORTED_VIDEO[video.encoding.toUpperCase()] as string;
  const resolution =
    (codec === 'H264' ? h264SizeFromFmtp(video.fmtp) : h265SizeFromFmtp(video.fmtp)) ?? video.frameSize;
  const audio: SdpMedia | undefined = media.find((m) => m.type === 'audio' && m.encoding !== '');
  const facts: StreamFacts = { protocol: 'rtsp', videoCodec: codec };
  if (resolution) facts.resolution = resolution;
  if (audio) {
    facts.audioCodec = AUDIO_NAMES[audio.encoding.toUpperCase()] ?? audio.encoding;
    if (audio.clockRate) facts.samplingRate = audio.clockRate;
  }
  if (video.bandwidthKbps) facts.dataRate = video.bandwidthKbps;
  return { ok: true, facts };
}

/** Probes an RTSP stream: never throws; the socket is closed whatever happens. */
export async function probeRtsp(
  address: StreamAddress,
  account: Account | undefined,
  opts: RtspProbeOptions,
): Promise<ProbeOutcome> {
  const hasAccount = account !== undefined && (account.username !== '' || account.password !== '');
  // Whatever kept a camera from answering (refused, cut, silent, unresolvable, not RTSP): one answer.
  const transportFailure = (detail: string): CameraFailure => {
    opts.log?.debug({ address: hostPort(address), detail }, 'camera probe: no RTSP camera answered');
    return noCameraAt(address);
  };
  // An answer this code cannot read (a challenge or header beyond what it knows) is the camera's
  // fault, never the gateway's: a clear 110011 rather than a server exception.
  const result = await withRtspSession(
    address,
    sessionOptions(opts, hasAccount ? account : undefined),
    async (session): Promise<ProbeOutcome> => {
      const options = await session.request('OPTIONS');
      if (!options.ok) return transportFailure(options.detail);
      // A camera that does not implement OPTIONS (405, 501) may still DESCRIBE.
      const optionsFailure = statusFailure(options.response, 'OPTIONS', hasAccount);
      if (optionsFailure) return optionsFailure;
      let describe = await session.request('DESCRIBE', { Accept: 'application/sdp' });
      // A busy camera (or a server still tearing down the stream for a previous client) answers
      // 503 for a moment: asked again shortly, within the deadline.
      for (let tries = 0; tries < BUSY_RETRIES && describe.ok && describe.response.status === 503; tries++) {
        const wait = Math.min(BUSY_PAUSE_MS, opts.deadline - (opts.now ?? Date.now)() - BUSY_PAUSE_MS);
        if (wait <= 0) break;
        await new Promise((r) => setTimeout(r, wait));
        describe = await session.request('DESCRIBE', { Accept: 'application/sdp' });
      }
      if (!describe.ok) return transportFailure(describe.detail);
      const failed = statusFailure(describe.response, 'DESCRIBE', hasAccount);
      if (failed) return failed;
      const type = header(describe.response, 'content-type') ?? '';
      const body = describe.response.body.toString('utf8');
      if (!/^application\/sdp\b/i.test(type) && !/^v=0/m.test(body))
        return cameraFailure(
          ErrorCode.CAMERA_STREAM_ADDRESS_ERROR,
          'the camera described no stream (its answer is not an SDP)',
        );
      return factsFromSdp(body);
    },
  ).catch((err: unknown): ProbeOutcome => {
    opts.log?.debug({ err }, 'camera probe: an RTSP answer could not be read');
    return cameraFailure(ErrorCode.CAMERA_STREAM_ADDRESS_ERROR, "the camera's answer could not be read");
  });
  return 'kind' in result ? transportFailure(result.detail) : result;
}

/** Checks that an RTSP camera answers at all (the watcher): any RTSP answer to OPTIONS counts. */
export async function rtspAlive(
  address: StreamAddress,
  account: Account | undefined,
  opts: RtspProbeOptions,
): Promise<{ alive: true } | { alive: false; reason: string }> {
  const result = await withRtspSession(address, sessionOptions(opts, account), async (session) =>
    session.request('OPTIONS'),
  );
  return result.ok ? { alive: true } : { alive: false, reason: result.detail };
}
