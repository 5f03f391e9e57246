/**
 * The line `opencube start` prints once it listens names the addresses it listens on (issue 23:
 * `--host 0.0.0.0` printed `listening on http://127.0.0.1...` as if that were all). The real CLI
 * runs in a private network namespace holding loopback and one more interface (a veth end with
 * 10.9.8.7), so that binding every address reaches nothing outside; each URL printed is asked.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { listeningLine } from '../../src/cli/banner.ts';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/foundation.ts';
import { canUnshare } from '../helpers/netns.ts';

const MACHINE = {
  lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
  eth0: [{ address: '192.168.1.20', family: 'IPv4', internal: false }],
  docker0: [{ address: '172.17.0.1', family: 'IPv4', internal: false }],
} as unknown as Parameters<typeof listeningLine>[2];

describe('the listening line', () => {
  it('names the address it is bound to and, on every address, the URLs of the machine', () => {
    assert.equal(
      listeningLine('0.0.0.0', 8081, MACHINE, '/d'),
      'opencube listening on 0.0.0.0:8081, every address of this machine: http://192.168.1.20:8081, http://172.17.0.1:8081, http://127.0.0.1:8081 (data in /d)',
    );
    assert.equal(
      listeningLine('::', 80, {}, '/d'),
      'opencube listening on [::]:80, every address of this machine: http://127.0.0.1:80 (data in /d)',
    );
    assert.equal(
      listeningLine('127.0.0.1', 8081, MACHINE, '/d'),
      'opencube listening on http://127.0.0.1:8081 (data in /d)',
    );
    assert.equal(
      listeningLine('fd00::5', 8081, MACHINE, '/d'),
      'opencube listening on http://[fd00::5]:8081 (data in /d)',
    );
  });

  it('with --host 0.0.0.0, each URL it prints answers', {
    skip: canUnshare ? false : 'unshare -n is not permitted here (needs root)',
  }, (t) => {
    const dir = tempDir('opencube-listen-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const cli = `${JSON.stringify(process.execPath)} --import tsx src/main.ts start --host 0.0.0.0 --port 18081 --data-dir ${JSON.stringify(join(dir, 'data'))} --no-mdns --zigbee-mode off --log-level warn`;
    const script = [
      'set -e',
      'ip link set lo up',
      'ip link add v0 type veth peer name v1',
      'ip addr add 10.9.8.7/24 dev v0',
      // Both ends up: an interface without carrier is not listed by node (libuv wants it running).
      'ip link set v0 up',
      'ip link set v1 up',
      `${cli} > ${JSON.stringify(join(dir, 'out'))} 2>/dev/null &`,
      'pid=$!',
      `for i in $(seq 1 200); do grep -q 'listening on' ${JSON.stringify(join(dir, 'out'))} && break; sleep 0.1; done`,
      `line=$(grep 'listening on' ${JSON.stringify(join(dir, 'out'))})`,
      'echo "$line"',
      'for url in $(echo "$line" | grep -o "http://[0-9.]*:[0-9]*"); do echo "$url $(curl -s -o /dev/null -w "%{http_code}" "$url/health")"; done',
      'kill $pid; wait $pid || true',
    ].join('\n');
    const r = spawnSync('unshare', ['-n', 'sh', '-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 90_000 });
    assert.equal(r.status, 0, r.stderr);
    const [line, ...answers] = r.stdout.trim().split('\n');
    assert.equal(
      line,
      `opencube listening on 0.0.0.0:18081, every address of this machine: http://10.9.8.7:18081, http://127.0.0.1:18081 (data in ${join(dir, 'data')})`,
    );
    assert.deepEqual(answers, ['http://10.9.8.7:18081 200', 'http://127.0.0.1:18081 200']);
  });
});
