/**
 * Issue 24, findings 1 and 2, measured against a real `opencube start`: the console's login
 * flooded in parallel from one address and then from many (127.0.0.x: all of 127/8 is loopback),
 * for a number of seconds. Figures: passwords checked per second (a 401; every other answer is a
 * refusal that checked nothing), the gateway's CPU and the growth of its memory meanwhile, and
 * whether the real user, whose browser had logged in before, still logs in during the flood.
 * Also the DNS-rebinding probe: console requests under a Host that is not the gateway's.
 * Before the fix: 17-27 guesses per second from one address, the right one among them logged in,
 * 130-184 % CPU and +125 MB; a foreign Host answered as a wrong password.
 */
import { readFileSync, rmSync } from 'node:fs';
import { type IncomingHttpHeaders, request } from 'node:http';
import { join } from 'node:path';
import { controlRequest } from '../../src/lib/control-client.ts';
import { tempDir } from '../../test/helpers/foundation.ts';
import { type GatewayProcess, launchGateway } from './gateway-process.ts';

export interface LoginFloodFigures {
  seconds: number;
  /** Login requests sent in all, and passwords checked (answered 401) in all. */
  sent: number;
  checked: number;
  /** The most passwords checked for one address, and the source addresses used. */
  addresses: number;
  /** Passwords checked per second over the flood. */
  checkedPerSecond: number;
  /** CPU of the gateway process over the flood (100 = one core), and its memory before and at the end. */
  cpuPercent: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  /** The right password sent inside the flood got in (it must not). */
  floodGotIn: boolean;
  /** Eighty logins sent at once from one address, the right password last: how many were checked, and whether it got in. */
  burstChecked: number;
  burstGotIn: boolean;
  /** The user's browser (its device cookie) logged in during the flood. */
  userLoggedIn: boolean;
  /** Console requests with a foreign Host: refused with 403, of sent. */
  foreignHostRefused: number;
  foreignHostSent: number;
}

const PASSWORD = 'the real owner password';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
}

/** One console request from `from`, as a page on `host` sends it (its own Origin). */
function consoleRequest(
  port: number,
  path: string,
  body: unknown,
  opts: { from?: string; host?: string; cookie?: string } = {},
): Promise<Answer> {
  const host = opts.host ?? `127.0.0.1:${port}`;
  const text = JSON.stringify(body);
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/console/api${path}`,
        localAddress: opts.from ?? '127.0.0.1',
        agent: false,
        headers: {
          host,
          origin: `http://${host}`,
          'content-type': 'application/json',
          ...(opts.cookie ? { cookie: opts.cookie } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('error', () => resolve({ status: 0, headers: {} }));
    req.setTimeout(30_000, () => req.destroy());
    req.end(text);
  });
}

/** CPU seconds (user and system) the process has used. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // Fields 14 and 15 of stat (utime, stime), in clock ticks of 1/100 s on Linux.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Floods the login for `seconds` from `addresses` source addresses, `parallel` requests each at a time. */
async function flood(g: GatewayProcess, addresses: string[], parallel: number, seconds: number) {
  const until = Date.now() + seconds * 1000;
  let sent = 0;
  let checked = 0;
  let gotIn = false;
  const lane = async (from: string, lane: number) => {
    for (let i = 0; Date.now() < until; i++) {
      // Now and then the right password, as a guesser who found it would send it.
      const password = i % 50 === 49 ? PASSWORD : `guess ${from} ${lane} ${i}`;
      const r = await consoleRequest(g.port, '/auth/login', { password }, { from });
      sent++;
      if (r.status === 401) checked++;
      if (r.status === 200) gotIn = true;
    }
  };
  await Promise.all(addresses.flatMap((from) => Array.from({ length: parallel }, (_, l) => lane(from, l))));
  return { sent, checked, gotIn };
}

export async function runLoginFlood(opts: { seconds: number; addresses: number }): Promise<LoginFloodFigures> {
  const dataDir = tempDir('opencube-login-flood-');
  const g = await launchGateway({ dataDir });
  try {
    await controlRequest(join(dataDir, 'opencube.sock'), 'POST', '/console/password', { password: PASSWORD });
    // The owner's browser logged in once, before the attack: it keeps its device cookie.
    const first = await consoleRequest(g.port, '/auth/login', { password: PASSWORD }, { from: '127.0.0.2' });
    const set = first.headers['set-cookie'] ?? [];
    const device = set.map((c) => c.split(';')[0]).find((c) => c?.startsWith('opencube_device=')) ?? '';

    // Eighty at once from one address, the right password among them.
    const burst = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        consoleRequest(g.port, '/auth/login', { password: i === 79 ? PASSWORD : `burst ${i}` }, { from: '127.0.0.50' }),
      ),
    );

    const pid = g.gatewayPid();
    const rssBefore = g.rss();
    const cpuBefore = cpuSeconds(pid);
    const started = Date.now();
    const addresses = Array.from(
      { length: opts.addresses },
      (_, i) => `127.0.${1 + Math.floor(i / 250)}.${(i % 250) + 3}`,
    );
    const attack = flood(g, addresses, 4, opts.seconds);
    // Half way through, the owner logs in from the same address as one of the attackers.
    await new Promise((r) => setTimeout(r, (opts.seconds * 1000) / 2));
    const user = await consoleRequest(
      g.port,
      '/auth/login',
      { password: PASSWORD },
      { from: '127.0.1.3', cookie: device },
    );
    const f = await attack;
    const elapsed = (Date.now() - started) / 1000;
    const cpu = cpuSeconds(pid) - cpuBefore;
    const rssAfter = g.rss();

    const hosts = ['rebind.example', 'attacker.example:8081', 'gateway.evil.example'];
    let refused = 0;
    for (const host of hosts) {
      const r = await consoleRequest(g.port, '/auth/login', { password: PASSWORD }, { host });
      if (r.status === 403) refused++;
    }
    return {
      seconds: Math.round(elapsed),
      sent: f.sent,
      checked: f.checked,
      addresses: addresses.length,
      checkedPerSecond: Math.round((f.checked / elapsed) * 100) / 100,
      cpuPercent: Math.round((100 * cpu) / elapsed),
      rssBeforeMb: Math.round(rssBefore / 1048576),
      rssAfterMb: Math.round(rssAfter / 1048576),
      floodGotIn: f.gotIn,
      burstChecked: burst.filter((r) => r.status === 401 || r.status === 200).length,
      burstGotIn: burst.some((r) => r.status === 200),
      userLoggedIn: user.status === 200,
      foreignHostRefused: refused,
      foreignHostSent: hosts.length,
    };
  } finally {
    await g.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}
