/**
 * A file a route answers (src/core/route.ts `FileAnswer`, a CSV export), as both surfaces send it:
 * streamed line by line as the client reads (a year of values is never one string in memory),
 * with a name a browser saves it under.
 */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { FileAnswer } from '../../core/route.ts';

/** Sends `file` as the reply (the handler has answered: the surface returns `{sent: true}`). */
export function sendFile(reply: FastifyReply, file: FileAnswer): void {
  // The name comes from the gateway (a serial number, dates): anything else is left out of it.
  const name = file.filename.replace(/[^\w.-]/g, '_');
  reply
    .code(200)
    .type(file.type)
    .header('Content-Disposition', `attachment; filename="${name}"`)
    .header('Cache-Control', 'no-store')
    .send(Readable.from(file.lines, { objectMode: false }));
}
