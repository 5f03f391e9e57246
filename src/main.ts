/**
 * The `opencube` command. `start` runs the gateway under a small supervisor process
 * (src/cli/supervisor.ts) that restarts it when it asks to (G8 reboot: exit code 75) or crashed;
 * `link`, `tokens` and `reset` talk to the running gateway over its control socket (or, when none
 * runs, to the store directly).
 *
 * Only the command line and the supervisor are imported here; the gateway and the store are
 * imported when a command needs them, so that the supervisor process loads none of them.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from './cli/args.ts';
import { parseCommandLine } from './cli/command-line.ts';
import { readNewSecret } from './cli/read-secret.ts';
import { gatewayExecArgv, LISTENING_MESSAGE, RESTART_EXIT_CODE, supervise } from './cli/supervisor.ts';
import type { PressResult, TokenInfo, TokenService } from './core/tokens.ts';
import { type Settings, SettingsError, settingsTable } from './settings/index.ts';
import type { Db } from './store/db.ts';

const HELP = `opencube: an open home gateway for the local Open API

Usage:
  opencube start [--port 8081] [--host 0.0.0.0] [--data-dir ./data] [--name NAME] [...]
  opencube link [--data-dir ./data]          press the link button (approve a waiting client)
  opencube tokens [list|revoke ID] [--data-dir ./data]
  opencube passwd [--data-dir ./data]         set the web console's password (ends its sessions)
  opencube reset [--data-dir ./data]          factory reset: clears tokens and devices
  opencube backup FILE [--data-dir ./data]    a backup of the store (also while the gateway runs)
  opencube restore FILE [--data-dir ./data]   restores a backup (a running gateway restarts onto it)
  opencube log-level [LEVEL] [--data-dir ./data]  shows or changes the running gateway's log level
  opencube settings                           print every setting, flag and environment variable
  opencube zigbee ports                       list the serial ports a Zigbee coordinator may be on
  opencube zigbee import DIR [--data-dir ./data]   take over the network of a Zigbee2MQTT data folder

Settings (flags override OPENCUBE_* environment variables, which override defaults):
${settingsTable()}
`;

/** Runs the gateway in this process until SIGINT/SIGTERM, or until a client asks for a restart. */
async function runGateway(settings: Settings): Promise<void> {
  const { createGateway } = await import('./gateway.ts');
  let restarting = false;
  const gateway = createGateway(settings, {
    onRestart: () => {
      restarting = true;
      void shutdown('restart requested');
    },
  });
  let stopping: Promise<void> | undefined;
  const shutdown = (why: string) => {
    if (stopping) return stopping;
    gateway.log.info({ why }, 'stopping');
    stopping = gateway.stop().then(
      () => process.exit(restarting ? RESTART_EXIT_CODE : 0),
      (err) => {
        gateway.log.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
    return stopping;
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // Under the supervisor: its IPC channel closes when it dies, and a gateway nobody supervises
  // would hold the port and the data folder against the next `opencube start`.
  if (process.send) process.on('disconnect', () => void shutdown('supervisor gone'));
  try {
    const url = await gateway.start();
    process.stdout.write(`opencube listening on ${url} (data in ${resolve(settings.data_dir)})\n`);
    // Unless the supervisor died meanwhile: a send on a closed channel would be an uncaught error.
    if (process.connected) process.send?.(LISTENING_MESSAGE);
  } catch (err) {
    gateway.log.fatal({ err }, 'could not start');
    process.stderr.write(`opencube: could not start: ${(err as Error).message}\n`);
    await gateway.stop().catch(() => {});
    process.exit(1);
  }
}

async function viaSocketOrStore<T>(
  settings: Settings,
  socket: () => Promise<T>,
  store: (tokens: TokenService, db: Db) => T | Promise<T>,
): Promise<T> {
  try {
    return await socket();
  } catch (err) {
    if (!(err instanceof (await import('./control/client.ts')).NotRunningError)) throw err;
    const file = join(resolve(settings.data_dir), 'gateway.db');
    // Do not create a store where there is none: the user most likely gave the wrong folder.
    if (!existsSync(file)) throw new Error(`no gateway runs on ${resolve(settings.data_dir)} and it holds no store`);
    const [{ openDb }, { TokenService }] = await Promise.all([import('./store/db.ts'), import('./core/tokens.ts')]);
    const db = openDb(file);
    try {
      return await store(new TokenService(db, settings.link_window_seconds * 1000), db);
    } finally {
      db.close();
    }
  }
}

function printTokens(list: TokenInfo[]): void {
  if (list.length === 0) {
    process.stdout.write('no tokens\n');
    return;
  }
  for (const t of list) {
    process.stdout.write(
      `${t.id}  app=${t.app_name ?? '-'}  created=${t.created_at}  last_used=${t.last_used_at ?? 'never'}\n`,
    );
  }
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof SettingsError || err instanceof UsageError)) throw err;
    process.stderr.write(`opencube: ${err.message}; run "opencube --help" for usage\n`);
    process.exit(2);
  }
  const { command, rest, settings } = parsed;
  const socket = join(resolve(settings.data_dir), 'opencube.sock');
  const controlRequest = async <T>(method: string, path: string, body?: unknown): Promise<T> =>
    (await import('./control/client.ts')).controlRequest<T>(socket, method, path, body);
  switch (command) {
    case 'help':
      process.stdout.write(HELP);
      return;
    case 'settings':
      process.stdout.write(`${settingsTable()}\n`);
      return;
    case 'zigbee': {
      const { zigbeeCommand } = await import('./drivers/herdsman/cli.ts');
      process.exitCode = zigbeeCommand(rest, settings, (s) => process.stdout.write(s));
      return;
    }
    case 'start':
      if (parsed.supervise && process.env.OPENCUBE_SUPERVISED !== '1') {
        supervise({
          entry: fileURLToPath(import.meta.url),
          args: process.argv.slice(2),
          execArgv: gatewayExecArgv(process.execArgv),
          env: process.env,
          exit: (code) => process.exit(code),
          print: (n) => (n.level === 'info' ? process.stdout : process.stderr).write(`${n.text}\n`),
        });
      } else await runGateway(settings);
      return;
    case 'link': {
      const r = await controlRequest<PressResult>('POST', '/link');
      if (r.waiting_apps.length > 0) {
        const names = r.waiting_apps.map((a) => (a === '' ? '(a client without app_name)' : a)).join(', ');
        process.stdout.write(
          `approved: ${names}; they get their token on their next poll (window open until ${r.window_until})\n`,
        );
      } else {
        process.stdout.write(`link window open until ${r.window_until}: start the pairing in your app now\n`);
      }
      return;
    }
    case 'tokens': {
      const sub = rest[0] ?? 'list';
      if (sub === 'list') {
        printTokens(
          await viaSocketOrStore(
            settings,
            () => controlRequest<TokenInfo[]>('GET', '/tokens'),
            (t) => t.list(),
          ),
        );
        return;
      }
      if (sub === 'revoke' && rest[1]) {
        const id = rest[1];
        const r = await viaSocketOrStore(
          settings,
          () => controlRequest<{ revoked: boolean }>('DELETE', `/tokens/${encodeURIComponent(id)}`),
          (t) => ({ revoked: t.revoke(id) }),
        );
        process.stdout.write(r.revoked ? `revoked ${id}\n` : `no token with id ${id}\n`);
        if (!r.revoked) process.exitCode = 1;
        return;
      }
      throw new Error('usage: opencube tokens [list|revoke ID]');
    }
    case 'passwd': {
      const { hashPassword, passwordProblem, storePasswordHash } = await import('./http/console/password.ts');
      const password = await readNewSecret('console password');
      const problem = passwordProblem(password);
      if (problem) throw new Error(problem);
      // Hashed here for the store (when no gateway runs); a running gateway hashes it itself.
      const hash = await hashPassword(password);
      await viaSocketOrStore(
        settings,
        () => controlRequest('POST', '/console/password', { password }),
        (_t, db) => storePasswordHash(db, hash, Date.now()),
      );
      process.stdout.write('console password set; every console session has ended\n');
      return;
    }
    case 'reset': {
      await viaSocketOrStore(
        settings,
        () => controlRequest('POST', '/reset'),
        async (_t, db) => {
          (await import('./core/maintenance/reset.ts')).factoryReset(db);
          return { reset: true };
        },
      );
      process.stdout.write('factory reset done: every token, device and TTS engine is cleared\n');
      return;
    }
    case 'backup':
    case 'restore':
    case 'log-level': {
      const m = await import('./cli/maintenance.ts');
      if (command !== 'log-level' && !rest[0]) throw new Error(`usage: opencube ${command} FILE`);
      process.stdout.write(
        command === 'backup'
          ? await m.backupCommand(settings, socket, rest[0] as string)
          : command === 'restore'
            ? await m.restoreCommand(settings, socket, rest[0] as string)
            : await m.logLevelCommand(socket, rest[0]),
      );
      return;
    }
    default:
      throw new Error(`unknown command "${command}"; run "opencube --help"`);
  }
}

main().catch((err) => {
  process.stderr.write(`opencube: ${(err as Error).message}\n`);
  process.exit(1);
});
