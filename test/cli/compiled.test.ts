/**
 * The command as installed (bin/opencube.js): it builds dist/ (a bundle) when src/ changed and
 * runs it, without tsx, in one process. Every file the gateway reads beside its code is found
 * from the package root although the code runs from dist/: the simulated network's fixtures, the
 * sounds, the eSpeak NG worker, the worker threads' modules; the version is package.json's.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { it } from 'node:test';
import { bigWav } from '../helpers/big-files.ts';
import { freePort, ROOT, runCli, spawnCli, startArgs } from '../helpers/cli.ts';
import { call, listDevices, rest, tempDir } from '../helpers/foundation.ts';

function commandLine(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
}

it('runs the bundled gateway from dist/ with the simulated network, sounds and built-in TTS', async (t) => {
  const dir = tempDir();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = spawnCli(startArgs(port, dir, '--audio-sink', 'null', '--log-level', 'warn'), { compiled: true });
  t.after(() => {
    proc.killAll();
    rmSync(dir, { recursive: true, force: true });
  });
  // A first run may build dist/ (tsc: several seconds on a busy machine).
  await proc.waitForOutput(/opencube listening on/, 1, 120_000);

  const gatewayPid = Number(readFileSync(join(dir, 'opencube.pid'), 'utf8'));
  assert.equal(gatewayPid, proc.child.pid, 'one process');
  const command = commandLine(gatewayPid);
  assert.match(command, /bin\/opencube\.js start /);
  assert.doesNotMatch(command, /tsx/, 'no TypeScript loader at run time');

  const bridge = await call(base, 'GET', rest('v2', 'bridge'));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.equal(bridge.json.data.fw_version, pkg.version.split('-')[0], 'the version read from package.json');

  await call(base, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=compiled`);
  assert.equal((await runCli(['link', '--data-dir', dir], { compiled: true })).code, 0);
  const token = (await call(base, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=compiled`)).json.data.token;
  assert.ok(token);

  const devices = await listDevices(base, token);
  assert.equal(devices.length, 16, 'the simulated network of 16 devices, from its fixtures');

  const sound = await call(base, 'POST', rest('v2', 'hardware/speaker'), {
    token,
    body: { type: 'play_sound', sound: { name: 'alert1', volume: 10, countdown: 0 } },
  });
  assert.equal(sound.json.error, 0, sound.text);

  const speech = await call(base, 'POST', rest('v2', 'tts/engine/espeak-ng/synthesize'), {
    token,
    body: { text: 'compiled' },
  });
  assert.equal(speech.json.error, 0, speech.text);
  const wav = Buffer.from(await (await fetch(speech.json.data.audio.url)).arrayBuffer());
  assert.equal(wav.subarray(0, 4).toString('latin1'), 'RIFF', 'speech from the eSpeak NG worker');

  // A file large enough for the audio decoder's worker thread, which runs from dist/ too.
  const big = bigWav(512 * 1024);
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(big));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => server.close(r)));
  const media = await call(base, 'POST', rest('v2', 'media/audio-player'), {
    token,
    body: { audio_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/big.wav` },
  });
  assert.equal(media.json.error, 0, `decoded in the worker of dist/: ${media.text}`);

  // A backup restored onto the running gateway: its checks run in the restore worker of dist/.
  const backup = join(dir, 'compiled.backup');
  assert.equal((await runCli(['backup', backup, '--data-dir', dir], { compiled: true })).code, 0);
  const restored = await runCli(['restore', backup, '--data-dir', dir], { compiled: true });
  assert.equal(restored.code, 0, restored.stderr);
  await proc.waitForOutput(/opencube listening on/, 2, 120_000);
  assert.equal((await listDevices(base, token)).length, 16, 'the restored store, with its token');

  proc.child.kill('SIGTERM');
  assert.deepEqual(await proc.exited, { code: 0, signal: null });
});
