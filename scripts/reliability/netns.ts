/**
 * Runs a reliability script inside a private network namespace (`unshare -n`, loopback only):
 * whatever URL a fuzzed body names, nothing can leave the machine. Where unshare is not allowed,
 * the script runs as it is (its URLs all point at 127.0.0.1) and says so.
 */
import { spawnSync } from 'node:child_process';

const MARK = 'OPENCUBE_PRIVATE_NETWORK';

/** Re-runs this process inside a private network namespace and exits with its code; returns when already inside or not possible. */
export function inPrivateNetwork(): void {
  if (process.env[MARK] === '1') return;
  const probe = spawnSync('unshare', ['-n', 'true'], { stdio: 'ignore' });
  if (probe.status !== 0) {
    process.stdout.write(
      'note: unshare -n is not allowed here; running in the host network (every URL is 127.0.0.1)\n',
    );
    return;
  }
  const r = spawnSync(
    'unshare',
    [
      '-n',
      'sh',
      '-c',
      'ip link set lo up 2>/dev/null || true; exec "$@"',
      'sh',
      process.execPath,
      ...process.execArgv,
      ...process.argv.slice(1),
    ],
    { stdio: 'inherit', env: { ...process.env, [MARK]: '1' } },
  );
  process.exit(r.status ?? 1);
}
