/**
 * Event-stream fan-out: one event to 200 connected clients, repeated; p99 of the delivery
 * latency (publish to arrival in the clients' process) against a bare node:http SSE server that
 * writes the same frames to the same number of clients, and the server-side memory per
 * connected client (heap + buffers, measured after GC) for both. Each server first takes one
 * round of clients that is not counted: what the first stream makes once (its route's code, the
 * projection's tables) is not memory per client. Medians of three counted rounds.
 */
import { createServer, type ServerResponse } from 'node:http';
import { epochNow, listen, percentile, report, startBenchGateway, startStreamClients } from './lib.ts';

const CLIENTS = Number(process.env.BENCH_SSE_CLIENTS ?? 200);
const EVENTS = Number(process.env.BENCH_SSE_EVENTS ?? 100);
const GAP_MS = 10;
const ROUNDS = 3;

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

function memory(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}

interface Run {
  latencies: number[];
  bytesPerClient: number;
}

/**
 * Connects the clients, measures memory, publishes EVENTS events spaced GAP_MS apart, each
 * carrying its publication time `t`, and collects every delivery's latency (arrival - t).
 */
async function measure(url: string, connected: () => number, publish: (t: number) => void): Promise<Run> {
  const clients = startStreamClients();
  try {
    const before = memory();
    await clients.open(url, CLIENTS, /"t":([\d.]+)/);
    while (connected() < CLIENTS) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 200));
    const bytesPerClient = (memory() - before) / CLIENTS;
    const deliveries: Promise<number[]>[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const t = epochNow();
      publish(t);
      deliveries.push(clients.delivered(String(t)).then((arrivals) => arrivals.map((at) => at - t)));
      await new Promise((r) => setTimeout(r, GAP_MS));
    }
    return { latencies: (await Promise.all(deliveries)).flat(), bytesPerClient };
  } finally {
    await clients.close();
  }
}

/**
 * The baseline: node:http writing the same frames to every open response. Its clients ask for
 * the gateway's stream path, token included (`path`), so that both keep the same request.
 */
async function bareServer(path: string) {
  const clients = new Set<ServerResponse>();
  let id = 0;
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.write('retry: 3000\n\n');
    clients.add(res);
    req.on('close', () => clients.delete(res));
  });
  const url = `${await listen(server)}${path}`;
  return {
    url,
    connected: () => clients.size,
    publish: (t: number) => {
      const data = JSON.stringify({ endpoint: { serial_number: 'bench' }, payload: { t } });
      const chunk = `id: ${++id}\nevent: device#v2#updateDeviceState\ndata: ${data}\n\n`;
      for (const c of clients) c.write(chunk);
    },
    close: () => {
      for (const c of clients) c.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const started = await startBenchGateway();
const { gateway } = started;
try {
  const token = gateway.tokens.create('bench');
  const gwUrl = `${started.url}/open-api/v2/sse/bridge?access_token=${token}`;
  const gwRuns: Run[] = [];
  const bareRuns: Run[] = [];
  for (let round = -1; round < ROUNDS; round++) {
    const bare = await bareServer(new URL(gwUrl).pathname + new URL(gwUrl).search);
    const b = await measure(bare.url, bare.connected, bare.publish);
    await bare.close();
    const g = await measure(
      gwUrl,
      () => gateway.sse.size,
      (t) => gateway.bus.publish('device#updateDeviceState', { endpoint: { serial_number: 'bench' }, payload: { t } }),
    );
    while (gateway.sse.size > 0) await new Promise((r) => setTimeout(r, 10));
    if (process.env.BENCH_VERBOSE)
      console.log(`round ${round}: bare ${b.bytesPerClient.toFixed(0)} gateway ${g.bytesPerClient.toFixed(0)}`);
    if (round < 0) continue; // the warm-up round
    bareRuns.push(b);
    gwRuns.push(g);
  }
  const all = (runs: Run[]) => runs.flatMap((r) => r.latencies);
  const gwP99 = percentile(all(gwRuns), 99);
  const bareP99 = percentile(all(bareRuns), 99);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const gwMem = median(gwRuns.map((r) => r.bytesPerClient));
  const bareMem = median(bareRuns.map((r) => r.bytesPerClient));
  report(`SSE fan-out to ${CLIENTS} clients, p99 delivery latency, bare / gateway (1 = same)`, bareP99 / gwP99, {
    gateway_p99_ms: gwP99,
    bare_p99_ms: bareP99,
    gateway_p50_ms: percentile(all(gwRuns), 50),
    bare_p50_ms: percentile(all(bareRuns), 50),
    deliveries: all(gwRuns).length,
    events: EVENTS * ROUNDS,
  });
  report(
    'SSE memory per connected client, bare / gateway (1 = same)',
    bareMem / gwMem,
    { gateway_bytes_per_client: gwMem, bare_bytes_per_client: bareMem, rss_mb: process.memoryUsage().rss / 1e6 },
    '>= 0.95',
  );
} finally {
  await started.stop();
}
