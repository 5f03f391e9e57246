/**
 * The HTTP load generator of the benchmarks (startLoadClient in bench/lib.ts), run in its own
 * process (forked with tsx) so that it does not share a CPU thread with the servers it measures.
 * Keep-alive connections through an undici Pool; each of `connections` loops sends one GET with
 * the job's headers at a time. Answers over IPC with the request count, the elapsed time and the
 * latencies' percentiles. A sequence job (`kind: 'sequence'`) sends its requests one after another
 * on one keep-alive connection and answers with each one's latency.
 */
import { Pool } from 'undici';
import { type LoadJob, percentile, type SequenceJob } from './lib.ts';

type Job = LoadJob | SequenceJob;

/** Each request of the job in turn, on one keep-alive connection: the latency of each (ms), warm-up left out. */
async function sequence(job: SequenceJob): Promise<{ latencies: number[]; failures: string[] }> {
  const pool = new Pool(job.origin, { connections: 1, pipelining: 1 });
  const latencies: number[] = [];
  const failures: string[] = [];
  try {
    for (const [i, r] of job.requests.entries()) {
      if (job.pauseMs) await new Promise((done) => setTimeout(done, job.pauseMs));
      const t0 = performance.now();
      const res = await pool.request({ method: r.method, path: r.path, headers: r.headers, body: r.body });
      const text = await res.body.text();
      const ms = performance.now() - t0;
      if (res.statusCode !== 200 || (job.expect !== undefined && !text.includes(job.expect)))
        failures.push(`${r.method} ${r.path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
      if (i >= (job.warmup ?? 0)) latencies.push(ms);
    }
  } finally {
    await pool.close();
  }
  return { latencies, failures };
}

async function run(job: LoadJob) {
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
        const res = await pool.request({ path: job.path, method: 'GET', headers: job.headers });
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
  return {
    rps: (count * 1000) / elapsed,
    count,
    bytes,
    errors,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

process.on('message', (job: Job) => {
  ('kind' in job ? sequence(job) : run(job)).then(
    (result) => process.send?.({ ok: true, result }),
    (err) => process.send?.({ ok: false, error: String(err) }),
  );
});
