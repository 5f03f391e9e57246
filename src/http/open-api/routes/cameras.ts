/**
 * Cameras beyond the spec: a snapshot (JPEG) and a live MJPEG view of any camera, authorised by
 * the same token, also given as `?access_token=` so that an `<img>` element can show them. The
 * routes know cameras only through the core's CameraApi (docs/cameras.md).
 */
import { ErrorCode } from '../../../catalog/errors.ts';
import { str } from '../../../catalog/schema.ts';
import { LiveViews, MJPEG_BOUNDARY } from '../../stream/live-view.ts';
import { failed, type RouteSpec, route } from '../route.ts';
import type { OpenApiServices } from '../services.ts';

const serial = { serial_number: str({ maxLength: 500 }) };
const notRunning = failed(ErrorCode.SERVER_ERROR, 'the camera driver is not running');

/** Snapshots and the live view; `onClose` ends open live views when the server closes (a stop does not wait on them). */
export function cameraRoutes(s: OpenApiServices, onClose: (fn: () => void) => void): RouteSpec[] {
  const live = new LiveViews();
  onClose(() => live.endAll());
  return [
    route({
      id: 'X-camera-snapshot',
      method: 'GET',
      path: '/cameras/{serial_number}/snapshot',
      summary: "A JPEG of the camera's picture now (cached for a second)",
      auth: 'token-or-query',
      params: serial,
      produces: 'image/jpeg',
      errors: [ErrorCode.DEVICE_NOT_FOUND, ErrorCode.DEVICE_OFFLINE, ErrorCode.SERVER_ERROR],
      async handle({ params, reply }) {
        const camera = s.cameras();
        if (!camera) return notRunning;
        const r = await camera.snapshot(params.serial_number);
        if (!r.ok) return failed(r.code, r.message);
        reply.code(200).type('image/jpeg').header('cache-control', 'no-store').send(r.jpeg);
        return { sent: true };
      },
    }),
    route({
      id: 'X-camera-live',
      method: 'GET',
      path: '/cameras/{serial_number}/live',
      summary: 'A live MJPEG view (one upstream connection per camera, whatever the number of viewers)',
      auth: 'token-or-query',
      params: serial,
      produces: `multipart/x-mixed-replace; boundary=${MJPEG_BOUNDARY}`,
      errors: [ErrorCode.DEVICE_NOT_FOUND, ErrorCode.DEVICE_OFFLINE, ErrorCode.SERVER_ERROR],
      async handle({ params, req, reply }) {
        const camera = s.cameras();
        if (!camera) return notRunning;
        const r = await live.serve(camera, params.serial_number, req.raw, reply.raw, () => reply.hijack(), {
          'access-control-allow-origin': '*',
        });
        return 'started' in r ? { sent: true } : failed(r.code, r.message);
      },
    }),
  ];
}
