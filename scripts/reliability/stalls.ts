/**
 * Issue 24, finding 4, measured: the longest stall of a real gateway's event loop (perf_hooks'
 * monitorEventLoopDelay, preloaded into it by loop-delay.mjs) while it decodes one and eight large
 * WAVs that clients sent to its speaker, and while it checks a large backup to restore. Every
 * client of the gateway waits as long as the longest stall. Before the fix: about 0.5 s for one
 * 8 MiB WAV, 2 s for eight, 1.5 s for a 48 MiB restore, all on the event loop.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { controlTransfer } from '../../src/lib/control-client.ts';
import { bigWav, growBackup } from '../../test/helpers/big-files.ts';
import { runCli } from '../../test/helpers/cli.ts';
import { tempDir } from '../../test/helpers/foundation.ts';
import { type GatewayProcess, launchGateway, linkToken } from './gateway-process.ts';

export interface StallFigures {
  /** Longest stall (ms) with nothing to do, to read the others against. */
  idleMs: number;
  oneWavMs: number;
  eightWavsMs: number;
  restoreMs: number;
  /** Size of the backup restored, MiB; the WAVs' size, MiB. */
  backupMb: number;
  wavMb: number;
  /** WAVs played (answered 0), and refused as the gateway was fetching or decoding two others. */
  played: number;
  busy: number;
  restored: boolean;
  /** Resident memory of the gateway after the eight WAVs, MB. */
  rssAfterEightMb: number;
}

const PRELOAD = fileURLToPath(new URL('./loop-delay.mjs', import.meta.url));

/** The longest stall the gateway's preload recorded between `from` and `to` (epoch ms). */
async function longestStall(g: GatewayProcess, file: string, from: number, to: number): Promise<number> {
  rmSync(file, { force: true });
  process.kill(g.gatewayPid(), 'SIGUSR2');
  const until = Date.now() + 10_000;
  for (;;) {
    try {
      const kept = JSON.parse(readFileSync(file, 'utf8')) as [number, number][];
      // Kept at when it began (loop-delay.mjs): what began once the answer was on its way (a
      // restart after a restore) is not the work asked for.
      return Math.round(Math.max(0, ...kept.filter(([t]) => t >= from && t <= to - 10).map(([, ms]) => ms)));
    } catch {
      if (Date.now() > until) throw new Error('the gateway wrote no event-loop figures');
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

export async function runStalls(opts: { wavMb: number; backupMb: number }): Promise<StallFigures> {
  const dataDir = tempDir('opencube-stalls-');
  const figures = join(tempDir('opencube-stall-figures-'), 'loop.json');
  const wavs = Array.from({ length: 8 }, (_, i) => bigWav(opts.wavMb * 1024 * 1024, i + 1));
  const server = createServer((req, res) => {
    const wav = wavs[Number(/\/(\d)\.wav$/.exec(req.url ?? '')?.[1] ?? 0)] as Buffer;
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length }).end(wav);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const g = await launchGateway({
    dataDir,
    nodeArgs: ['--import', PRELOAD],
    env: { OPENCUBE_LOOP_DELAY_FILE: figures },
    flags: ['--audio-media-max-bytes', String(opts.wavMb * 1024 * 1024)],
  });
  try {
    const token = await linkToken(g, 'stalls');
    const play = async (i: number) => {
      const r = await fetch(`${g.url}/open-api/v2/rest/media/audio-player`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ audio_url: `${base}/${i}.wav` }),
      });
      return ((await r.json()) as { error: number }).error;
    };
    const phase = async <T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> => {
      const from = Date.now();
      const value = await work();
      return { value, ms: await longestStall(g, figures, from, Date.now()) };
    };
    const idle = await phase(() => new Promise((r) => setTimeout(r, 1000)));
    const one = await phase(() => play(0));
    const eight = await phase(() => Promise.all(wavs.map((_, i) => play(i))));
    const rssAfterEightMb = Math.round(g.rss() / 1048576);

    const backup = join(tempDir('opencube-stall-backup-'), 'big.backup');
    const taken = await runCli(['backup', backup, '--data-dir', dataDir]);
    if (taken.code !== 0) throw new Error(`backup failed: ${taken.stderr}`);
    growBackup(backup, opts.backupMb * 1024 * 1024);
    // Through the control socket, as `opencube restore` sends it: the check runs until the gateway
    // answers, and the restart onto the backup comes after the answer, outside the window.
    const restore: { value: { ok: boolean; size: number; why?: string }; ms: number } = await phase(() =>
      controlTransfer(join(dataDir, 'opencube.sock'), 'POST', '/restore?name=big.backup', { upload: backup }).then(
        (r) => ({
          ok: (JSON.parse(r.body.toString('utf8')) as { ok?: boolean }).ok === true,
          size: statSync(backup).size,
        }),
        (err: Error) => ({ ok: false, size: 0, why: err.message }),
      ),
    );
    rmSync(join(backup, '..'), { recursive: true, force: true });
    return {
      idleMs: idle.ms,
      oneWavMs: one.ms,
      eightWavsMs: eight.ms,
      restoreMs: restore.ms,
      backupMb: opts.backupMb,
      wavMb: opts.wavMb,
      played: [one.value, ...eight.value].filter((e) => e === 0).length,
      busy: eight.value.filter((e) => e === 400).length,
      restored: restore.value.ok,
      rssAfterEightMb,
    };
  } finally {
    await g.stop().catch(() => {});
    await new Promise((r) => server.close(r));
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(join(figures, '..'), { recursive: true, force: true });
  }
}
