/** The devices module (spec 4.2): D1-D6. */
import { ErrorCode } from '../../../catalog/errors.ts';
import { any, arr, bool, map, obj, oneOf, opt, str } from '../../../catalog/schema.ts';
import type { Done } from '../../../core/devices/index.ts';
import { type Answer, DeviceListAnswer } from '../device-list.ts';
import { acceptsGzip } from '../encoding.ts';
import { done, failed, type RouteResult, type RouteSpec, route } from '../route.ts';
import type { OpenApiServices } from '../services.ts';
import { body, capabilityObject, deviceObject, deviceUpdateBody } from '../wire.ts';

/** How long a D2 may take in all: the probe, then the store; clients wait 5 s (COMPAT.md). */
const ADD_BUDGET_MS = 4500;

const serial = { serial_number: str({ maxLength: 500 }) };

const answer = (r: Done): RouteResult => (r.ok ? done() : failed(r.code, r.message));

/** The D2 body as the spec shapes it (the camera driver reads it; docs/cameras.md). */
const cameraBody = body({
  name: str(),
  display_category: oneOf('camera'),
  capabilities: arr(capabilityObject, { minItems: 1 }),
  protocal: opt(str({ doc: '`RTSP` or `ESP32-CAM`, any case; also spelled `protocol`' })),
  protocol: opt(str()),
  manufacturer: str(),
  model: str(),
  firmware_version: str(),
  configuration: opt(map(any())),
});

/** A D3 answer smaller than this goes out plain: compressing it would save the client little. */
const GZIP_FROM_BYTES = 16 * 1024;

/** D1-D6. */
export function deviceRoutes(s: OpenApiServices): RouteSpec[] {
  // D3 is read far more than written: its answer is kept ready, patched by the list's changes
  // (made at the first D3: the documents build these routes with services never called).
  let list: DeviceListAnswer | undefined;
  return [
    route({
      id: 'D1',
      method: 'PUT',
      path: '/devices/discovery',
      summary: 'Start (enable true) or pause pairing of new devices of a type',
      auth: 'token',
      body: body({ enable: bool(), type: str({ doc: '`Zigbee` (any case)' }) }),
      errors: [ErrorCode.SERVER_ERROR],
      handle: async ({ body }) => answer(await s.devices.setDiscovery(body.type, body.enable)),
    }),
    route({
      id: 'D2',
      method: 'POST',
      path: '/devices',
      summary: 'Add a camera by hand (RTSP, ESP32-CAM), probed first',
      description:
        'The body is one device object, or an array of them: all are added, or none when one fails. See docs/cameras.md.',
      auth: 'token',
      // Read by the driver that adds the body's protocol: its messages name every problem.
      answer: obj({ serial_number: str(), serial_numbers: opt(arr(str())) }),
      errors: [
        ErrorCode.CAMERA_IP_WRONG,
        ErrorCode.CAMERA_AUTH_ERROR,
        ErrorCode.CAMERA_STREAM_ADDRESS_ERROR,
        ErrorCode.CAMERA_CODEC_UNSUPPORTED,
        ErrorCode.DEVICE_EXISTS,
        ErrorCode.CAMERA_PASSWORD_MISMATCH,
        ErrorCode.CAMERA_LIMIT,
        ErrorCode.ESP_CAMERA_PATH_WRONG,
      ],
      requestDoc: cameraBody,
      async handle({ req, actor }) {
        const r = await s.devices.provision(req.body, s.clock.now() + ADD_BUDGET_MS, actor);
        return r.ok ? done(r.data) : failed(r.code, r.message);
      },
    }),
    route({
      id: 'D3',
      method: 'GET',
      path: '/devices',
      summary: 'Every device',
      auth: 'token',
      answer: obj({ device_list: arr(deviceObject) }),
      async handle({ req, reply }) {
        list ??= new DeviceListAnswer(s.devices.registry);
        const plain = list.answer();
        let answer: Answer = plain;
        let gzip = false;
        if (plain.length >= GZIP_FROM_BYTES && acceptsGzip(req.headers['accept-encoding'])) {
          try {
            answer = await list.gzipped();
            gzip = true;
          } catch (err) {
            s.log.warn({ err }, 'the device list could not be compressed: sent plain');
          }
        }
        // Ready bytes straight to the socket, past Fastify's send pipeline, in one write.
        reply.hijack();
        const res = reply.raw;
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': answer.length,
          'access-control-allow-origin': '*',
          vary: 'Accept-Encoding',
          ...(gzip ? { 'content-encoding': 'gzip' } : {}),
        });
        res.cork();
        for (const part of answer.parts) res.write(part);
        res.uncork();
        res.end();
        return { sent: true };
      },
    }),
    route({
      id: 'D4',
      method: 'PUT',
      path: '/devices/{serial_number}',
      summary: 'Rename, retag, configure or control a device',
      description:
        'Validated as a whole first; then the configuration, then the control (answered once the device confirms, within 4 s in all), then name and tags. `data` is `{}`.',
      auth: 'token',
      params: serial,
      body: deviceUpdateBody,
      errors: [
        ErrorCode.DEVICE_NOT_FOUND,
        ErrorCode.DEVICE_OFFLINE,
        ErrorCode.DEVICE_UPDATE_FAILED,
        ErrorCode.THIRD_PARTY_UNREACHABLE,
        ErrorCode.DEVICE_CONFIG_FAILED,
        ErrorCode.CAMERA_NO_OFFLINE_OPERATION,
      ],
      handle: async ({ params, body, actor }) => answer(await s.devices.update(params.serial_number, body, actor)),
    }),
    route({
      id: 'D5',
      method: 'DELETE',
      path: '/devices/{serial_number}',
      summary: 'Remove a device',
      auth: 'token',
      params: serial,
      errors: [ErrorCode.DEVICE_NOT_FOUND, ErrorCode.DISCOVERING_ZIGBEE, ErrorCode.DEVICE_UPDATE_FAILED],
      handle: async ({ params, actor }) => answer(await s.devices.remove(params.serial_number, actor)),
    }),
    route({
      id: 'D6',
      // POST as the spec's table says, PUT as its example sends.
      method: ['POST', 'PUT'],
      path: '/devices/{serial_number}/query-state/{capability}',
      summary: 'Query a state; the result comes as an updateDeviceState event',
      auth: 'token',
      params: { ...serial, capability: str({ maxLength: 500 }) },
      body: body({ query_state: any("shaped as the capability's query body (spec 2.6)") }),
      errors: [
        ErrorCode.DEVICE_NOT_FOUND,
        ErrorCode.DEVICE_OFFLINE,
        ErrorCode.DEVICE_UPDATE_FAILED,
        ErrorCode.THIRD_PARTY_UNREACHABLE,
      ],
      handle: async ({ params, body }) =>
        answer(await s.devices.query(params.serial_number, params.capability, body.query_state)),
    }),
  ];
}
