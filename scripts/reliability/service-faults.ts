/**
 * The third-party fault zoo in real time: devices behind services that hang, answer slowly or
 * late, reset, answer garbage, 64 MB, a byte now and then, redirect, fail, or refuse; D4
 * controls to all of them at once, in rounds. Each answer must come within 5 s (clients give up
 * then, COMPAT.md) with the code of its fault.
 */
import { rmSync } from 'node:fs';
import { FAULTS, REFUSED_CODE, startFaultZoo } from '../../test/helpers/fault-zoo.ts';
import { tempDir } from '../../test/helpers/foundation.ts';
import { deadAddress, endpoint } from '../../test/helpers/thirdparty.ts';
import { type GatewayProcess, launchGateway, linkToken } from './gateway-process.ts';

export interface FaultRow {
  fault: string;
  what: string;
  code: number;
  /** Codes received, by count. */
  got: Record<string, number>;
  maxMs: number;
}

export interface FaultFigures {
  rows: FaultRow[];
  /** Answers with another code than the fault's, or later than 5 s. */
  wrong: number;
  answers: number;
}

/** Runs `rounds` rounds of one control per fault, all faults at once. */
export async function runServiceFaults(opts: { rounds: number }): Promise<FaultFigures> {
  const zoo = await startFaultZoo();
  const dataDir = tempDir('opencube-zoo-');
  let g: GatewayProcess | undefined;
  try {
    g = await launchGateway({ dataDir });
    const gw = g;
    const token = await linkToken(gw, 'zoo');
    const faults: [string, string, number][] = Object.entries(FAULTS).map(([name, f]) => [name, f.what, f.code]);
    faults.push(['refused', 'refuses the connection', REFUSED_CODE]);
    const refused = await deadAddress();
    const res = await fetch(`${gw.url}/open-api/v2/rest/thirdparty/event`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        event: {
          header: { name: 'DiscoveryRequest', message_id: crypto.randomUUID(), version: '1' },
          payload: {
            endpoints: faults.map(([name]) => endpoint(name, name === 'refused' ? refused : zoo.address(name))),
          },
        },
      }),
    });
    const serials = new Map<string, string>(
      ((await res.json()) as any).payload.endpoints.map((e: any) => [e.third_serial_number, e.serial_number]),
    );
    const rows = new Map<string, FaultRow>(
      faults.map(([fault, what, code]) => [fault, { fault, what, code, got: {}, maxMs: 0 }]),
    );
    let wrong = 0;
    let answers = 0;
    for (let round = 0; round < opts.rounds; round++) {
      await Promise.all(
        faults.map(async ([fault, , code]) => {
          const row = rows.get(fault) as FaultRow;
          const t = performance.now();
          let got: string;
          try {
            const a = await fetch(`${gw.url}/open-api/v2/rest/devices/${serials.get(fault)}`, {
              method: 'PUT',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
              body: JSON.stringify({ state: { power: { powerState: round % 2 ? 'on' : 'off' } } }),
              signal: AbortSignal.timeout(10_000),
            });
            got = String(((await a.json()) as any).error);
          } catch (err) {
            got = (err as Error).name;
          }
          const ms = performance.now() - t;
          answers++;
          row.got[got] = (row.got[got] ?? 0) + 1;
          row.maxMs = Math.max(row.maxMs, ms);
          if (got !== String(code) || ms > 5000) wrong++;
        }),
      );
    }
    return { rows: [...rows.values()], wrong, answers };
  } finally {
    await g?.stop().catch(() => {});
    await zoo.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
