/**
 * Durability across kill -9: clients write as fast as the gateway acknowledges (devices synced
 * by T1, then renamed by D4), the gateway is SIGKILLed at a random moment (the gateway process
 * alone, or the supervisor and the gateway together), restarted on the same folder and port,
 * and every write that was acknowledged must be there; the store passes PRAGMA integrity_check.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { tempDir } from '../../test/helpers/foundation.ts';
import { endpoint } from '../../test/helpers/thirdparty.ts';
import { type GatewayProcess, launchGateway, linkToken } from './gateway-process.ts';
import { Random } from './random.ts';

export interface DurabilityOptions {
  cycles: number;
  seed: number;
  /** Concurrent writers. */
  writers?: number;
  /** How long the writers run before each kill, at most (a random time from a fifth of it). */
  windowMs?: number;
  log?: (line: string) => void;
}

export interface DurabilityFigures {
  cycles: number;
  acknowledged: number;
  lost: string[];
  /** Results of PRAGMA integrity_check that were not `ok`. */
  corrupt: string[];
  killsOfGateway: number;
  killsOfTree: number;
}

async function post(url: string, token: string, method: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${url}/open-api/v2/rest/${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return res.json();
}

/** Runs the cycles; the data folder is removed at the end. */
export async function runDurability(opts: DurabilityOptions): Promise<DurabilityFigures> {
  const log = opts.log ?? (() => {});
  const r = new Random(opts.seed);
  const dataDir = tempDir('opencube-kill9-');
  const devices = new Map<string, string>(); // third serial -> serial, acknowledged
  const names = new Map<string, string>(); // serial -> acknowledged name
  const figures: DurabilityFigures = {
    cycles: 0,
    acknowledged: 0,
    lost: [],
    corrupt: [],
    killsOfGateway: 0,
    killsOfTree: 0,
  };
  let g: GatewayProcess | undefined;
  let port: number | undefined;
  let token = '';
  let n = 0;
  try {
    for (let cycle = 0; cycle < opts.cycles; cycle++) {
      g = await launchGateway({ dataDir, port });
      port = g.port;
      const gw = g;
      if (cycle === 0) token = await linkToken(gw, 'durability');
      await verify(gw, token, devices, names, figures);
      let writing = true;
      const writer = async () => {
        while (writing) {
          const i = n++;
          try {
            if (i % 3 !== 2 || devices.size === 0) {
              const third = `w-${i}`;
              const body = {
                event: {
                  header: { name: 'DiscoveryRequest', message_id: crypto.randomUUID(), version: '1' },
                  payload: { endpoints: [endpoint(third, 'http://127.0.0.1:9/x')] },
                },
              };
              const a = await post(gw.url, token, 'POST', 'thirdparty/event', body);
              if (a?.header?.name === 'Response') {
                devices.set(third, a.payload.endpoints[0].serial_number);
                figures.acknowledged++;
              }
            } else {
              // A rename of a device no other writer renames: its acknowledged name is final.
              const serial = [...devices.values()][i % devices.size] as string;
              if (names.has(serial)) continue;
              names.set(serial, '');
              const name = `renamed-${i}`;
              const a = await post(gw.url, token, 'PUT', `devices/${serial}`, { name });
              if (a?.error === 0) {
                names.set(serial, name);
                figures.acknowledged++;
              } else names.delete(serial);
            }
          } catch {
            // The gateway died under the request: not acknowledged.
          }
        }
      };
      const writers = Array.from({ length: opts.writers ?? 8 }, writer);
      const window = opts.windowMs ?? 1500;
      await new Promise((done) => setTimeout(done, r.int(Math.floor(window / 5), window)));
      const tree = cycle % 2 === 1;
      if (tree) {
        gw.killTree();
        figures.killsOfTree++;
      } else {
        const pid = gw.gatewayPid();
        gw.killGateway();
        figures.killsOfGateway++;
        while (isAlive(pid)) await new Promise((done) => setTimeout(done, 10));
      }
      // The supervisor goes too (whether or not it would restart the gateway): the next cycle
      // starts the tree again on the same folder.
      gw.killTree();
      await gw.exited.catch(() => {});
      writing = false;
      await Promise.all(writers);
      // Renames in flight at the kill were not acknowledged: forget them.
      for (const [serial, name] of names) if (name === '') names.delete(serial);
      const check = integrity(join(dataDir, 'gateway.db'));
      if (check !== 'ok') figures.corrupt.push(`cycle ${cycle}: ${check}`);
      figures.cycles++;
      log(
        `cycle ${cycle + 1}: ${tree ? 'tree' : 'gateway'} killed, ${figures.acknowledged} writes acknowledged so far`,
      );
    }
    g = await launchGateway({ dataDir, port });
    await verify(g, token, devices, names, figures);
    return figures;
  } finally {
    await g?.stop().catch(() => {});
    g?.killTree();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every acknowledged device and name is served by D3. */
async function verify(
  g: GatewayProcess,
  token: string,
  devices: Map<string, string>,
  names: Map<string, string>,
  figures: DurabilityFigures,
): Promise<void> {
  const res = await fetch(`${g.url}/open-api/v2/rest/devices`, { headers: { authorization: `Bearer ${token}` } });
  const list = ((await res.json()) as any).data.device_list as { serial_number: string; name: string }[];
  const bySerial = new Map(list.map((d) => [d.serial_number, d]));
  for (const [third, serial] of devices) if (!bySerial.has(serial)) figures.lost.push(`device ${third} (${serial})`);
  for (const [serial, name] of names)
    if (bySerial.get(serial)?.name !== name) figures.lost.push(`name ${name} of ${serial}`);
}

/** PRAGMA integrity_check of the store, with no gateway running. */
function integrity(file: string): string {
  const db = new Database(file);
  try {
    const rows = db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[];
    return rows.map((x) => x.integrity_check).join('; ');
  } finally {
    db.close();
  }
}
