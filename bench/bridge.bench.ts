/**
 * GET bridge (G4): requests per second and p99 latency of the gateway against a bare node:http
 * server that returns the same bytes, both measured in this run with the same load generator
 * (a separate process with N keep-alive connections). The machine is shared and noisy, so the
 * figures come from pairs: a warm-up round of each server first (not counted), then ROUNDS pairs
 * of rounds, each pair a bare round and a gateway round one after the other (which goes first
 * alternates, so neither always runs after the other's garbage), a full collection before each
 * round (both servers are in this process). Each figure is the median over the pairs of the
 * pair's ratio, printed with the lowest and highest pair. Targets: the gateway does at least 0.7
 * of the bare server's requests per second; its p99 is at most 1.25 times the bare one's.
 */
import { createServer } from 'node:http';
import { type LoadResult, listen, report, startBenchGateway, startLoadClient } from './lib.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 600);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const PATH = '/open-api/v2/rest/bridge';

const loader = startLoadClient();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
/** A full collection (run.ts starts benches with --expose-gc), so no round inherits the last one's garbage. */
const collect = () => (globalThis as { gc?: () => void }).gc?.();
const load = (origin: string, durationMs = DURATION_MS) =>
  loader.run({ origin, path: PATH, connections: CONNECTIONS, durationMs, warmupMs: 300 });

const gateway = await startBenchGateway();
try {
  const gatewayUrl = gateway.url;
  const sample = await fetch(`${gatewayUrl}${PATH}`);
  const bytes = Buffer.from(await sample.arrayBuffer());
  const type = sample.headers.get('content-type') ?? 'application/json; charset=utf-8';

  const bare = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': type, 'content-length': bytes.length });
    res.end(bytes);
  });
  const bareUrl = await listen(bare);
  const check = Buffer.from(await (await fetch(`${bareUrl}${PATH}`)).arrayBuffer());
  if (!check.equals(bytes)) throw new Error('the bare server does not return the same bytes');

  const round = (origin: string) => {
    collect();
    return load(origin);
  };
  // Warm-up, not counted: the load generator, both servers' code paths and V8's optimised code.
  await load(bareUrl);
  await load(gatewayUrl);
  const gw: LoadResult[] = [];
  const base: LoadResult[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      base.push(await round(bareUrl));
      gw.push(await round(gatewayUrl));
    } else {
      gw.push(await round(gatewayUrl));
      base.push(await round(bareUrl));
    }
  }
  bare.close();
  const pairs = (f: (g: LoadResult, b: LoadResult) => number) => gw.map((g, i) => f(g, base[i] as LoadResult));
  const spread = (xs: number[]) => ({ lowest_pair: Math.min(...xs), highest_pair: Math.max(...xs) });
  const rpsRatios = pairs((g, b) => g.rps / b.rps);
  const p99Ratios = pairs((g, b) => b.p99 / g.p99);
  const errors = [...gw, ...base].reduce((n, r) => n + r.errors, 0);
  report(
    'GET bridge requests/s vs bare node:http',
    median(rpsRatios),
    {
      ...spread(rpsRatios),
      gateway_rps: median(gw.map((r) => r.rps)),
      bare_rps: median(base.map((r) => r.rps)),
      gateway_p50_ms: median(gw.map((r) => r.p50)),
      bare_p50_ms: median(base.map((r) => r.p50)),
      connections: CONNECTIONS,
      rounds: ROUNDS,
      requests_per_round: median(gw.map((r) => r.count)),
      response_bytes: bytes.length,
      errors,
    },
    '>= 0.7',
  );
  report(
    'GET bridge p99 latency, bare / gateway (1 = same)',
    median(p99Ratios),
    {
      ...spread(p99Ratios),
      gateway_p99_ms: median(gw.map((r) => r.p99)),
      bare_p99_ms: median(base.map((r) => r.p99)),
    },
    '>= 0.8',
  );
  if (errors > 0) process.exitCode = 1;
} finally {
  loader.close();
  await gateway.stop();
}
