/**
 * Devices in the console: the live list with each device's layout (controls and readings from
 * the catalog), a device's page (with its recent events), control, rename, tags and delete
 * through the device service exactly as D4 and D5 do, pairing with a countdown, and cameras
 * (added as D2 adds them, with a snapshot and a live view behind the session).
 */
import type { ErrorCodeValue } from '../../../catalog/errors.ts';
import { bool, obj, oneOf, opt, str } from '../../../catalog/schema.ts';
import type { DeviceRecord } from '../../../core/devices/index.ts';
import { toWire } from '../../../core/devices/wire.ts';
import { isObject } from '../../../lib/object.ts';
import { deviceUpdateBody } from '../../open-api/wire.ts';
import { LiveViews } from '../../stream/live-view.ts';
import { eventWithoutCredentials, withoutCredentials } from '../camera-view.ts';
import { deviceLayout } from '../layout.ts';
import { type ConsoleResult, type ConsoleRoute, consoleRoute, ok, refuse } from '../route.ts';
import type { ConsoleServices } from '../services.ts';
import { cameraWords, statusOf } from '../words.ts';

const serial = { serial_number: str({ maxLength: 500 }) };
/** Events a device page shows. */
const RECENT = 50;
/** How long an add of a camera may take: the probe, then the store (as D2). */
const ADD_BUDGET_MS = 4500;

/** A device as the console shows it: with its layout, and never a camera's password. */
function view(d: DeviceRecord) {
  const wire = toWire(d);
  return { ...wire, capabilities: withoutCredentials(d.capabilities), layout: deviceLayout(d) };
}

/** A core failure as an answer: its status and the words of words.ts. */
function failure(error: ErrorCodeValue, message: string): ConsoleResult {
  return refuse(statusOf(error), message);
}

export function deviceRoutes(s: ConsoleServices, onClose: (fn: () => void) => void): ConsoleRoute[] {
  let pairingUntil: number | null = null;
  let closeTimer: (() => void) | undefined;
  const pairing = () => {
    const open = s.devices.discovering() && pairingUntil !== null && s.clock.now() < pairingUntil;
    return { open, until: open && pairingUntil !== null ? new Date(pairingUntil).toISOString() : null };
  };
  // What the drivers loaded at start pair (`zigbee`): the page shows a pairing button for each
  // and none when nothing pairs (zigbee.mode off), rather than a button that can only fail.
  const pairingTypes = () => [
    ...new Set(s.devices.readiness().flatMap((r) => s.devices.driver(r.driver)?.pairing?.types ?? [])),
  ];
  const live = new LiveViews();
  onClose(() => {
    closeTimer?.();
    live.endAll();
  });

  return [
    consoleRoute({
      method: 'GET',
      path: '/devices',
      auth: 'session',
      handle: () =>
        ok({ devices: s.devices.registry.list().map(view), pairing: pairing(), pairing_types: pairingTypes() }),
    }),
    consoleRoute({
      method: 'GET',
      path: '/devices/{serial_number}',
      auth: 'session',
      params: serial,
      handle({ params }) {
        const d = s.devices.registry.get(params.serial_number);
        if (!d) return refuse(404, 'this device does not exist (any more)');
        const oldest = s.bus.oldest;
        const kept = oldest === null ? undefined : s.bus.since(oldest - 1);
        const events = (kept?.ok ? kept.events : [])
          .filter(
            (e) =>
              e.name.startsWith('device#') &&
              (e.data as { endpoint?: { serial_number?: string } }).endpoint?.serial_number === d.serial_number,
          )
          .slice(-RECENT)
          .reverse()
          .map((e) => ({
            id: e.id,
            type: e.type,
            data: { ...e.data, payload: eventWithoutCredentials((e.data as { payload?: unknown }).payload) },
            at: new Date(e.at).toISOString(),
          }));
        return ok({ device: view(d), events });
      },
    }),
    consoleRoute({
      method: 'PUT',
      path: '/devices/{serial_number}',
      auth: 'session',
      params: serial,
      // D4's body, as the Open API declares it.
      body: deviceUpdateBody,
      async handle({ params, body, actor }) {
        const r = await s.devices.update(params.serial_number, body, actor);
        return r.ok ? ok() : failure(r.code, r.message);
      },
    }),
    consoleRoute({
      method: 'DELETE',
      path: '/devices/{serial_number}',
      auth: 'session',
      params: serial,
      async handle({ params, actor }) {
        const r = await s.devices.remove(params.serial_number, actor);
        return r.ok ? ok() : failure(r.code, r.message);
      },
    }),
    consoleRoute({
      method: 'GET',
      path: '/pairing',
      auth: 'session',
      handle: () => ok(pairing()),
    }),
    consoleRoute({
      method: 'PUT',
      path: '/pairing',
      auth: 'session',
      body: obj({ enable: bool() }, { open: true }),
      async handle({ body }) {
        const r = await s.devices.setDiscovery('zigbee', body.enable);
        if (!r.ok) return failure(r.code, r.message);
        closeTimer?.();
        closeTimer = undefined;
        pairingUntil = body.enable ? s.clock.now() + s.pairingSeconds * 1000 : null;
        // The driver closes joining by itself after the same time: the consoles hear it then.
        if (body.enable)
          closeTimer = s.clock.setTimer(s.pairingSeconds * 1000, () => {
            pairingUntil = null;
            s.bus.publish('pairing#window', { payload: { open: false, until: null } });
          });
        const now = pairing();
        s.bus.publish('pairing#window', { payload: now });
        return ok(now);
      },
    }),
    consoleRoute({
      method: 'POST',
      path: '/cameras',
      auth: 'session',
      body: obj(
        {
          name: str({ maxLength: 256, pattern: /\S/, patternDoc: 'a non-empty name' }),
          protocol: oneOf('RTSP', 'ESP32-CAM'),
          stream_url: str({ maxLength: 2000, pattern: /\S/, patternDoc: 'a stream address' }),
        },
        { open: true },
      ),
      async handle({ body, actor }) {
        // The body D2 takes, as a client of the Open API would send it.
        const d2 = {
          name: body.name,
          display_category: 'camera',
          capabilities: [
            {
              capability: 'camera-stream',
              permission: '0010',
              configuration: {
                streamSetting: { type: 'object', permission: '11', value: { stream_url: body.stream_url } },
              },
            },
          ],
          protocal: body.protocol,
          manufacturer: body.protocol === 'RTSP' ? 'RTSP camera' : 'ESP32-CAM',
          model: body.protocol,
          firmware_version: '',
        };
        const r = await s.devices.provision(d2, s.clock.now() + ADD_BUDGET_MS, actor);
        if (r.ok) return ok(r.data);
        return refuse(statusOf(r.code), cameraWords(r.code, r.message));
      },
    }),
    consoleRoute({
      method: 'PUT',
      path: '/cameras/{serial_number}',
      auth: 'session',
      params: serial,
      body: obj(
        {
          stream_url: str({ maxLength: 2000, pattern: /\S/, patternDoc: 'a stream address' }),
          username: opt(str({ maxLength: 256 })),
          password: opt(str({ maxLength: 256 })),
        },
        { open: true },
      ),
      async handle({ params, body, actor }) {
        const d = s.devices.registry.get(params.serial_number);
        const stream = d?.capabilities.find((c) => c.capability === 'camera-stream');
        if (!d || !stream) return refuse(404, 'there is no camera with this serial number');
        // The page never has the password: none typed keeps the one the camera has.
        const kept = isObject(stream.settings?.streamSetting?.value) ? stream.settings.streamSetting.value : {};
        const value = {
          stream_url: body.stream_url,
          username: body.username ?? (typeof kept.username === 'string' ? kept.username : ''),
          password: body.password ?? (typeof kept.password === 'string' ? kept.password : ''),
        };
        // As D4 re-configures a camera: probed first, changed only when the probe succeeds.
        const r = await s.devices.update(params.serial_number, { configuration: { streamSetting: { value } } }, actor);
        if (r.ok) {
          const now = s.devices.registry.get(params.serial_number);
          return now ? ok({ device: view(now) }) : refuse(404, 'this device does not exist (any more)');
        }
        // The probe's own code is in the message ("(110012) ..."): its words say what to fix.
        const probe = Number(/\((\d{6})\)/.exec(r.message)?.[1]) as ErrorCodeValue;
        const code = statusOf(probe) !== 500 ? probe : r.code;
        return refuse(statusOf(code), cameraWords(code, r.message));
      },
    }),
    consoleRoute({
      method: 'GET',
      path: '/cameras/{serial_number}/snapshot',
      auth: 'session',
      params: serial,
      async handle({ params, reply }) {
        const camera = s.cameras();
        if (!camera) return refuse(503, 'the camera driver is not running');
        const r = await camera.snapshot(params.serial_number);
        if (!r.ok) return failure(r.code, r.message);
        reply.code(200).type('image/jpeg').header('cache-control', 'no-store').send(r.jpeg);
        return { sent: true };
      },
    }),
    consoleRoute({
      method: 'GET',
      path: '/cameras/{serial_number}/live',
      auth: 'session',
      params: serial,
      async handle({ params, req, reply }) {
        const camera = s.cameras();
        if (!camera) return refuse(503, 'the camera driver is not running');
        const r = await live.serve(camera, params.serial_number, req.raw, reply.raw, () => reply.hijack());
        return 'started' in r ? { sent: true } : failure(r.code, r.message);
      },
    }),
  ];
}
