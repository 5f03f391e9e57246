/**
 * Run by lazy-load.test.ts in a fresh process: loads the drivers of one `zigbee.mode` (argv[2])
 * and prints which of them it got and whether zigbee-herdsman and its converters were loaded.
 */
import { createRequire } from 'node:module';
import { loadDrivers } from '../../src/drivers/load.ts';
import { loadSettings } from '../../src/settings/index.ts';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const settings = loadSettings({ overrides: { zigbee: { mode: process.argv[2] }, data_dir: process.argv[3] } });
const drivers = await loadDrivers(settings, quiet);
const paths = Object.keys(createRequire(import.meta.url).cache);
console.log(
  JSON.stringify({
    drivers: drivers.map((d) => d.id),
    herdsman: paths.some((p) => p.includes('/node_modules/zigbee-herdsman/')),
    converters: paths.some((p) => p.includes('/node_modules/zigbee-herdsman-converters/')),
  }),
);
