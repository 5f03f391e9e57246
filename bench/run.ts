/**
 * `npm run bench`: runs every bench/*.bench.ts in its own process, one after another (they
 * would disturb each other's figures if run at once), and fails if one of them fails.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`== ${file}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', join(dir, file)], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.log(`!! ${file} exited with ${r.status ?? r.signal}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
