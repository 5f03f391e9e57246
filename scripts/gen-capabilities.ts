/** Writes docs/capabilities.md from the catalog (`node --import tsx scripts/gen-capabilities.ts`). */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderCapabilitiesDoc } from '../src/catalog/index.ts';

const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'capabilities.md');
writeFileSync(target, renderCapabilitiesDoc());
console.log(`wrote ${target}`);
