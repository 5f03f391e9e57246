/**
 * The Debian packages of the camera and Home Assistant tests (GStreamer's RTSP server, ffmpeg,
 * mosquitto), installed once, when missing, by scripts/ensure-system-deps.sh.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

let depsChecked: string | undefined;

/**
 * Installs the Debian packages the tests need when missing (once per process; a lock keeps two
 * test processes from running apt-get together). Fails the test with the reason otherwise.
 */
export function ensureSystemDeps(): void {
  if (depsChecked === undefined) {
    const r = spawnSync('flock', ['/tmp/opencube-system-deps.lock', 'bash', 'scripts/ensure-system-deps.sh'], {
      encoding: 'utf8',
      timeout: 900_000,
    });
    depsChecked =
      r.status === 0
        ? ''
        : `${(r.stdout || '').trim() || (r.stderr || '').trim() || r.error?.message || 'scripts/ensure-system-deps.sh failed'}`;
  }
  if (depsChecked !== '') assert.fail(`these tests cannot run: ${depsChecked}`);
}
