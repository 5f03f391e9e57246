/**
 * The start-up banner and the log format: where clients reach the gateway (the LAN addresses when
 * it listens on every address, chosen from the interfaces injected here), where the console is,
 * how to approve a client, which Zigbee network runs; readable lines at a terminal, one JSON entry
 * when the log is JSON (`auto` picks JSON when stderr is not a terminal, as under systemd).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { NetworkInterfaceInfo } from 'node:os';
import { describe, it } from 'node:test';
import pkg from '../../package.json' with { type: 'json' };
import {
  approve,
  bannerFacts,
  bannerLines,
  type Interfaces,
  reachableAddresses,
  zigbeeLine,
} from '../../src/cli/banner.ts';
import { resolveLogFormat } from '../../src/lib/logger.ts';
import { loadSettings } from '../../src/settings/index.ts';
import { type CliProcess, freePort, spawnCli, startArgs } from '../helpers/cli.ts';
import { eventually, tempDir } from '../helpers/foundation.ts';

function nic(address: string, family: 'IPv4' | 'IPv6' = 'IPv4', internal = false): NetworkInterfaceInfo {
  const base = { address, netmask: '255.255.255.0', mac: '02:00:00:00:00:01', internal, cidr: null };
  return family === 'IPv4' ? { ...base, family } : { ...base, family, scopeid: 0 };
}

const MACHINE: Interfaces = {
  lo: [nic('127.0.0.1', 'IPv4', true), nic('::1', 'IPv6', true)],
  docker0: [nic('172.17.0.1')],
  eth0: [nic('192.168.1.20'), nic('fe80::1', 'IPv6')],
  wlan0: [nic('192.168.1.21')],
};

describe('the addresses clients reach the gateway at', () => {
  it('are the LAN IPv4 addresses when it listens on every address, physical interfaces first', () => {
    assert.deepEqual(reachableAddresses('0.0.0.0', MACHINE), ['192.168.1.20', '192.168.1.21', '172.17.0.1']);
    assert.deepEqual(reachableAddresses('::', MACHINE), ['192.168.1.20', '192.168.1.21', '172.17.0.1']);
  });

  it('are 127.0.0.1 on a machine without a LAN address, or the address it is bound to', () => {
    assert.deepEqual(reachableAddresses('0.0.0.0', { lo: [nic('127.0.0.1', 'IPv4', true)] }), ['127.0.0.1']);
    assert.deepEqual(reachableAddresses('0.0.0.0', {}), ['127.0.0.1']);
    assert.deepEqual(reachableAddresses('127.0.0.1', MACHINE), ['127.0.0.1']);
    assert.deepEqual(reachableAddresses('192.168.1.21', MACHINE), ['192.168.1.21']);
  });

  it('make the banner: the Open API and console on the first, the others beside, a note when only this machine reaches it', () => {
    const lan = bannerLines(
      bannerFacts(loadSettings(), 8081, MACHINE, '1.2.3', '/var/lib/opencube', 'npm run opencube -- link'),
    );
    assert.deepEqual(lan, [
      'opencube 1.2.3 is running (data in /var/lib/opencube)',
      '  Open API: http://192.168.1.20:8081/open-api/v2/rest/',
      '  Also at:  http://192.168.1.21:8081, http://172.17.0.1:8081',
      '  Console:  http://192.168.1.20:8081/',
      '  Approve:  when a client asks for a token, run "npm run opencube -- link" or answer the console\'s pop-up',
      '  Zigbee:   simulated network of 16 devices (--zigbee-mode z2m or herdsman for a real one)',
    ]);
    const alone = bannerFacts(loadSettings(), 8081, {}, '1.2.3', '/d');
    assert.equal(alone.localOnly, 'this machine has no LAN address: only it reaches the gateway');
    const v6 = bannerFacts(loadSettings({ overrides: { host: 'fd00::5' } }), 80, MACHINE, '1', '/d');
    assert.equal(v6.console, 'http://[fd00::5]:80/');
  });
});

describe('the Zigbee line of the banner', () => {
  const zigbee = (z: Record<string, unknown>) => loadSettings({ overrides: { zigbee: z } }).zigbee;

  it('says which network runs, without the password of the broker', () => {
    const z2m = zigbeeLine(zigbee({ mode: 'z2m', mqtt_url: 'mqtt://gw:s3cret@10.0.0.2:1883' }));
    assert.equal(z2m, 'Zigbee2MQTT through the broker mqtt://gw:[redacted]@10.0.0.2:1883 (base topic zigbee2mqtt)');
    assert.equal(
      zigbeeLine(zigbee({ mode: 'herdsman', serial_port: '/dev/ttyUSB0' })),
      'USB coordinator on /dev/ttyUSB0',
    );
    assert.match(
      zigbeeLine(zigbee({ mode: 'herdsman' })),
      /^USB coordinator on the port found .*opencube zigbee ports/,
    );
    assert.equal(zigbeeLine(zigbee({ mode: 'off' })), 'off (--zigbee-mode sim, z2m or herdsman to have one)');
  });
});

describe('the log format', () => {
  it('auto is pretty at a terminal and JSON anywhere else (journald is not a terminal)', () => {
    assert.equal(resolveLogFormat('auto', true), 'pretty');
    assert.equal(resolveLogFormat('auto', false), 'json');
    assert.equal(resolveLogFormat('json', true), 'json');
    assert.equal(resolveLogFormat('pretty', false), 'pretty');
    assert.equal(loadSettings().log_format, 'auto', 'the default');
  });
});

/** The data folder a started gateway says it uses. */
const dataDir = (proc: CliProcess) => /data in (.*)\)/.exec(proc.stdout())?.[1] as string;

describe('opencube start, as the user sees it', () => {
  async function start(t: { after(fn: () => void): void }, ...extra: string[]): Promise<CliProcess> {
    const dir = tempDir();
    const port = await freePort();
    const proc = spawnCli(startArgs(port, dir, ...extra));
    t.after(() => {
      proc.killAll();
      rmSync(dir, { recursive: true, force: true });
    });
    await proc.waitForOutput(/opencube listening on/);
    return proc;
  }

  it('prints the banner and readable log lines with --log-format pretty', async (t) => {
    const proc = await start(t, '--log-format', 'pretty', '--sim-devices', '3');
    await eventually(() => proc.stderr().includes('  Zigbee:'), 10_000, 'the banner');
    const base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(proc.stdout())?.[1] as string;
    const banner = proc
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('  ') || l.startsWith('opencube '));
    assert.deepEqual(banner.slice(0, 5), [
      `opencube ${pkg.version} is running (data in ${/data in (.*)\)/.exec(proc.stdout())?.[1]})`,
      `  Open API: ${base}/open-api/v2/rest/ (bound to 127.0.0.1: only this machine reaches it; --host 0.0.0.0 for the LAN)`,
      `  Console:  ${base}/`,
      `  Approve:  ${approve(`opencube link --data-dir ${dataDir(proc)}`)}`,
      '  Zigbee:   simulated network of 3 devices (--zigbee-mode z2m or herdsman for a real one)',
    ]);
    const logLines = proc
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('['));
    assert.ok(logLines.length > 0, proc.stderr());
    for (const l of logLines) assert.match(l, /^\[\d\d:\d\d:\d\d\.\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL): \S/, l);
    assert.equal(proc.stderr().includes('"pid"'), false, 'no pid or host name on each line');
  });

  it('writes JSON lines, the banner as one entry, when stderr is not a terminal (auto)', async (t) => {
    const proc = await start(t, '--zigbee-mode', 'off');
    await eventually(() => proc.stderr().includes('opencube is running'), 10_000, 'the banner entry');
    const lines = proc.stderr().trimEnd().split('\n');
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const banner = entries.find((e) => e.msg === 'opencube is running') as Record<string, unknown>;
    assert.equal(banner.level, 30);
    assert.match(banner.open_api as string, /^http:\/\/127\.0\.0\.1:\d+\/open-api\/v2\/rest\/$/);
    assert.equal(banner.zigbee, 'off (--zigbee-mode sim, z2m or herdsman to have one)');
    assert.equal(banner.approve, approve(`opencube link --data-dir ${dataDir(proc)}`));
  });

  it('prints no banner above info', async (t) => {
    const proc = await start(t, '--zigbee-mode', 'off', '--log-level', 'warn', '--log-format', 'pretty');
    // Stopped first, so that everything it would have printed is there.
    proc.child.kill('SIGTERM');
    assert.deepEqual(await proc.exited, { code: 0, signal: null });
    assert.match(proc.stderr(), /WARN: console: no password set yet/, 'warnings are still printed');
    assert.equal(proc.stderr().includes('is running'), false, proc.stderr());
  });
});
