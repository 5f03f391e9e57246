/**
 * Run by lazy-load.test.ts in a fresh process: loads the drivers of one `zigbee.mode` (argv[2])
 * and prints which drivers it got and which modules were loaded. The modules are ES modules as
 * well as CommonJS ones (aedes, our own files), which `require.cache` does not list: a resolve
 * hook, registered before anything of the gateway is imported, reports every module resolved.
 */
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const HOOKS = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  port.postMessage(r.url);
  return r;
}`;
// Imported last: its URL coming back says every earlier resolution has come back (one port keeps order).
const LAST = 'data:text/javascript,export default 0';

const { port1, port2 } = new MessageChannel();
const resolved: string[] = [];
const done = new Promise<void>((end) =>
  port1.on('message', (url: string) => {
    resolved.push(url);
    if (url === LAST) end();
  }),
);
register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, {
  parentURL: import.meta.url,
  data: { port: port2 },
  transferList: [port2],
});

const { loadDrivers } = await import('../../src/drivers/load.ts');
const { loadSettings } = await import('../../src/settings/index.ts');
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const settings = loadSettings({ overrides: { zigbee: { mode: process.argv[2] }, data_dir: process.argv[3] } });
const drivers = await loadDrivers(settings, quiet);
await import(LAST);
await done;
port1.close();
const loaded = (part: string) => resolved.some((url) => url.includes(part));
console.log(
  JSON.stringify({
    drivers: drivers.map((d) => d.id),
    aedes: loaded('/node_modules/aedes/'),
    mqtt: loaded('/node_modules/mqtt/'),
    simulator: loaded('/src/drivers/zigbee-sim/'),
    zigbee2mqtt: loaded('/src/drivers/zigbee2mqtt/'),
  }),
);
