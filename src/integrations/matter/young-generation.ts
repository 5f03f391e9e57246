/**
 * Keeps V8's young generation at its smallest while matter.js loads and the bridge builds its
 * endpoints. Both allocate in a burst (matter.js's 1,460 modules build its whole data model as
 * they load); V8 answers a burst by doubling the young generation, up to 32 MB, and keeps it until
 * its memory reducer finds the process idle, which on a gateway whose devices report every few
 * seconds may take a minute or more (docs/benchmarks.md, "The Matter bridge's memory"). With the
 * growth factor at 1 for the burst, the survivors go to the old generation as they would anyway,
 * and no empty young generation is kept. Afterwards V8's default is back for the rest of the
 * gateway. A growth factor the user gave node on its command line is left alone (node refuses it
 * in NODE_OPTIONS).
 */
import { setFlagsFromString } from 'node:v8';

const FLAG = '--semi-space-growth-factor';
/** V8's default (node --v8-options). */
const DEFAULT_GROWTH = 2;

/** Whether node was started with the flag (then it is the user's, and not touched). */
export function growthGivenByUser(execArgv: readonly string[]): boolean {
  return execArgv.some((a) => a.split('=')[0]?.replaceAll('_', '-') === FLAG);
}

/** Runs `fn` with the young generation kept from growing; V8's default again once it settles. */
export async function withSmallYoungGeneration<T>(fn: () => Promise<T>): Promise<T> {
  if (growthGivenByUser(process.execArgv)) return fn();
  setFlagsFromString(`${FLAG}=1`);
  try {
    return await fn();
  } finally {
    setFlagsFromString(`${FLAG}=${DEFAULT_GROWTH}`);
  }
}
