/**
 * A camera's live view as one MJPEG response (multipart/x-mixed-replace), shared by the Open API's
 * camera route and the console's: one upstream connection per camera whatever the number of
 * viewers (the camera driver's), and a viewer that does not keep up misses frames rather than
 * queueing them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Failed } from '../../catalog/errors.ts';
import type { CameraApi } from '../../core/services.ts';

export const MJPEG_BOUNDARY = 'opencube-frame';

/** What a live view needs of the camera driver. */
export type LiveSource = Pick<CameraApi, 'watch'>;

/** The open views of one surface: a stop ends them (a server close does not wait on them). */
export class LiveViews {
  private readonly open = new Set<() => void>();

  /** Ends every open view. */
  endAll(): void {
    for (const end of [...this.open]) end();
  }

  /**
   * Starts a view of `serial` on the raw response. Returns the camera's refusal (nothing was
   * written), or `started` once the response belongs to the view; `hijack` is called just before
   * the first byte (the framework must not answer it).
   */
  async serve(
    source: LiveSource,
    serial: string,
    req: IncomingMessage,
    res: ServerResponse,
    hijack: () => void,
    headers: Record<string, string> = {},
  ): Promise<Failed | { started: true }> {
    let open = true;
    let started = false;
    let watching: { leave: () => void } | undefined;
    const close = () => {
      if (!open) return;
      open = false;
      this.open.delete(close);
      watching?.leave();
      res.end();
    };
    const r = await source.watch(serial, {
      frame(jpeg) {
        if (!open || !started || res.writableNeedDrain) return;
        res.write(`--${MJPEG_BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`);
        res.write(jpeg);
        res.write('\r\n');
      },
      end: () => close(),
    });
    if (!r.ok) return r;
    watching = r;
    // The viewer left while the camera was being reached.
    if (req.destroyed) {
      close();
      return { started: true };
    }
    hijack();
    res.writeHead(200, {
      'content-type': `multipart/x-mixed-replace; boundary=${MJPEG_BOUNDARY}`,
      'cache-control': 'no-store',
      connection: 'close',
      ...headers,
    });
    started = true;
    this.open.add(close);
    res.on('close', close);
    return { started: true };
  }
}
