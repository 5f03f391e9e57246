/**
 * The event-stream clients of the benchmarks (startStreamClients in bench/lib.ts), in their own
 * process. On a job, opens `count` event streams (raw node:http, keep-alive off) and answers
 * `ready`. The marker of a frame is the first capture group of `pattern` in it; once every stream
 * has received a marker, answers with the arrival time at each stream (epoch ms with sub-ms
 * precision, the first arrival per stream), taken when the chunk holding the frame came in.
 * On `close`, closes the streams and leaves.
 */
import { request } from 'node:http';
import { epochNow as now } from './lib.ts';

interface Job {
  url: string;
  count: number;
  pattern: string;
  flags: string;
}

const requests: ReturnType<typeof request>[] = [];

async function run(job: Job) {
  const pattern = new RegExp(job.pattern, job.flags.includes('g') ? job.flags : `${job.flags}g`);
  // marker -> arrival time at each stream (undefined until that stream has it)
  const pending = new Map<string, { at: (number | undefined)[]; left: number }>();
  const arrived = (marker: string, stream: number, at: number) => {
    let p = pending.get(marker);
    if (!p) {
      p = { at: new Array(job.count), left: job.count };
      pending.set(marker, p);
    }
    if (p.at[stream] !== undefined) return;
    p.at[stream] = at;
    if (--p.left === 0) {
      pending.delete(marker);
      process.send?.({ type: 'delivered', marker, arrivals: p.at });
    }
  };
  await Promise.all(
    Array.from(
      { length: job.count },
      (_, stream) =>
        new Promise<void>((opened, failed) => {
          const req = request(job.url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
            if (res.statusCode !== 200) return failed(new Error(`HTTP ${res.statusCode}`));
            res.setEncoding('utf8');
            let buffer = '';
            res.on('data', (chunk: string) => {
              const at = now();
              buffer += chunk;
              let idx = buffer.indexOf('\n\n');
              while (idx !== -1) {
                const frame = buffer.slice(0, idx);
                buffer = buffer.slice(idx + 2);
                for (const m of frame.matchAll(pattern)) arrived(m[1] as string, stream, at);
                idx = buffer.indexOf('\n\n');
              }
            });
            opened();
          });
          req.on('error', failed);
          req.end();
          requests.push(req);
        }),
    ),
  );
}

process.on('message', (m: Job | 'close') => {
  if (m === 'close') {
    // Close the streams as a client does, then leave.
    for (const r of requests) r.destroy();
    process.disconnect();
    return;
  }
  run(m).then(
    () => process.send?.({ type: 'ready' }),
    (err) => process.send?.({ type: 'error', error: String(err) }),
  );
});
