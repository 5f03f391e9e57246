/**
 * The mapping over EVERY device definition of zigbee-herdsman-converters whose exposes are
 * static: each mapped device passes the catalog's validators, and the shares of definitions
 * mapping to at least one capability and of expose features mapped stay at or above the
 * figures documented in docs/zigbee.md (raise them there as the table grows).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { validateCapabilities } from '../../src/catalog/index.ts';
import type { Expose } from '../../src/zigbee/exposes.ts';
import { mapExposes } from '../../src/zigbee/mapping.ts';

const require = createRequire(import.meta.url);

/** The two floors, read from docs/zigbee.md ("definitions mapped: at least N %", "features mapped: at least N %"). */
function documentedFloors(): { definitions: number; features: number } {
  const doc = readFileSync(join(import.meta.dirname, '../../docs/zigbee.md'), 'utf8');
  const d = /definitions mapped: at least ([\d.]+) ?%/.exec(doc);
  const f = /features mapped: at least ([\d.]+) ?%/.exec(doc);
  assert.ok(d && f, 'docs/zigbee.md documents both coverage floors');
  return { definitions: Number(d[1]), features: Number(f[1]) };
}

test('the mapping covers the definitions of zigbee-herdsman-converters', () => {
  const zhc = require('zigbee-herdsman-converters');
  const dir = join(dirname(require.resolve('zigbee-herdsman-converters')), 'devices');
  let definitions = 0;
  let mapped = 0;
  let features = 0;
  let featuresMapped = 0;
  const invalid: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
    const mod = require(join(dir, file));
    if (!Array.isArray(mod.definitions)) continue;
    for (const def of mod.definitions) {
      const prepared = zhc.prepareDefinition(def);
      if (!Array.isArray(prepared.exposes)) continue; // exposes computed per device at run time
      definitions++;
      const exposes = JSON.parse(JSON.stringify(prepared.exposes)) as Expose[];
      const m = mapExposes(exposes, { description: prepared.description });
      features += m.featureCount;
      featuresMapped += m.mappedCount;
      if (m.capabilities.length === 0) continue;
      mapped++;
      const valid = validateCapabilities(m.capabilities);
      if (!valid.ok) invalid.push(`${prepared.vendor} ${prepared.model}: ${valid.errors.join('; ')}`);
    }
  }
  const defShare = (100 * mapped) / definitions;
  const featShare = (100 * featuresMapped) / features;
  console.log(
    `zigbee coverage: ${mapped}/${definitions} definitions map to at least one capability (${defShare.toFixed(1)} %); ` +
      `${featuresMapped}/${features} expose features mapped (${featShare.toFixed(1)} %)`,
  );
  assert.deepEqual(invalid.slice(0, 10), []);
  assert.ok(definitions > 3000, `only ${definitions} static definitions found`);
  const floors = documentedFloors();
  assert.ok(
    defShare >= floors.definitions,
    `definitions mapped ${defShare.toFixed(1)} % < documented ${floors.definitions} %`,
  );
  assert.ok(
    featShare >= floors.features,
    `features mapped ${featShare.toFixed(1)} % < documented ${floors.features} %`,
  );
});
