/**
 * The one error catalog: every numeric code of spec section 7 with its message, and every
 * error type of the third-party protocol (spec 4.4 and 4.5). docs/errors.md is generated from it.
 */

export const ErrorCode = {
  OK: 0,
  INVALID_PARAMETERS: 400,
  AUTH_FAILED: 401,
  NOT_FOUND: 404,
  CONFLICT: 409,
  SERVER_ERROR: 500,
  DEVICE_NOT_FOUND: 110000,
  DISCOVERING_ZIGBEE: 110001,
  GROUP_NO_COMMON_CAPABILITY: 110002,
  WRONG_DEVICE_COUNT: 110003,
  WRONG_GROUP_COUNT: 110004,
  DEVICE_OFFLINE: 110005,
  DEVICE_UPDATE_FAILED: 110006,
  GROUP_UPDATE_FAILED: 110007,
  GROUP_LIMIT: 110008,
  CAMERA_IP_WRONG: 110009,
  CAMERA_AUTH_ERROR: 110010,
  CAMERA_STREAM_ADDRESS_ERROR: 110011,
  CAMERA_CODEC_UNSUPPORTED: 110012,
  DEVICE_EXISTS: 110013,
  CAMERA_NO_OFFLINE_OPERATION: 110014,
  CAMERA_PASSWORD_MISMATCH: 110015,
  DISCOVERING_ONVIF: 110016,
  CAMERA_LIMIT: 110017,
  ESP_CAMERA_PATH_WRONG: 110018,
  THIRD_PARTY_UNREACHABLE: 110019,
  DEVICE_CONFIG_FAILED: 110024,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;
export type ErrorCodeValue = (typeof ErrorCode)[ErrorCodeName];

/** Default message per code; where the spec or clients fix the text, it is that text. */
export const errorMessages: Record<ErrorCodeValue, string> = {
  0: 'success',
  400: 'invalid parameters',
  401: 'headers.Authorization is invalid',
  404: 'not found',
  409: 'the request cannot be done in the present state',
  500: 'server exception',
  110000: 'the sub-device or group for this id does not exist',
  110001: 'the gateway is discovering Zigbee devices',
  110002: 'the devices in the group have no common capability',
  110003: 'wrong number of devices',
  110004: 'wrong number of groups',
  110005: 'the device is offline',
  110006: 'failed to update the device status',
  110007: 'failed to update the group status',
  110008: 'the maximum number of groups (50) is reached',
  110009: 'the camera IP address is wrong',
  110010: 'camera access authorization error',
  110011: 'the camera stream address is wrong',
  110012: 'the camera video encoding is not supported',
  110013: 'the device already exists',
  110014: 'the camera does not support offline operation',
  110015: 'the account password differs from the one in the RTSP stream address',
  110016: 'the gateway is discovering ONVIF cameras',
  110017: 'the maximum number of cameras is exceeded',
  110018: 'the ESP camera path is wrong',
  110019: "failed to access the third-party device's service address",
  110024: 'failed to update the device configuration',
};

/**
 * What a 110019 says of a service that failed: the same words whether the connection was refused,
 * reset or timed out, or the service answered an HTTP error or a redirect, so that a token holder
 * cannot map the gateway's network through the service addresses it gives (the detail is logged
 * at debug level).
 */
export const SERVICE_FAILED = 'the service could not be reached or answered badly';

/** Where each code is documented: spec section 7 except those this gateway adds (404, 409). */
export const errorOrigins: Partial<Record<ErrorCodeValue, string>> = {
  404: 'this gateway: unknown path (HTTP status 404 with the envelope), or an unknown scene or automation',
  409: 'this gateway: a scene or automation that is broken, or a run that did not start (its conditions, its run mode, a loop guard)',
};

/** Error types of the third-party event endpoint (T1, spec 4.4). */
export const thirdPartyEventErrorTypes = {
  INVALID_PARAMETERS: 'the request is malformed or names an unknown device',
  AUTH_FAILURE: 'headers.Authorization is invalid',
  INTERNAL_ERROR: 'the gateway failed while handling the event',
} as const;
export type ThirdPartyEventErrorType = keyof typeof thirdPartyEventErrorTypes;

/** Error types a third-party service may answer to a directive (T2, spec 4.5). */
export const directiveErrorTypes = {
  ENDPOINT_UNREACHABLE: 'the device cannot be reached by its service',
  ENDPOINT_LOW_POWER: 'the device is in low-power mode',
  INVALID_DIRECTIVE: 'the service rejected the directive',
  NO_SUCH_ENDPOINT: 'the service does not know the device',
  NOT_SUPPORTED_IN_CURRENT_MODE: 'the device does not support this in its current mode',
  INTERNAL_ERROR: 'the service failed internally',
  REMOTE_KEY_CODE_NOT_LEARNED: 'the remote key code was not learned',
} as const;
export type DirectiveErrorType = keyof typeof directiveErrorTypes;

/** A failure as a value: the envelope code and a message for the client. */
export interface Failure {
  code: ErrorCodeValue;
  message: string;
}

/**
 * The one failure value from the core to every surface: `ok: false`, a code of this catalog and
 * words for the client. Each surface writes it its own way (the envelope `{error, message}`, an
 * HTTP status and `{error}`, a third-party `{type, description}`).
 */
export type Failed = { ok: false } & Failure;

/** The error types of the ErrorResponse a third-party event gets (spec 4.4). */
export type EventErrorType = 'INVALID_PARAMETERS' | 'AUTH_FAILURE' | 'INTERNAL_ERROR';

/** How the third-party protocol names a failure of an event: its ErrorResponse `type`. */
export function eventErrorType(code: ErrorCodeValue): EventErrorType {
  if (code === ErrorCode.AUTH_FAILED) return 'AUTH_FAILURE';
  if (code === ErrorCode.SERVER_ERROR) return 'INTERNAL_ERROR';
  return 'INVALID_PARAMETERS';
}

/** Builds a failure with the catalog's message unless a more precise one is given. */
export function failure(code: ErrorCodeValue, message?: string): Failure {
  return { code, message: message ?? errorMessages[code] };
}

/** An exception that carries an envelope failure; routes throw it for expected client errors. */
export class ApiError extends Error {
  /** The failure it carries (not `code`: an Error's `code` is Node's and Fastify's string). */
  readonly failure: Failure;

  constructor(code: ErrorCodeValue, message?: string) {
    super(message ?? errorMessages[code]);
    this.failure = { code, message: this.message };
  }
}
