/**
 * `npm run fuzz [-- --requests 100000 --seed N --concurrency 32]`: the fuzzer of
 * scripts/reliability/fuzz.ts against a real `opencube start`, in a private network namespace.
 * Prints its figures; exits 1 on any crash, answer outside the envelope or 5xx.
 */
import { runFuzz } from './reliability/fuzz.ts';
import { exitOnSignals } from './reliability/gateway-process.ts';
import { inPrivateNetwork } from './reliability/netns.ts';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

inPrivateNetwork();
exitOnSignals();
const requests = flag('requests', 100_000);
const seed = flag('seed', Date.now() % 1_000_000);
const concurrency = flag('concurrency', 32);
const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`;
process.stdout.write(`fuzz: ${requests} requests, seed ${seed}, ${concurrency} at once\n`);
const f = await runFuzz({ requests, seed, concurrency, log: (l) => process.stdout.write(`  ${l}\n`) });
process.stdout.write(
  [
    `requests: ${f.requests} (${f.raw} raw) over ${f.routes} routes in ${f.seconds.toFixed(1)} s (${(f.requests / f.seconds).toFixed(0)}/s)`,
    `answers: ${Object.entries(f.codes)
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ${n}`)
      .join(', ')}`,
    `crashes: ${f.crashes}`,
    `answers outside the envelope: ${f.outsideEnvelope}`,
    `5xx: ${f.serverErrors}`,
    `connections the server closed under a request (bodies over its limit): ${f.transportErrors}`,
    `gateway memory (RSS): ${mb(f.rss.start)} after warm-up, ${mb(f.rss.peak)} peak, ${mb(f.rss.end)} at the end (${mb(f.rss.end - f.rss.start)} growth)`,
    ...f.findings.map((x) => `  finding: ${x.method} ${x.path} -> ${x.status} ${x.excerpt}`),
    ...(f.crashLog ? [`gateway stderr:\n${f.crashLog}`] : []),
    '',
  ].join('\n'),
);
process.exit(f.crashes + f.outsideEnvelope + f.serverErrors > 0 ? 1 : 0);
