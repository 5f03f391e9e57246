/**
 * `opencube backup FILE`, `opencube restore FILE` and `opencube log-level [LEVEL]`. With the gateway
 * running they go through its control socket (the backup is taken by the gateway, a restore is
 * staged and the gateway restarts onto it); with it stopped, backup and restore work on the
 * store directly. docs/operations.md tells the decisions.
 */
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { type BackupContents, writeBackup } from '../core/maintenance/store-backup.ts';
import { installRestore, prepareRestore, type RestoreCheck, stagedPath } from '../core/maintenance/store-restore.ts';
import { controlRequest, controlTransfer, NotRunningError } from '../lib/control-client.ts';
import { fileProblem } from '../lib/file-problem.ts';
import { isLogLevel } from '../lib/logger.ts';
import { redactText } from '../lib/redact.ts';
import { changedSettings, type Settings } from '../settings/index.ts';
import { restoredSettings } from '../settings/restored.ts';
import { openDb } from '../store/db.ts';

/** The file a restore writes the backed-up settings to (for a service's EnvironmentFile). */
export const RESTORED_SETTINGS_FILE = 'settings-from-backup.env';

function describe(c: BackupContents): string {
  return `${c.devices} devices (${c.cameras} cameras), ${c.tokens} tokens, ${c.tts_engines} TTS engines, ${c.ui_cards} cards, ${c.security_modes} security modes, ${c.scenes} scenes, ${c.automations} automations`;
}

/**
 * A failed backup over the control socket as one line: a file that could not be written is named
 * with why; what the gateway refused (its own message) stays as it said it.
 */
function writeProblem(err: unknown, file: string): Error {
  return typeof (err as NodeJS.ErrnoException)?.code === 'string'
    ? fileProblem(err, 'write the backup to', file, true)
    : (err as Error);
}

/** Takes a backup into `file` (replacing it); returns what to print. */
export async function backupCommand(settings: Settings, socket: string, target: string): Promise<string> {
  const file = resolve(target);
  if (existsSync(file) && statSync(file).isDirectory()) throw new Error(`${file} is a folder: give a file name`);
  if (!existsSync(dirname(file))) throw new Error(`no folder ${dirname(file)}`);
  // A place that takes no file (a read-only or virtual file system, another user's folder) is
  // found before anything runs, with the system's own reason, whichever way the backup is taken.
  const probe = join(dirname(file), `.${basename(file)}.probe-${process.pid}`);
  try {
    closeSync(openSync(probe, 'wx', 0o600));
    rmSync(probe, { force: true });
  } catch (err) {
    throw fileProblem(err, 'write the backup to', file, true);
  }
  // Written beside the target, then renamed: a failed backup leaves the file there was.
  const partial = join(dirname(file), `.${basename(file)}.partial-${process.pid}`);
  let contents: BackupContents;
  try {
    const r = await controlTransfer(socket, 'GET', '/backup', { download: partial });
    contents = JSON.parse(String(r.headers['x-backup-contents'] ?? '{}')) as BackupContents;
    renameSync(partial, file);
  } catch (err) {
    rmSync(partial, { force: true });
    if (!(err instanceof NotRunningError)) throw writeProblem(err, file);
    const dbPath = join(resolve(settings.data_dir), 'gateway.db');
    if (!existsSync(dbPath)) throw new Error(`no gateway runs on ${resolve(settings.data_dir)} and it holds no store`);
    const db = openDb(dbPath);
    try {
      contents = await writeBackup(db, file, {
        gatewayVersion: pkg.version,
        settings: changedSettings(settings),
        now: Date.now(),
      });
    } catch (e) {
      throw fileProblem(e, 'write the backup to', file, true);
    } finally {
      db.close();
    }
  }
  return `backup written to ${file}: ${describe(contents)}\n`;
}

/** Restores `source`: staged and restarted onto when the gateway runs, at once when it does not. */
export async function restoreCommand(settings: Settings, socket: string, source: string): Promise<string> {
  const file = resolve(source);
  // Checked here first: an unreadable file must not be taken for a gateway that does not answer.
  try {
    closeSync(openSync(file, 'r'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`no file ${file}`);
    throw fileProblem(err, 'read', file, false);
  }
  let check: RestoreCheck & { restarting?: boolean };
  let running = true;
  let previous: string | undefined;
  const dataDir = resolve(settings.data_dir);
  try {
    const r = await controlTransfer(socket, 'POST', `/restore?name=${encodeURIComponent(file)}`, { upload: file });
    check = JSON.parse(r.body.toString('utf8')) as RestoreCheck & { restarting?: boolean };
  } catch (err) {
    if (!(err instanceof NotRunningError)) throw err;
    running = false;
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const dbPath = join(dataDir, 'gateway.db');
    check = prepareRestore(file, stagedPath(dbPath));
    if (!check.ok) throw new Error(check.message);
    previous = installRestore(dbPath, stagedPath(dbPath));
  }
  if (!check.ok) throw new Error(check.message);
  const lines = [`restored ${file} into ${dataDir}: ${describe(check.contents)}`];
  if (check.meta) lines.push(`taken ${check.meta.created_at} by opencube ${check.meta.gateway_version}`);
  if (previous) lines.push(`the store there was is kept as ${previous}`);
  if (running)
    lines.push(
      check.restarting
        ? 'the gateway restarts onto it now'
        : 'the gateway uses it from its next start (restart it now: it was not started by opencube start or a service manager)',
    );
  // Checked: a backup is a file anyone could have made (src/settings/restored.ts).
  const env = restoredSettings(check.meta?.settings);
  if (env.lines.length > 0) {
    const envFile = join(dataDir, RESTORED_SETTINGS_FILE);
    writeFileSync(
      envFile,
      `# settings of the gateway the backup was taken from (${check.meta?.created_at})\n${env.lines.join('\n')}\n`,
      { mode: 0o600 },
    );
    lines.push(
      `the backed-up gateway ran with these settings (not applied: give them as flags or environment; written to ${envFile}):`,
      ...env.lines.map((l) => `  ${redactText(l)}`),
    );
  }
  for (const l of env.left) lines.push(`left out: ${l.name} (${redactText(l.why)})`);
  return `${lines.join('\n')}\n`;
}

/** Shows or changes the running gateway's log level. */
export async function logLevelCommand(socket: string, level: string | undefined): Promise<string> {
  if (level === undefined) {
    const r = await controlRequest<{ level: string }>(socket, 'GET', '/log-level');
    return `log level: ${r.level}\n`;
  }
  if (!isLogLevel(level))
    throw new Error(`unknown log level "${level}" (fatal, error, warn, info, debug, trace, silent)`);
  const r = await controlRequest<{ level: string; was: string }>(socket, 'PUT', `/log-level?level=${level}`);
  return `log level: ${r.level} (was ${r.was}); it goes back to --log-level at the next start\n`;
}
