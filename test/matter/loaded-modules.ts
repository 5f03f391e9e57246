/**
 * Run by lazy.test.ts in a child process: records every module the process resolves, then starts
 * and stops a gateway (zigbee off) with the settings of argv[2] (JSON overrides), or only imports
 * argv[3] when given; prints the resolved URLs under node_modules/@matter as one JSON line.
 */
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
const urls: string[] = [];
port1.on('message', (url: string) => urls.push(url));
port1.unref();
register(new URL('./record-modules.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });

const overrides = JSON.parse(process.argv[2] ?? '{}');
const only = process.argv[3];
if (only) await import(only);
else {
  const { startGateway } = await import('../helpers/foundation.ts');
  const g = await startGateway({ overrides });
  await g.stop();
}
// Messages from the hooks thread arrive asynchronously: let them in before reading.
await new Promise((r) => setTimeout(r, 200));
console.log(JSON.stringify({ matter: urls.filter((u) => u.includes('/node_modules/@matter/')), total: urls.length }));
