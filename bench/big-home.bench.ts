/**
 * A big home (issue 29): 10,000 third-party devices on one gateway, each figure against a
 * baseline in the same run:
 * - memory: resident (and heap) memory added per device, against the budget of 5 KB per device
 *   (docs/benchmarks.md): a gateway of its own process started on the home's store (as after a
 *   restart), asked D3 plain and gzip, idle a while, after a full GC, against one with an empty
 *   store (alternating rounds, medians);
 * - D3 answered from the kept list: p50/p99 of a GET devices, cached (nothing changed) and
 *   patched (one device reported a state just before), against a bare node:http server returning
 *   the same bytes; the first answer after the list was built (once);
 * - D3 gzip (what node's fetch, axios and python requests ask for): the same, compressed, and
 *   its size against the plain size;
 * - a small answer (GET bridge) asked with Accept-Encoding gzip vs without: not slowed.
 * Requests come from a client in its own process, one at a time, rounds alternating.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import {
  benchLight,
  listen,
  percentile,
  report,
  runInChild,
  type SequenceJob,
  startBenchGateway,
  startDirectiveService,
  startLoadClient,
} from './lib.ts';

const DEVICES = Number(process.env.BENCH_BIG_DEVICES ?? 10_000);
/** A DiscoveryRequest holds at most 1,000 endpoints (src/drivers/thirdparty/events.ts). */
const PER_DISCOVERY = 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PER_ROUND = 40;
const BUDGET_BYTES = 5 * 1024;
/** How long each measured gateway idles before its memory is read (V8 gives back what loading took). */
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 15_000);

const mb = (b: number) => b / 1024 / 1024;

const dataDir = mkdtempSync(join(tmpdir(), 'opencube-bench-big-'));
const gw = await startBenchGateway({}, dataDir);
const service = await startDirectiveService();
const loader = startLoadClient();
const bareServers: ReturnType<typeof createServer>[] = [];
try {
  const token = gw.token('big-home');
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const pool = new Pool(gw.url, { connections: 1 });
  const post = async (name: string, payload: unknown, endpoint?: unknown) => {
    const body = JSON.stringify({
      event: { header: { name, message_id: crypto.randomUUID(), version: '1' }, endpoint, payload },
    });
    const r = await pool.request({ method: 'POST', path: '/open-api/v2/rest/thirdparty/event', headers: json, body });
    return (await r.body.json()) as { payload: { endpoints?: { serial_number: string }[] } };
  };

  const serials: string[] = [];
  for (let from = 0; from < DEVICES; from += PER_DISCOVERY) {
    const endpoints = Array.from({ length: Math.min(PER_DISCOVERY, DEVICES - from) }, (_, j) => {
      const i = from + j;
      const state = {
        power: { powerState: 'off' },
        brightness: { brightness: i % 100 },
        'color-temperature': { colorTemperature: 50 },
      };
      // Five models, forty rooms, brightness of their own: a home's variety, not one device 10,000 times.
      return benchLight(i, `${service.origin}/directive`, {
        model: `BL-${i % 5}`,
        state,
        tags: { room: `room-${i % 40}` },
      });
    });
    const r = await post('DiscoveryRequest', { endpoints });
    for (const e of r.payload.endpoints ?? []) serials.push(e.serial_number);
  }
  if (serials.length !== DEVICES) throw new Error(`${serials.length} of ${DEVICES} devices added`);

  // The first answer, built from the registry.
  const t0 = performance.now();
  const first = await pool.request({ method: 'GET', path: '/open-api/v2/rest/devices', headers: auth });
  const plainBody = Buffer.from(await first.body.arrayBuffer());
  const firstMs = performance.now() - t0;
  const gzRes = await pool.request({
    method: 'GET',
    path: '/open-api/v2/rest/devices',
    headers: { ...auth, 'accept-encoding': 'gzip, deflate' },
  });
  const gzBody = Buffer.from(await gzRes.body.arrayBuffer());
  if (gzRes.headers['content-encoding'] !== 'gzip') throw new Error('D3 was not compressed for a client asking gzip');

  // Bare servers returning the same bytes, plain and gzip.
  const bare = async (body: Buffer, gzip: boolean) => {
    const s = createServer((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': body.length,
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      });
      res.end(body);
    });
    bareServers.push(s);
    return listen(s);
  };
  const barePlain = await bare(plainBody, false);
  const bareGzip = await bare(gzBody, true);

  const list = (gzip: boolean): SequenceJob['requests'][number] => ({
    method: 'GET',
    path: '/open-api/v2/rest/devices',
    headers: gzip ? { ...auth, 'accept-encoding': 'gzip, deflate' } : auth,
  });
  const reportState = (i: number): SequenceJob['requests'][number] => ({
    method: 'POST',
    path: '/open-api/v2/rest/thirdparty/event',
    headers: json,
    body: JSON.stringify({
      event: {
        header: { name: 'DeviceStatesChangeReport', message_id: `m${i}`, version: '1' },
        endpoint: { serial_number: serials[(i * 7919) % DEVICES] },
        payload: { state: { brightness: { brightness: i % 101 } } },
      },
    }),
  });
  const cachedJob = (origin: string, gzip: boolean): SequenceJob => ({
    kind: 'sequence',
    origin,
    warmup: 5,
    requests: Array.from({ length: PER_ROUND + 5 }, () => list(gzip)),
  });
  /** A state report, then D3: every second latency is a D3 answered after a change. */
  let n = 0;
  const patchedJob = (gzip: boolean): SequenceJob => ({
    kind: 'sequence',
    origin: gw.url,
    requests: Array.from({ length: PER_ROUND * 2 }, (_, i) => (i % 2 === 0 ? reportState(n++) : list(gzip))),
  });
  const figures = {
    bare: [] as number[],
    cached: [] as number[],
    patched: [] as number[],
    bareGzip: [] as number[],
    cachedGzip: [] as number[],
    patchedGzip: [] as number[],
  };
  const odd = (r: { latencies: number[]; failures: string[] }) => {
    if (r.failures.length > 0) throw new Error(`a request failed: ${r.failures[0]}`);
    return r.latencies.filter((_, i) => i % 2 === 1);
  };
  for (let round = 0; round < ROUNDS; round++) {
    figures.bare.push(...(await loader.sequence(cachedJob(barePlain, false))).latencies);
    figures.cached.push(...(await loader.sequence(cachedJob(gw.url, false))).latencies);
    figures.patched.push(...odd(await loader.sequence(patchedJob(false))));
    figures.bareGzip.push(...(await loader.sequence(cachedJob(bareGzip, true))).latencies);
    figures.cachedGzip.push(...(await loader.sequence(cachedJob(gw.url, true))).latencies);
    figures.patchedGzip.push(...odd(await loader.sequence(patchedJob(true))));
  }
  const p = (xs: number[], q: number) => percentile(xs, q);
  report(
    `D3 ${DEVICES} devices, cached, gateway p50 / bare node:http p50 (lower is better)`,
    p(figures.cached, 50) / p(figures.bare, 50),
    {
      gateway_p50_ms: p(figures.cached, 50),
      gateway_p99_ms: p(figures.cached, 99),
      bare_p50_ms: p(figures.bare, 50),
      bare_p99_ms: p(figures.bare, 99),
      first_ms: firstMs,
      body_mb: mb(plainBody.length),
    },
    'cached under 100 ms',
  );
  report(
    `D3 ${DEVICES} devices, one device changed just before, gateway p50 / bare node:http p50 (lower is better)`,
    p(figures.patched, 50) / p(figures.bare, 50),
    { gateway_p50_ms: p(figures.patched, 50), gateway_p99_ms: p(figures.patched, 99) },
  );
  report(
    `D3 ${DEVICES} devices gzip, cached, gateway p50 / bare node:http p50 (lower is better)`,
    p(figures.cachedGzip, 50) / p(figures.bareGzip, 50),
    {
      gateway_p50_ms: p(figures.cachedGzip, 50),
      gateway_p99_ms: p(figures.cachedGzip, 99),
      bare_p50_ms: p(figures.bareGzip, 50),
      patched_p50_ms: p(figures.patchedGzip, 50),
      patched_p99_ms: p(figures.patchedGzip, 99),
      gzip_mb: mb(gzBody.length),
      gzip_of_plain: gzBody.length / plainBody.length,
    },
  );

  // A small answer is not compressed, and not slowed by asking.
  const bridge = (gzip: boolean): SequenceJob => ({
    kind: 'sequence',
    origin: gw.url,
    warmup: 20,
    requests: Array.from({ length: 220 }, () => ({
      method: 'GET',
      path: '/open-api/v2/rest/bridge',
      headers: gzip ? { 'accept-encoding': 'gzip, deflate, br' } : ({} as Record<string, string>),
    })),
  });
  const small = { plain: [] as number[], gzip: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    small.plain.push(...(await loader.sequence(bridge(false))).latencies);
    small.gzip.push(...(await loader.sequence(bridge(true))).latencies);
  }
  report(
    'GET bridge asked with Accept-Encoding gzip / without, p50 (1 = same)',
    p(small.gzip, 50) / p(small.plain, 50),
    {
      gzip_p50_ms: p(small.gzip, 50),
      plain_p50_ms: p(small.plain, 50),
      gzip_p99_ms: p(small.gzip, 99),
      plain_p99_ms: p(small.plain, 99),
    },
  );
  await pool.close();
  loader.close();
  for (const s of bareServers) {
    s.closeAllConnections();
    s.close();
  }
  await gw.stop();

  // The same home after a restart: a gateway of its own process with the devices loaded from
  // the store, against one with an empty store (alternating rounds, medians).
  type Memory = { rss: number; heap: number; devices: number };
  const home: Memory[] = [];
  const none: Memory[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    home.push(await runInChild<Memory>('big-home-gateway.ts', { dataDir, idleMs: IDLE_MS }));
    none.push(await runInChild<Memory>('big-home-gateway.ts', { idleMs: IDLE_MS }));
  }
  if (home.some((m) => m.devices !== DEVICES)) throw new Error('the restarted gateway did not list every device');
  const median = (xs: number[]) => percentile(xs, 50);
  const rssAdded = median(home.map((m) => m.rss)) - median(none.map((m) => m.rss));
  report(
    `memory: resident memory added per device (${DEVICES} devices loaded from the store, D3 asked plain and gzip, ${IDLE_MS / 1000} s idle) / the budget of 5 KB`,
    rssAdded / DEVICES / BUDGET_BYTES,
    {
      rss_home_mb: mb(median(home.map((m) => m.rss))),
      rss_empty_mb: mb(median(none.map((m) => m.rss))),
      bytes_per_device: rssAdded / DEVICES,
      served_json_bytes_per_device: plainBody.length / DEVICES,
      heap_bytes_per_device: (median(home.map((m) => m.heap)) - median(none.map((m) => m.heap))) / DEVICES,
      rounds: ROUNDS,
    },
    '<= 1',
  );
} finally {
  loader.close();
  for (const s of bareServers) {
    s.closeAllConnections();
    s.close();
  }
  await gw.stop();
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
