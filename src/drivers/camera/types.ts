/** Types shared inside the camera folder: what a probe learns, and outcomes as values. */
import { ErrorCode, type ErrorCodeValue, errorMessages, type Failed } from '../../catalog/errors.ts';
import { type CameraProtocol, hostPort, type StreamAddress } from './stream-url.ts';

/** What probing a stream told about it. Fields the stream does not tell are absent. */
export interface StreamFacts {
  protocol: CameraProtocol;
  /** `H264`, `H265` (RTSP) or `MJPEG` (ESP32-CAM). */
  videoCodec: string;
  resolution?: { width: number; height: number };
  /** As the SDP names it (`PCMA`, `PCMU`, `opus`), `AAC` for the MPEG-4 audio payloads. */
  audioCodec?: string;
  /** Hz, of the audio. */
  samplingRate?: number;
  /** kb/s, from the SDP's `b=AS` of the video. */
  dataRate?: number;
  /** ESP32-CAM: the MJPEG stream (no credentials), when one was found. */
  mjpegUrl?: string;
  /** ESP32-CAM: the capture path answering one JPEG (no credentials), when one was found. */
  captureUrl?: string;
}

/** A failure with its code; `message` never holds credentials. */
export type CameraFailure = Failed;

export type ProbeOutcome = { ok: true; facts: StreamFacts } | CameraFailure;

/** A failure with the catalog's message for `code` followed by what happened. */
export function cameraFailure(code: ErrorCodeValue, detail?: string): CameraFailure {
  return { ok: false, code, message: detail ? `${errorMessages[code]}: ${detail}` : errorMessages[code] };
}

/**
 * The one answer for an address where no camera speaks: refused, cut, silent, unresolvable, or
 * another service. Told apart, they would make the probe a port scanner (issue 24); the reason
 * goes to the debug log only.
 */
export function noCameraAt(address: StreamAddress): CameraFailure {
  return cameraFailure(ErrorCode.CAMERA_IP_WRONG, `no camera answered at ${hostPort(address)}`);
}
