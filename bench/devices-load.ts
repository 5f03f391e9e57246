/**
 * Load tools of the device benchmarks: a closed-loop HTTP load generator that runs in a worker
 * thread (so it does not share the event loop of the server it measures), and raw SSE readers.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Worker } from 'node:worker_threads';

const LOAD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { Pool } = require('undici');
(async () => {
  const { origin, path, headers, connections, ms } = workerData;
  const pool = new Pool(origin, { connections, pipelining: 1 });
  let done = 0;
  let failed = 0;
  const until = Date.now() + ms;
  const warm = Date.now() + Math.min(300, ms / 4);
  let counting = false;
  let start = 0;
  const loop = async () => {
    while (Date.now() < until) {
      try {
        const r = await pool.request({ method: 'GET', path, headers });
        await r.body.arrayBuffer();
        if (r.statusCode !== 200) failed++;
      } catch { failed++; }
      if (!counting && Date.now() >= warm) { counting = true; start = performance.now(); done = 0; }
      done++;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsed = performance.now() - start;
  await pool.close();
  parentPort.postMessage({ rps: (done * 1000) / elapsed, failed });
})();
`;

/** Requests per second of GET `path` on `origin`, with `connections` concurrent keep-alive connections, for `ms`. */
export function measureRps(
  origin: string,
  path: string,
  headers: Record<string, string>,
  connections = 16,
  ms = 3000,
): Promise<{ rps: number; failed: number }> {
  return new Promise((resolve, reject) => {
    const w = new Worker(LOAD_WORKER, { eval: true, workerData: { origin, path, headers, connections, ms } });
    w.once('message', (m) => {
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
}

/** A raw event-stream reader that calls `onChunk` with every text chunk. */
export function openRawStream(url: string, onChunk: (text: string) => void): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', onChunk);
      resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
}
