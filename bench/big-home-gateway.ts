/**
 * One gateway of the big-home benchmark (bench/big-home.bench.ts), in a process of its own so that
 * its resident memory is its own: started on the data folder of the job (its devices loaded from
 * the store, as after a restart) or on an empty one, asked D3 once plain and once gzip by curl (so
 * that both kept answers are built), and measured after a full GC. Answers over IPC, then stops.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startBenchGateway } from './lib.ts';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

const curl = promisify(execFile);

async function run(job: { dataDir?: string; encodings?: string[]; idleMs?: number }) {
  const g = await startBenchGateway({}, job.dataDir);
  const out = mkdtempSync(join(tmpdir(), 'opencube-bench-d3-'));
  try {
    // Asked by curl, a process of its own: a client in this one would hold the answer it read.
    const encodings = job.encodings ?? ['identity', 'gzip'];
    for (const encoding of encodings)
      await curl('curl', [
        '-sf',
        '-o',
        join(out, encoding),
        '-H',
        `authorization: Bearer ${g.token('memory')}`,
        '-H',
        `accept-encoding: ${encoding}`,
        `${g.url}/open-api/v2/rest/devices`,
      ]);
    await new Promise((r) => setTimeout(r, job.idleMs ?? 0));
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 100));
    }
    const m = process.memoryUsage();
    const devices = encodings.includes('identity')
      ? (JSON.parse(readFileSync(join(out, 'identity'), 'utf8')) as { data: { device_list: unknown[] } }).data
          .device_list.length
      : undefined;
    return { rss: m.rss, heap: m.heapUsed, heapTotal: m.heapTotal, external: m.external, devices };
  } finally {
    await g.stop();
    rmSync(out, { recursive: true, force: true });
  }
}

process.once('message', (job: { dataDir?: string }) => {
  run(job).then(
    (result) => process.send?.({ ok: true, result }, () => process.disconnect()),
    (err) => process.send?.({ ok: false, error: String(err) }, () => process.disconnect()),
  );
});
