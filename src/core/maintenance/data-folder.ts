/**
 * The files a gateway keeps in its data folder, and the pid file that says which process serves
 * it: a gateway never applies a staged restore under another one that still runs there, and
 * removes only its own pid file.
 */
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface DataPaths {
  dir: string;
  db: string;
  socket: string;
  pid: string;
}

export function dataPaths(dataDir: string): DataPaths {
  const dir = resolve(dataDir);
  return {
    dir,
    db: join(dir, 'gateway.db'),
    socket: join(dir, 'opencube.sock'),
    pid: join(dir, 'opencube.pid'),
  };
}

/** Whether the pid file names a live process other than this one (a gateway serving the folder). */
export function otherGatewayRuns(pidFile: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid file of this process: written once it listens, removed at its stop (only if it wrote it). */
export class PidFile {
  private wrote = false;

  constructor(private readonly path: string) {}

  write(): void {
    writeFileSync(this.path, `${process.pid}\n`, { mode: 0o600 });
    this.wrote = true;
  }

  remove(): void {
    // Only our own: a gateway refused because another one serves this folder leaves its pid file.
    if (!this.wrote) return;
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

/** Runs `fn` with a file name in a scratch folder of the data folder, removed afterwards. */
export async function withScratch<T>(dataDir: string, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(dataDir, '.scratch-'));
  try {
    return await fn(join(dir, 'store.db'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
