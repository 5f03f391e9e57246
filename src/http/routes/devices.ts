import type { FastifyReply } from 'fastify';
import type { DeviceService, Done } from '../../core/devices/index.ts';
import type { RestModule } from '../app.ts';
import { bodyObject } from '../body.ts';
import { ok, sendFailure } from '../envelope.ts';
import { boolField, stringField } from '../fields.ts';

function answer(reply: FastifyReply, done: Done) {
  return done.ok ? ok() : sendFailure(reply, done.error, done.message);
}

/** How long a D2 may take in all: the probe, then the store; clients wait 5 s (COMPAT.md). */
const ADD_BUDGET_MS = 4500;

/** Devices module: D1, D2, D3, D4, D5, D6. */
export function deviceRoutes(devices: DeviceService): RestModule {
  let cached: { json: string; body: Buffer } | undefined;
  return (app, auth) => {
    // D3: the list is served from a cached body until a device changes (it is polled far more than written).
    app.get('/devices', { preHandler: auth }, async (_req, reply) => {
      const json = devices.registry.listJson();
      if (cached?.json !== json)
        cached = { json, body: Buffer.from(`{"error":0,"data":{"device_list":${json}},"message":"success"}`) };
      // The body is ready bytes: write them straight to the socket, past Fastify's send pipeline
      // (a 1,000-device list is ~600 KB; this keeps D3 near a bare server's throughput).
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': cached.body.length,
        'access-control-allow-origin': '*',
      });
      reply.raw.end(cached.body);
    });

    // D1: a static path, so it wins over PUT /devices/:serial.
    app.put('/devices/discovery', { preHandler: auth }, async (req, reply) => {
      const body = bodyObject(req.body);
      const enable = boolField(body, 'enable', { required: true }) as boolean;
      const type = stringField(body, 'type', { required: true }) as string;
      return answer(reply, await devices.setDiscovery(type, enable));
    });

    // D2: added by the driver of the body's protocol (cameras), probed first, within the 5 s clients wait.
    app.post('/devices', { preHandler: auth }, async (req, reply) => {
      const r = await devices.provision(req.body, Date.now() + ADD_BUDGET_MS);
      return r.ok ? ok(r.data) : sendFailure(reply, r.error, r.message);
    });

    // D4: `data` is `{}` on success (see docs/devices.md).
    app.put('/devices/:serial', { preHandler: auth }, async (req, reply) => {
      const { serial } = req.params as { serial: string };
      return answer(reply, await devices.update(serial, bodyObject(req.body)));
    });

    app.delete('/devices/:serial', { preHandler: auth }, async (req, reply) => {
      const { serial } = req.params as { serial: string };
      return answer(reply, await devices.remove(serial));
    });

    // D6: POST as the spec's table says, PUT as its example sends; the result comes as updateDeviceState.
    const query = async (req: { params: unknown; body: unknown }, reply: FastifyReply) => {
      const { serial, capability } = req.params as { serial: string; capability: string };
      const body = bodyObject(req.body);
      if (body.query_state === undefined) return sendFailure(reply, 400, 'query_state: required');
      return answer(reply, await devices.query(serial, capability, body.query_state));
    };
    app.post('/devices/:serial/query-state/:capability', { preHandler: auth }, query);
    app.put('/devices/:serial/query-state/:capability', { preHandler: auth }, query);
  };
}
