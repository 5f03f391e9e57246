/**
 * The error codes of the core (spec section 7) as a console shows them: an HTTP status, and for
 * cameras (D2) the cause in words a person acts on, followed by the detail the driver gave.
 */
import { ErrorCode, type ErrorCodeValue } from '../../catalog/errors.ts';

const STATUS: Partial<Record<ErrorCodeValue, number>> = {
  [ErrorCode.INVALID_PARAMETERS]: 400,
  [ErrorCode.AUTH_FAILED]: 401,
  [ErrorCode.NOT_FOUND]: 404,
  [ErrorCode.CONFLICT]: 409,
  [ErrorCode.DEVICE_NOT_FOUND]: 404,
  [ErrorCode.DISCOVERING_ZIGBEE]: 409,
  [ErrorCode.DEVICE_OFFLINE]: 409,
  [ErrorCode.DEVICE_EXISTS]: 409,
  [ErrorCode.GROUP_NO_COMMON_CAPABILITY]: 422,
  [ErrorCode.GROUP_UPDATE_FAILED]: 502,
  [ErrorCode.GROUP_LIMIT]: 409,
  [ErrorCode.CAMERA_LIMIT]: 409,
  [ErrorCode.CAMERA_NO_OFFLINE_OPERATION]: 409,
  [ErrorCode.DEVICE_UPDATE_FAILED]: 502,
  [ErrorCode.THIRD_PARTY_UNREACHABLE]: 502,
  [ErrorCode.DEVICE_CONFIG_FAILED]: 502,
  [ErrorCode.CAMERA_IP_WRONG]: 422,
  [ErrorCode.CAMERA_AUTH_ERROR]: 422,
  [ErrorCode.CAMERA_STREAM_ADDRESS_ERROR]: 422,
  [ErrorCode.CAMERA_CODEC_UNSUPPORTED]: 422,
  [ErrorCode.CAMERA_PASSWORD_MISMATCH]: 422,
  [ErrorCode.ESP_CAMERA_PATH_WRONG]: 422,
};

/** The HTTP status of a core failure. */
export function statusOf(code: ErrorCodeValue): number {
  return STATUS[code] ?? 500;
}

const CAMERA: Partial<Record<ErrorCodeValue, string>> = {
  [ErrorCode.CAMERA_IP_WRONG]: 'The camera could not be reached at that address. Check the IP address and port.',
  [ErrorCode.CAMERA_AUTH_ERROR]: 'The camera refused the user name or password in the address.',
  [ErrorCode.CAMERA_STREAM_ADDRESS_ERROR]:
    'The stream address is wrong: check its form (rtsp://user:password@host:554/path) and its path.',
  [ErrorCode.CAMERA_CODEC_UNSUPPORTED]:
    'The camera sends video in an encoding this gateway cannot show (H.264, H.265 or MJPEG work).',
  [ErrorCode.DEVICE_EXISTS]: 'This camera is already added.',
  [ErrorCode.CAMERA_PASSWORD_MISMATCH]: 'The password given differs from the one in the stream address.',
  [ErrorCode.CAMERA_LIMIT]: 'No more cameras can be added (the most this gateway takes is reached).',
  [ErrorCode.ESP_CAMERA_PATH_WRONG]:
    'The board answered, but not with a picture at that path (try /stream or /capture).',
  [ErrorCode.INVALID_PARAMETERS]: 'The address is not a camera stream address.',
};

/** Why a camera could not be added, in words, with the driver's detail. */
export function cameraWords(code: ErrorCodeValue, detail: string): string {
  const words = CAMERA[code];
  // The console sent the address as D2 nests it; the person typed it in one field.
  const plain = detail.replace(/capabilities\.0\.configuration\.streamSetting\.value\.stream_url/g, 'stream address');
  return words ? `${words} (${plain})` : plain;
}
