/**
 * GET bridge (G4): requests per second and p99 latency of the gateway against a bare node:http
 * server that returns the same bytes, both measured in this run with the same load generator
 * (a separate process with N keep-alive connections). Rounds alternate between the two servers
 * so that a busy machine disturbs both alike. Target: the gateway does at least 0.7 of the bare
 * server's requests per second.
 */
import { createServer } from 'node:http';
import { type LoadResult, listen, report, startBenchGateway, startLoadClient } from './lib.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PATH = '/open-api/v2/rest/bridge';

const loader = startLoadClient();
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

  const gw: LoadResult[] = [];
  const base: LoadResult[] = [];
  await load(bareUrl, 500); // warm the load generator itself
  for (let i = 0; i < ROUNDS; i++) {
    base.push(await load(bareUrl));
    gw.push(await load(gatewayUrl));
  }
  bare.close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const gwRps = median(gw.map((r) => r.rps));
  const baseRps = median(base.map((r) => r.rps));
  const gwP99 = median(gw.map((r) => r.p99));
  const baseP99 = median(base.map((r) => r.p99));
  const errors = [...gw, ...base].reduce((n, r) => n + r.errors, 0);
  report(
    'GET bridge requests/s vs bare node:http',
    gwRps / baseRps,
    {
      gateway_rps: gwRps,
      bare_rps: baseRps,
      gateway_p99_ms: gwP99,
      bare_p99_ms: baseP99,
      gateway_p50_ms: median(gw.map((r) => r.p50)),
      bare_p50_ms: median(base.map((r) => r.p50)),
      connections: CONNECTIONS,
      rounds: ROUNDS,
      response_bytes: bytes.length,
      errors,
    },
    '>= 0.7',
  );
  report(
    'GET bridge p99 latency, bare / gateway (1 = same)',
    baseP99 / gwP99,
    { gateway_p99_ms: gwP99, bare_p99_ms: baseP99 },
    '>= 0.8',
  );
  if (errors > 0) process.exitCode = 1;
} finally {
  loader.close();
  await gateway.stop();
}
