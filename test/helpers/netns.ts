/**
 * Node scripts run inside a private network namespace that holds only loopback, with multicast on
 * it: mDNS and Matter's discovery work there, and nothing can reach a real interface.
 */
import { type SpawnSyncOptions, type SpawnSyncReturns, spawnSync } from 'node:child_process';

/** Whether this machine lets a process take a private network namespace (`unshare -n` needs root). */
export const canUnshare = spawnSync('unshare', ['-n', 'true']).status === 0;

/** Runs `node --import tsx ARGS` in a loopback-only network namespace with multicast on `lo`. */
export function runInLoopback(args: readonly string[], opts: SpawnSyncOptions = {}): SpawnSyncReturns<string> {
  return spawnSync(
    'unshare',
    [
      '-n',
      'sh',
      '-c',
      'ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo && exec "$@"',
      'sh',
      process.execPath,
      '--import',
      'tsx',
      ...args,
    ],
    { encoding: 'utf8', ...opts },
  ) as SpawnSyncReturns<string>;
}
