/**
 * Run by young-generation.test.ts in a child process: loads matter.js as the bridge does, inside
 * withSmallYoungGeneration (argv[2] `small`) or not (`plain`), then makes a burst of objects that
 * live through a few scavenges; prints the young generation's size after each, in bytes, as JSON.
 */
import { getHeapSpaceStatistics } from 'node:v8';
import { loadMatterJs } from '../../src/integrations/matter/load.ts';
import { withSmallYoungGeneration } from '../../src/integrations/matter/young-generation.ts';

const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.physical_space_size ?? 0;

if (process.argv[2] === 'small') await withSmallYoungGeneration(loadMatterJs);
else await loadMatterJs();
const afterLoad = young();

// A burst like the bridge's: objects kept a while, then dropped.
let kept: object[][] = [];
for (let round = 0; round < 40; round++) {
  kept.push(Array.from({ length: 20_000 }, (_, i) => ({ round, i, text: `v${i}` })));
  if (kept.length > 8) kept = kept.slice(1);
}
kept = [];
console.log(JSON.stringify({ afterLoad, afterBurst: young() }));
