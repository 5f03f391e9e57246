/**
 * The stream clients of bench/sse.bench.ts, in their own process: opens `count` event streams
 * (raw node:http, keep-alive off), then for every event records the delay between its
 * `t` (the publisher's clock, epoch ms with sub-ms precision) and its arrival here.
 */
import { request } from 'node:http';

interface Job {
  url: string;
  count: number;
  events: number;
}

const now = () => performance.timeOrigin + performance.now();

async function run(job: Job) {
  const latencies: number[] = [];
  let received = 0;
  const total = job.count * job.events;
  let allDone: () => void = () => {};
  const done = new Promise<void>((r) => {
    allDone = r;
  });
  const reqs: ReturnType<typeof request>[] = [];
  await Promise.all(
    Array.from(
      { length: job.count },
      () =>
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
                const data = frame.split('\n').find((l) => l.startsWith('data: '));
                if (data) {
                  const t = (JSON.parse(data.slice(6)) as { payload: { t: number } }).payload.t;
                  latencies.push(at - t);
                  if (++received === total) allDone();
                }
                idx = buffer.indexOf('\n\n');
              }
            });
            opened();
          });
          req.on('error', failed);
          req.end();
          reqs.push(req);
        }),
    ),
  );
  process.send?.({ type: 'ready' });
  await done;
  for (const r of reqs) r.destroy();
  return latencies;
}

process.on('message', (job: Job) => {
  run(job).then(
    (latencies) => process.send?.({ type: 'done', latencies }),
    (err) => process.send?.({ type: 'error', error: String(err) }),
  );
});
