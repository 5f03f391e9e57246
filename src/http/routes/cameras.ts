/**
 * Cameras: D2 (POST devices, add a camera by hand) and, beyond the spec, a snapshot and a live
 * MJPEG view of any camera under the gateway's own API (`cameras/{serial_number}/snapshot` and
 * `cameras/{serial_number}/live`), authorised by the same token, also given as `?access_token=`
 * so that an `<img>` element can show them. The routes know cameras only through CameraApi.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { ErrorCodeValue } from '../../catalog/errors.ts';
import type { RestModule } from '../app.ts';
import { sendFailure } from '../envelope.ts';

type Failed = { ok: false; code: ErrorCodeValue; message: string };

/** What the routes need of the camera driver. */
export interface CameraApi {
  snapshot(serial: string): Promise<{ ok: true; jpeg: Buffer } | Failed>;
  watch(
    serial: string,
    viewer: { frame(jpeg: Buffer): void; end(reason: string): void },
  ): Promise<{ ok: true; leave: () => void } | Failed>;
}

const BOUNDARY = 'opencube-frame';

/** Cameras module (beyond the spec): snapshots and the live view. `camera()` is the camera driver once loaded. */
export function cameraRoutes(camera: () => CameraApi | undefined): RestModule {
  const notLoaded: Failed = { ok: false, code: 500, message: 'the camera driver is not running' };
  const cameras: CameraApi = {
    snapshot: async (serial) => camera()?.snapshot(serial) ?? notLoaded,
    watch: async (serial, viewer) => camera()?.watch(serial, viewer) ?? notLoaded,
  };
  /** Open live responses, ended when the server closes so a stop does not wait on them. */
  const viewers = new Set<() => void>();
  return (app: FastifyInstance, auth: preHandlerAsyncHookHandler) => {
    // A token in the query (an <img src>) is read as the Authorization header.
    const authQuery = async function (this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
      const q = req.query as Record<string, unknown> | undefined;
      if (!req.headers.authorization && typeof q?.access_token === 'string')
        req.headers.authorization = `Bearer ${q.access_token}`;
      return auth.call(this, req, reply);
    };
    app.addHook('preClose', (done) => {
      for (const end of [...viewers]) end();
      done();
    });

    app.get('/cameras/:serial/snapshot', { preHandler: authQuery }, async (req, reply) => {
      const { serial } = req.params as { serial: string };
      const r = await cameras.snapshot(serial);
      if (!r.ok) return sendFailure(reply, r.code, r.message);
      return reply.code(200).type('image/jpeg').header('cache-control', 'no-store').send(r.jpeg);
    });

    app.get('/cameras/:serial/live', { preHandler: authQuery }, async (req, reply) => {
      const { serial } = req.params as { serial: string };
      const res = reply.raw;
      let open = true;
      let started = false;
      const close = () => {
        if (!open) return;
        open = false;
        viewers.delete(close);
        watching?.leave();
        res.end();
      };
      let watching: { leave: () => void } | undefined;
      const r = await cameras.watch(serial, {
        frame(jpeg) {
          // A viewer that does not keep up misses frames rather than queueing them.
          if (!open || !started || res.writableNeedDrain) return;
          res.write(`--${BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`);
          res.write(jpeg);
          res.write('\r\n');
        },
        end: () => close(),
      });
      if (!r.ok) return sendFailure(reply, r.code, r.message);
      watching = r;
      if (req.raw.destroyed) {
        close();
        return reply;
      }
      reply.hijack();
      res.writeHead(200, {
        'content-type': `multipart/x-mixed-replace; boundary=${BOUNDARY}`,
        'cache-control': 'no-store',
        'access-control-allow-origin': '*',
        connection: 'close',
      });
      started = true;
      viewers.add(close);
      res.on('close', close);
      return reply;
    });
  };
}
