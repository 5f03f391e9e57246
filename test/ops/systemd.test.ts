/**
 * The systemd unit of the repository (deploy/opencube.service, issue 13): the gateway without its
 * own supervisor, restarted on failure (the exit code 75 of a reboot or a restore included), a
 * dedicated user, hardening; checked by `systemd-analyze verify` where it is installed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { GATEWAY_NODE_FLAGS } from '../../src/cli/supervisor.ts';
import { ROOT } from '../helpers/cli.ts';

const UNIT = join(ROOT, 'deploy', 'opencube.service');
const text = readFileSync(UNIT, 'utf8');

/** Every `Key=value` of the unit (a key given twice keeps both values). */
function entries(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1] as string, [...(out.get(m[1] as string) ?? []), m[2] as string]);
  }
  return out;
}

/** `systemd-analyze verify` of a unit file: its exit code and everything it printed. */
function verify(file: string): { status: number | null; output: string } | undefined {
  const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8', timeout: 60_000 });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return undefined;
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}

describe('the systemd unit', () => {
  it('runs the gateway without its supervisor, as its own user, restarted on failure, hardened', () => {
    const e = entries();
    const one = (k: string) => e.get(k)?.[0];
    assert.equal(one('User'), 'opencube');
    assert.equal(one('Group'), 'opencube');
    assert.equal(one('Restart'), 'on-failure');
    assert.equal(one('RestartPreventExitStatus'), '78', 'a configuration error (exit code 78) is not retried');
    const exec = one('ExecStart') ?? '';
    assert.match(
      exec,
      /^\/usr\/bin\/node (--[a-z0-9-]+=[0-9]+ )*\/opt\/opencube\/bin\/opencube\.js start --no-supervise --data-dir \/var\/lib\/opencube$/,
    );
    // The same node flags wherever the gateway is started for a box: the unit, `npm start`, the supervisor's child.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
    const flagsOf = (command: string) => command.split(' ').filter((w) => w.startsWith('--') && w.includes('='));
    assert.deepEqual(flagsOf(exec), [...GATEWAY_NODE_FLAGS], 'the unit gives node the flags');
    assert.deepEqual(flagsOf(pkg.scripts.start), [...GATEWAY_NODE_FLAGS], 'npm start gives node the flags');
    assert.ok(existsSync(join(ROOT, 'bin', 'opencube.js')), 'the entry point it starts is in the repository');
    assert.equal(one('StateDirectory'), 'opencube', 'systemd makes /var/lib/opencube, owned by the user');
    for (const [key, value] of [
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['ProtectHome', 'yes'],
      ['PrivateTmp', 'yes'],
      ['CapabilityBoundingSet', ''],
      ['RestrictSUIDSGID', 'yes'],
      ['SystemCallFilter', '@system-service'],
    ] as const)
      assert.equal(one(key), value, key);
    assert.equal(e.has('MemoryDenyWriteExecute'), false, "Node's JIT needs writable code pages");
    assert.equal(one('WantedBy'), 'multi-user.target');
  });

  it('passes systemd-analyze verify without a word (skipped, saying so, where systemd-analyze is not installed)', (t) => {
    const r = verify(UNIT);
    if (!r) {
      t.skip('systemd-analyze is not installed on this machine: the unit was not verified (apt-get install systemd)');
      return;
    }
    assert.equal(r.status, 0, r.output);
    assert.equal(r.output, '', 'no warning either');
    // The check itself: a unit with a mistake is reported.
    const dir = mkdtempSync(join(tmpdir(), 'opencube-unit-'));
    try {
      const bad = join(dir, 'opencube.service');
      writeFileSync(bad, text.replace('Restart=on-failure', 'Restart=sometimes'));
      assert.match(verify(bad)?.output ?? '', /Failed to parse service restart specifier/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
