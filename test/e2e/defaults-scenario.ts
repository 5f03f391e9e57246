/**
 * The scenario of a first-time user, run by defaults.test.ts inside a private network namespace
 * (only loopback exists there, so the default mDNS and 0.0.0.0 binding reach nothing else):
 * `opencube start` with its defaults, `opencube link`, a token, GET devices, the event stream.
 * Prints one JSON line with what it saw; always stops the gateway.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bonjour } from 'bonjour-service';

const base = 'http://127.0.0.1:8081/open-api';
const dataDir = mkdtempSync(join(tmpdir(), 'opencube-e2e-'));
const bin = join(import.meta.dirname, '../../bin/opencube.js');
const gateway = spawn(process.execPath, [bin, 'start', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
let stderr = '';
gateway.stderr.on('data', (c) => {
  stderr += c;
});
const exited = new Promise<number | null>((done) => gateway.on('exit', (code) => done(code)));

async function json(path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    ...init,
    headers: { 'Content-Type': 'application/json', ...init.headers },
  });
  return res.json();
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch {
      // not up yet
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const seen: Record<string, unknown> = {};
try {
  seen.bridge = await until('GET bridge', () => json('/v1/rest/bridge'));
  // Discovery as clients do it: browse for _ewelink._tcp (the namespace's loopback is the only link).
  const bonjour = new Bonjour();
  seen.mdns = await until(
    'the mDNS advertisement',
    async () => {
      const found: { host: string; port: number }[] = [];
      const browser = bonjour.find({ type: 'ewelink' }, (s) => found.push({ host: s.host, port: s.port }));
      await new Promise((r) => setTimeout(r, 1500));
      browser.stop();
      return found[0];
    },
    20_000,
  );
  bonjour.destroy();
  seen.before = await json('/v2/rest/bridge/access_token?app_name=e2e');
  const link = spawnSync(process.execPath, [bin, 'link', '--data-dir', dataDir], { encoding: 'utf8' });
  seen.link = link.stdout.trim();
  const grant = await json('/v2/rest/bridge/access_token?app_name=e2e');
  const token = grant.data.token as string;
  seen.token = typeof token === 'string' && token.length > 0;
  const auth = { Authorization: `Bearer ${token}` };
  const devices = await until('simulated devices', async () => {
    const r = await json('/v2/rest/devices', { headers: auth });
    return r.data.device_list?.length > 0 ? r.data.device_list : undefined;
  });
  seen.devices = devices.length;
  seen.categories = [...new Set(devices.map((d: { display_category: string }) => d.display_category))].sort();
  // The stream shows the simulated devices' reports.
  const ctrl = new AbortController();
  const res = await fetch(`${base}/v2/sse/bridge?access_token=${token}`, { signal: ctrl.signal });
  const reader = res.body!.getReader();
  let text = '';
  const deadline = Date.now() + 60_000;
  while (!/event: device#v2#updateDeviceState/.test(text) && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  ctrl.abort();
  seen.stateEvent = /event: device#v2#updateDeviceState\ndata: \{.*"serial_number"/.test(text);
} catch (err) {
  seen.error = (err as Error).message;
  seen.stderr = stderr.slice(-2000);
} finally {
  gateway.kill('SIGTERM');
  seen.exitCode = await exited;
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(JSON.stringify(seen));
