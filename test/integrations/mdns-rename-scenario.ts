/**
 * Run by mdns-rename.test.ts inside a private network namespace (only loopback, with multicast):
 * a gateway advertising itself over mDNS is renamed in the console, and a client browsing for
 * `_ewelink._tcp` finds it under the new name and host. Prints one JSON line with what it saw;
 * always stops the gateway.
 */
import { Bonjour } from 'bonjour-service';
import { consoleClient } from '../console/client.ts';
import { startGateway } from '../helpers/foundation.ts';

const PASSWORD = 'correct horse battery';

/** What one browse for `_ewelink._tcp` finds (a new browser each time: no cache of the last one). */
async function browse(): Promise<{ name: string; host: string; port: number }[]> {
  const bonjour = new Bonjour();
  const found: { name: string; host: string; port: number }[] = [];
  const browser = bonjour.find({ type: 'ewelink' }, (s) => found.push({ name: s.name, host: s.host, port: s.port }));
  await new Promise((r) => setTimeout(r, 1500));
  browser.stop();
  bonjour.destroy();
  return found;
}

/** Browses until `pred` holds for what is found (at most `tries` browses). */
async function until(pred: (found: { name: string; host: string }[]) => boolean, tries = 10) {
  let found: { name: string; host: string; port: number }[] = [];
  for (let i = 0; i < tries; i++) {
    found = await browse();
    if (pred(found)) return found;
  }
  return found;
}

const seen: Record<string, unknown> = {};
const g = await startGateway({ overrides: { mdns: true, name: 'Hall gateway' } });
try {
  seen.port = Number(new URL(g.url).port);
  seen.before = await until((f) => f.some((s) => s.name === 'Hall gateway'));
  await g.gateway.setConsolePassword(PASSWORD);
  const c = consoleClient(g.url);
  await c.login(PASSWORD);
  seen.rename = (await c.call('PUT', '/settings/name', { value: 'Attic gateway' })).status;
  seen.after = await until((f) => f.some((s) => s.name === 'Attic gateway'));
} catch (err) {
  seen.error = (err as Error).stack;
} finally {
  await g.stop();
}
console.log(JSON.stringify(seen));
