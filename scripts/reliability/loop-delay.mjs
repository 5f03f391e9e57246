// Preloaded into a gateway process by the stall run (scripts/reliability/stalls.ts, with
// `--import`): measures its event loop with perf_hooks' monitorEventLoopDelay, read and reset at
// every tick of 10 ms, each delay kept with the time of the tick before it (when it began: a
// stall is then told apart from the work that follows it). On SIGUSR2 it writes what it kept (the
// last delays over 2 ms: [time ms, delay ms] pairs) to the file named by OPENCUBE_LOOP_DELAY_FILE.
// Plain JavaScript: it loads before anything else, tsx included.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const file = process.env.OPENCUBE_LOOP_DELAY_FILE;
if (isMainThread && file) {
  const h = monitorEventLoopDelay({ resolution: 2 });
  h.enable();
  const kept = [];
  let tick = Date.now();
  setInterval(() => {
    const delay = h.max / 1e6;
    h.reset();
    if (delay > 2) kept.push([tick, delay]);
    if (kept.length > 5000) kept.shift();
    tick = Date.now();
  }, 10).unref();
  process.on('SIGUSR2', () => writeFileSync(file, JSON.stringify(kept)));
}
