/**
 * The load generator of bench/bridge.bench.ts, run in its own process (forked with tsx) so that
 * it does not share a CPU thread with the servers it measures. Keep-alive connections through an
 * undici Pool; each of `connections` loops sends one request at a time. Answers over IPC with the
 * request count, the elapsed time and the latencies' percentiles.
 */
import { Pool } from 'undici';

interface Job {
  origin: string;
  path: string;
  connections: number;
  durationMs: number;
  warmupMs: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

async function run(job: Job) {
  const pool = new Pool(job.origin, { connections: job.connections, pipelining: 1 });
  const latencies: number[] = [];
  let count = 0;
  let bytes = 0;
  let errors = 0;
  let recording = false;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const t0 = performance.now();
      try {
        const res = await pool.request({ path: job.path, method: 'GET' });
        const body = await res.body.arrayBuffer();
        if (recording) {
          latencies.push(performance.now() - t0);
          bytes += body.byteLength;
          count++;
        }
        if (res.statusCode !== 200) errors++;
      } catch {
        errors++;
      }
    }
  };
  const loops = Array.from({ length: job.connections }, loop);
  await new Promise((r) => setTimeout(r, job.warmupMs));
  recording = true;
  const start = performance.now();
  await new Promise((r) => setTimeout(r, job.durationMs));
  recording = false;
  const elapsed = performance.now() - start;
  stop = true;
  await Promise.all(loops);
  await pool.close();
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: (count * 1000) / elapsed,
    count,
    bytes,
    errors,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

process.on('message', (job: Job) => {
  run(job).then(
    (result) => process.send?.({ ok: true, result }),
    (err) => process.send?.({ ok: false, error: String(err) }),
  );
});
