/**
 * The third-party service of the benchmarks (startDirectiveService in bench/lib.ts), in its own
 * process as a real one is: answers every directive (T2) at once with
 * `UpdateDeviceStatesResponse`, on 127.0.0.1, and tells its origin over IPC.
 */
import { createServer } from 'node:http';
import { listen } from './lib.ts';

const service = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"event":{"header":{"name":"UpdateDeviceStatesResponse","message_id":"x","version":"1"},"payload":{}}}');
  });
});
process.send?.({ origin: await listen(service) });
process.on('disconnect', () => {
  service.closeAllConnections();
  service.close();
});
