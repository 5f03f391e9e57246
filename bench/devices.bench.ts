/**
 * Device benchmarks (issue 4), each against a baseline measured in this run:
 * - D3 with 1,000 devices: requests per second against a bare node:http server returning the same bytes (target >= 0.6);
 * - D4 control of a third-party device: round trip through the gateway against a direct POST to the same service
 *   (the client and the service each in a process of their own, as they are for users);
 * - a T1 state report to event-stream delivery at 100 clients (p99) against a bare node:http SSE fan-out;
 * - resident memory with 1,000 devices and 100 stream clients.
 */
import { createServer, type ServerResponse } from 'node:http';
import { Pool } from 'undici';
import {
  benchLight,
  epochNow,
  listen,
  percentile,
  report,
  type SequenceJob,
  type StreamClients,
  startBenchGateway,
  startDirectiveService,
  startLoadClient,
  startStreamClients,
} from './lib.ts';

const DEVICES = 1000;
const CLIENTS = 100;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const mb = (n: number) => n / 1024 / 1024;

function rss(): number {
  gc();
  gc();
  return process.memoryUsage().rss;
}

const rssBefore = rss();
const gw = await startBenchGateway();
const url = gw.url;
const token = gw.token('bench');
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const gwPool = new Pool(url, { connections: 4 });
const rssEmpty = rss();

// The third-party service every device points at (its own process): answers each directive at once.
const service = await startDirectiveService();
const serviceUrl = `${service.origin}/directive`;

async function event(name: string, payload: unknown, endpoint?: unknown): Promise<any> {
  const body = JSON.stringify({
    event: { header: { name, message_id: crypto.randomUUID(), version: '1' }, endpoint, payload },
  });
  const r = await gwPool.request({ method: 'POST', path: '/open-api/v2/rest/thirdparty/event', headers: auth, body });
  return r.body.json();
}

const endpoints = Array.from({ length: DEVICES }, (_, i) =>
  benchLight(i, serviceUrl, { tags: { room: `room-${i % 20}`, toggle: { '1': 'Main' } } }),
);
const synced = await event('DiscoveryRequest', { endpoints });
const serials: string[] = synced.payload.endpoints.map((e: { serial_number: string }) => e.serial_number);
if (serials.length !== DEVICES) throw new Error(`sync failed: ${JSON.stringify(synced).slice(0, 300)}`);

// 100 stream clients (in their own process); the marker of an event is its brightness.
const BRIGHTNESS = /"brightness":(\d+)\}/;
const gwStreams = startStreamClients();
await gwStreams.open(`${url}/open-api/v2/sse/bridge?access_token=${token}`, CLIENTS, BRIGHTNESS);
const rssLoaded = rss();
report('memory: resident with 1,000 devices and 100 stream clients, over the empty gateway', rssLoaded / rssEmpty, {
  rss_process_start_mb: mb(rssBefore),
  rss_empty_gateway_mb: mb(rssEmpty),
  rss_loaded_mb: mb(rssLoaded),
  added_mb: mb(rssLoaded - rssEmpty),
});

// ---- D3 with 1,000 devices against a bare server returning the same bytes ----
const listRes = await gwPool.request({ method: 'GET', path: '/open-api/v2/rest/devices', headers: auth });
const listBody = Buffer.from(await listRes.body.arrayBuffer());
const bare = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': listBody.length });
  res.end(listBody);
});
const bareUrl = await listen(bare);
// Alternating runs, best of each: the machine is shared, so a single run is noisy.
const loader = startLoadClient();
const bareRps = { rps: 0, failed: 0 };
const gwRps = { rps: 0, failed: 0 };
for (let round = 0; round < 3; round++) {
  for (const [origin, into] of [
    [bareUrl, bareRps],
    [url, gwRps],
  ] as const) {
    const r = await loader.run({
      origin,
      path: '/open-api/v2/rest/devices',
      headers: auth,
      connections: 16,
      warmupMs: 300,
      durationMs: 1700,
    });
    into.rps = Math.max(into.rps, r.rps);
    into.failed += r.errors;
  }
}
report(
  'D3 devices list (1,000 devices) vs bare node:http, requests/s',
  gwRps.rps / bareRps.rps,
  {
    gateway_rps: gwRps.rps,
    bare_rps: bareRps.rps,
    body_kb: listBody.length / 1024,
    failed: gwRps.failed + bareRps.failed,
  },
  '>= 0.6',
);
await new Promise<void>((done) => bare.close(() => done()));

// ---- D4 control of a third-party device against a direct POST to the same service ----
// A client in its own process sends one command at a time, as an app does; rounds alternate
// between the gateway and the direct POST so that a busy machine disturbs both alike.
const ROUNDS = 4;
const PER_ROUND = 150;
const WARMUP = 20;
const directBody = JSON.stringify({
  directive: {
    header: { name: 'UpdateDeviceStates', message_id: crypto.randomUUID(), version: '1' },
    endpoint: { serial_number: serials[0], third_serial_number: 'bench-0', tags: {} },
    payload: { state: { power: { powerState: 'on' } } },
  },
});
const json = { 'content-type': 'application/json' };
const directJob: SequenceJob = {
  kind: 'sequence',
  origin: service.origin,
  warmup: WARMUP,
  requests: Array.from({ length: PER_ROUND + WARMUP }, () => ({
    method: 'POST',
    path: '/directive',
    headers: json,
    body: directBody,
  })),
};
const gatewayJob: SequenceJob = {
  kind: 'sequence',
  origin: url,
  warmup: WARMUP,
  expect: '"error":0',
  requests: Array.from({ length: PER_ROUND + WARMUP }, (_, i) => ({
    method: 'PUT',
    path: `/open-api/v2/rest/devices/${serials[i % 10]}`,
    headers: auth,
    body: JSON.stringify({
      state: { power: { powerState: i % 20 < 10 ? 'on' : 'off' }, brightness: { brightness: i % 100 } },
    }),
  })),
};
/**
 * Commands back to back (the next sent at its answer), then paced as a person's come (20 ms
 * apart); last, for the breakdown only, back to back with the store's commits not waiting for
 * the disk (synchronous = NORMAL: the gateway runs FULL, an fsync per commit, so that what it
 * acknowledged survives a power cut).
 */
for (const [pauseMs, synchronous] of [
  [0, 'FULL'],
  [20, 'FULL'],
  [0, 'NORMAL'],
] as const) {
  gw.gateway.db.pragma(`synchronous = ${synchronous}`);
  const direct: number[] = [];
  const viaGateway: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    direct.push(...(await loader.sequence({ ...directJob, pauseMs })).latencies);
    const g = await loader.sequence({ ...gatewayJob, pauseMs });
    if (g.failures.length > 0) throw new Error(`D4 failed: ${g.failures[0]}`);
    viaGateway.push(...g.latencies);
  }
  const [d50, d99, g50, g99] = [
    percentile(direct, 50),
    percentile(direct, 99),
    percentile(viaGateway, 50),
    percentile(viaGateway, 99),
  ];
  const how = `${pauseMs === 0 ? 'back to back' : `${pauseMs} ms apart`}${synchronous === 'FULL' ? '' : ', no fsync: breakdown only'}`;
  report(
    `D4 third-party control round trip (1,000 devices, 100 streams, ${how}), gateway p50 / direct POST p50 (lower is better)`,
    g50 / d50,
    {
      direct_p50_ms: d50,
      direct_p99_ms: d99,
      gateway_p50_ms: g50,
      gateway_p99_ms: g99,
      added_p50_ms: g50 - d50,
      added_p99_ms: g99 - d99,
      samples: viaGateway.length,
    },
    'added p50 <= 0.5 ms',
  );
  report(
    `D4 third-party control round trip (${how}), gateway p99 / direct POST p99 (lower is better)`,
    g99 / d99,
    { added_p99_ms: g99 - d99 },
    'added p99 <= 2 ms',
  );
}
gw.gateway.db.pragma('synchronous = FULL');
loader.close();

// ---- T1 state report to delivery on 100 streams, against a bare node:http SSE fan-out ----
/** Per round: from sending the report to both its answer and its arrival at the last of the streams. */
async function fanout(streams: StreamClients, send: (i: number) => Promise<void>, rounds: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = epochNow();
    const delivered = streams.delivered(String((i % 90) + 1));
    await send(i);
    const answered = epochNow();
    out.push(Math.max(answered, ...(await delivered)) - t0);
  }
  return out;
}
const FANOUT_ROUNDS = 200;
const gwFan = await fanout(
  gwStreams,
  async (i) => {
    const r = await event(
      'DeviceStatesChangeReport',
      { state: { brightness: { brightness: (i % 90) + 1 } } },
      { serial_number: serials[1] },
    );
    if (r.header?.name !== 'Response') throw new Error(JSON.stringify(r));
  },
  FANOUT_ROUNDS,
);
await gwStreams.close();

const sinks = new Set<ServerResponse>();
let seq = 0;
const bareSse = createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': connected\n\n');
    sinks.add(res);
    res.on('close', () => sinks.delete(res));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const frame = `id: ${++seq}\nevent: device#v2#updateDeviceState\ndata: ${JSON.stringify({ endpoint: body.event.endpoint, payload: body.event.payload.state })}\n\n`;
    for (const s of sinks) s.write(frame);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"header":{"name":"Response","message_id":"","version":"1"},"payload":{}}');
  });
});
const bareSseUrl = await listen(bareSse);
const bareStreams = startStreamClients();
await bareStreams.open(`${bareSseUrl}/sse`, CLIENTS, BRIGHTNESS);
const barePool = new Pool(bareSseUrl, { connections: 4 });
const bareFan = await fanout(
  bareStreams,
  async (i) => {
    const body = JSON.stringify({
      event: {
        header: { name: 'DeviceStatesChangeReport', message_id: crypto.randomUUID(), version: '1' },
        endpoint: { serial_number: serials[1] },
        payload: { state: { brightness: { brightness: (i % 90) + 1 } } },
      },
    });
    const r = await barePool.request({ method: 'POST', path: '/event', headers: auth, body });
    await r.body.text();
  },
  FANOUT_ROUNDS,
);
await bareStreams.close();
report(
  'T1 state report to 100 event-stream clients, gateway p99 / bare fan-out p99 (lower is better)',
  percentile(gwFan, 99) / percentile(bareFan, 99),
  {
    gateway_p50_ms: percentile(gwFan, 50),
    gateway_p99_ms: percentile(gwFan, 99),
    bare_p50_ms: percentile(bareFan, 50),
    bare_p99_ms: percentile(bareFan, 99),
  },
);

await barePool.close();
await gwPool.close();
bareSse.closeAllConnections();
await new Promise<void>((done) => bareSse.close(() => done()));
await gw.stop();
await service.stop();
