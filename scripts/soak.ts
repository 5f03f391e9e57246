/**
 * `npm run soak [-- --quick] [--seed N]`: the reliability runs of issue 16 against real
 * `opencube start` processes, in a private network namespace, with their figures:
 * kill -9 durability, the stream soak with random cuts, the third-party fault zoo in real time,
 * the attacks (memory, idle connections, timeouts, head-of-line), the default `npm start` left
 * idle for 15 minutes (issue 23), and the attacks of issue 24 (scripts/reliability/security-rows.ts).
 * `--quick` is the short run that `npm test` makes (test/reliability/soak.test.ts). Exits 1 when
 * any of them fails.
 */
import { runAttacks } from './reliability/attacks.ts';
import { runDefaultIdle } from './reliability/default-idle.ts';
import { runDurability } from './reliability/durability.ts';
import { exitOnSignals } from './reliability/gateway-process.ts';
import { inPrivateNetwork } from './reliability/netns.ts';
import { runSecurityRows } from './reliability/security-rows.ts';
import { runServiceFaults } from './reliability/service-faults.ts';
import { runStreamSoak } from './reliability/stream-soak.ts';

inPrivateNetwork();
exitOnSignals();
const quick = process.argv.includes('--quick');
const seedAt = process.argv.indexOf('--seed');
const seed = seedAt === -1 ? Date.now() % 1_000_000 : Number(process.argv[seedAt + 1]);
const out = (line: string) => process.stdout.write(`${line}\n`);
const failures: string[] = [];
const check = (ok: boolean, what: string) => {
  if (!ok) failures.push(what);
};
out(`soak${quick ? ' (quick)' : ''}, seed ${seed}`);

const started = performance.now();
let t = performance.now();
const lap = () => {
  const s = ((performance.now() - t) / 1000).toFixed(1);
  t = performance.now();
  return `${s} s`;
};

const d = await runDurability({
  cycles: quick ? 2 : 10,
  seed,
  windowMs: quick ? 800 : 6000,
  log: (l) => out(`  ${l}`),
});
out(
  `kill -9: ${d.acknowledged} acknowledged writes across ${d.cycles} SIGKILLs (${d.killsOfGateway} of the gateway, ${d.killsOfTree} of the whole tree): ${d.lost.length} lost, integrity_check ${d.corrupt.length === 0 ? 'ok every time' : d.corrupt.join('; ')} (${lap()})`,
);
for (const l of d.lost.slice(0, 10)) out(`  lost: ${l}`);
check(d.lost.length === 0 && d.corrupt.length === 0 && d.cycles > 0, 'kill -9 durability');

const s = await runStreamSoak({ cuts: quick ? 120 : 1152, seed, log: (l) => out(`  ${l}`) });
out(
  `stream soak: ${s.cuts} random cuts and resumes over ${s.events} events: ${s.lost} lost, ${s.duplicated} duplicated, ${s.outOfOrder} out of order, ${s.gaps} gaps (${lap()})`,
);
check(s.lost + s.duplicated + s.outOfOrder + s.gaps === 0 && s.events > 0, 'stream soak');

const f = await runServiceFaults({ rounds: quick ? 1 : 5 });
out(`fault zoo: ${f.answers} controls, ${f.wrong} with a wrong code or later than 5 s (${lap()})`);
for (const row of f.rows)
  out(
    `  ${row.fault.padEnd(21)} ${row.what.padEnd(56)} want ${String(row.code).padEnd(6)} got ${Object.entries(row.got)
      .map(([c, n]) => `${c} x${n}`)
      .join(', ')}, slowest ${Math.round(row.maxMs)} ms`,
  );
check(f.wrong === 0, 'fault zoo');

const a = await runAttacks({ idleConnections: quick ? 2000 : 20_000, largeEvents: quick ? 400 : 2000 });
const m = a.memory;
out(
  `memory (${m.heapMb} MB heap): ${m.hugeTagsRefused}/50 reports with 4 MB of tags refused; ${m.largeEventsAccepted} events of 60 KB (${m.eventMb} MB) accepted; RSS ${m.rssBeforeMb} -> ${m.rssAfterMb} MB; a stream client that never reads ${m.slowClientCut ? 'was cut off' : 'was not cut off'}; gateway ${m.alive ? 'alive' : 'DEAD'}`,
);
check(m.alive && m.hugeTagsRefused === 50 && m.slowClientCut, 'memory');
out(
  `idle connections: ${a.idle.attempted} opened without a token; ${a.idle.answered}/${a.idle.asked} authorised requests answered meanwhile`,
);
check(a.idle.answered === a.idle.asked, 'idle connections');
out(
  `timeouts (headers 1 s, request 2 s): a silent connection closed after ${a.timeouts.silentClosedMs} ms, a half-sent body after ${a.timeouts.halfBodyClosedMs} ms, ${a.timeouts.answered408}/2 answered 408; an event stream outlived both: ${a.timeouts.streamOutlived}`,
);
check(a.timeouts.answered408 === 2 && a.timeouts.streamOutlived, 'timeouts');
out(
  `head-of-line: with ${a.headOfLine.hung} directives hung on one service address, ${a.headOfLine.controls} controls of a healthy device behind it took ${a.headOfLine.medianMs} ms (median), ${a.headOfLine.maxMs} ms at most (${lap()})`,
);
check(a.headOfLine.maxMs < 1000, 'head-of-line');

// Quick: half a minute with the network's keep-alive and broker heartbeat at 1 s, as many of their
// periods as the full run's 15 minutes at the defaults.
const idle = await runDefaultIdle(
  quick
    ? { idleMs: 30_000, keepaliveSeconds: 1, log: (l) => out(`  ${l}`) }
    : { idleMs: 900_000, log: (l) => out(`  ${l}`) },
);
out(
  `default npm start idle ${idle.idleSeconds} s${quick ? ' (keep-alive 1 s)' : ''}: ${idle.online}/${idle.devices} devices online, ${idle.ready ? 'ready' : 'NOT ready'}, a light ${idle.lightSwitched ? 'switched on and off' : 'did NOT switch'}, ${idle.offlineLines.length} lines of the log saying something went offline (${lap()})`,
);
for (const l of idle.offlineLines.slice(0, 5)) out(`  log: ${l}`);
check(
  idle.devices > 0 &&
    idle.online === idle.devices &&
    idle.ready &&
    idle.lightSwitched &&
    idle.offlineLines.length === 0,
  'default idle',
);

// Issue 24: the console's login, fetches, stalls, Home Assistant and backups.
await runSecurityRows({ quick, out, check, lap });

out(
  `${failures.length === 0 ? 'all held' : `FAILED: ${failures.join(', ')}`} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
);
process.exit(failures.length === 0 ? 0 : 1);
