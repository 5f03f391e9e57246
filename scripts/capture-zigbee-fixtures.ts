/**
 * Captures the device definitions (exposes) of widely used Zigbee models from
 * zigbee-herdsman-converters (a devDependency) into src/drivers/zigbee-sim/fixtures/*.json, so
 * the simulated network runs on real definitions without that package at run time.
 *
 *   node --import tsx scripts/capture-zigbee-fixtures.ts
 *
 * The order of MODELS is the order of the simulator's default set: the first 16 cover every
 * mapped family (plugs, multi-gang switches, dimmable, white-spectrum and colour lights,
 * curtains, thermostats, contact, motion, leak, smoke, gas, temperature/humidity, air quality,
 * buttons, fans), so the default `--sim-devices 16` shows them all.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Expose, ModelFixture } from '../src/zigbee/exposes.ts';

const MODELS: [family: string, model: string][] = [
  ['plug', 'ZNCZ02LM'],
  ['multi-gang switch', 'QBKG24LM'],
  ['dimmable light', 'LED1836G9'],
  ['colour light', '9290012573A'],
  ['curtain', 'E1757'],
  ['thermostat', 'SPZB0001'],
  ['contact', 'MCCGQ11LM'],
  ['motion', 'RTCGQ11LM'],
  ['water leak', 'SJCGQ11LM'],
  ['smoke', 'JTYJ-GD-01LM/BW'],
  ['temperature/humidity', 'WSDCGQ11LM'],
  ['button', 'WXKG01LM'],
  ['air quality', 'E2112'],
  ['gas', 'JTQJ-BF-01LM/BW'],
  ['fan', '99432'],
  ['white-spectrum light', 'LED2201G8'],
  ['plug', 'SP 120'],
  ['multi-gang switch', 'TS0003'],
  ['curtain', 'ZNCLDJ12LM'],
  ['thermostat', '014G2461'],
  ['contact', 'SNZB-04'],
  ['motion', 'SNZB-03'],
  ['temperature/humidity', 'SNZB-02'],
  ['button', 'SNZB-01'],
  ['button', 'WXKG02LM_rev1'],
  ['air quality', 'EFEKTA_CO2_Smart_Monitor'],
  ['plug', 'SP 224'],
  ['colour light', '9290022166'],
  ['motion', 'ZG-204ZL'],
  ['plug', '4257050-RZHAC'],
  // The models of the fake coordinator (test/z2m/fake/devices.ts), so the contract test runs the same devices on both backends.
  ['multi-gang switch', '2CH-ZG-BOX-RELAY'],
  ['remote', 'E1524/E1810'],
  ['thermostat', 'Zen-01-W'],
];

const require = createRequire(import.meta.url);
const zhc = require('zigbee-herdsman-converters');
const devicesDir = join(dirname(require.resolve('zigbee-herdsman-converters')), 'devices');
const outDir = join(dirname(fileURLToPath(import.meta.url)), '../src/drivers/zigbee-sim/fixtures');

// biome-ignore lint/suspicious/noExplicitAny: the package's definitions are untyped here
const byModel = new Map<string, any>();
for (const file of readdirSync(devicesDir).filter((f) => f.endsWith('.js'))) {
  const { definitions } = require(join(devicesDir, file));
  if (!Array.isArray(definitions)) continue;
  for (const def of definitions) if (!byModel.has(def.model)) byModel.set(def.model, def);
}

mkdirSync(outDir, { recursive: true });
for (const f of readdirSync(outDir)) if (f.endsWith('.json')) rmSync(join(outDir, f));
let missing = 0;
MODELS.forEach(([family, model], order) => {
  const def = byModel.get(model);
  if (!def) {
    console.error(`missing model ${model}`);
    missing++;
    return;
  }
  const prepared = zhc.prepareDefinition(def);
  if (!Array.isArray(prepared.exposes)) {
    console.error(`model ${model} has dynamic exposes; pick another`);
    missing++;
    return;
  }
  const exposes = JSON.parse(JSON.stringify(prepared.exposes)) as Expose[];
  const battery = exposes.some((e) => e.name === 'battery');
  const fixture: ModelFixture = {
    order,
    family,
    model: prepared.model,
    vendor: prepared.vendor,
    description: prepared.description,
    zigbee_model: def.zigbeeModel?.[0] ?? prepared.model,
    power_source: battery ? 'Battery' : 'Mains (single phase)',
    type: battery ? 'EndDevice' : 'Router',
    supports_ota: Boolean(prepared.ota),
    exposes,
  };
  const file = `${String(order).padStart(2, '0')}-${model.replace(/[^A-Za-z0-9_-]+/g, '_')}.json`;
  writeFileSync(join(outDir, file), `${JSON.stringify(fixture, null, 1)}\n`);
});
console.log(`captured ${MODELS.length - missing} models into ${outDir}`);
process.exit(missing > 0 ? 1 : 0);
