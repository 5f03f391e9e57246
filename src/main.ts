/**
 * The `opencube` command. `start` runs the gateway under a small supervisor process that
 * restarts it when it asks to (G8 reboot: exit code 75); `link`, `tokens` and `reset` talk to
 * the running gateway over its control socket (or, when none runs, to the store directly).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from './cli/args.ts';
import { parseCommandLine } from './cli/command-line.ts';
import { controlRequest, NotRunningError } from './control/client.ts';
import { factoryReset } from './core/maintenance/reset.ts';
import type { PressResult, TokenInfo } from './core/tokens.ts';
import { TokenService } from './core/tokens.ts';
import { createGateway } from './gateway.ts';
import { type Settings, SettingsError, settingsTable } from './settings/index.ts';
import { type Db, openDb } from './store/db.ts';

/** Exit code with which the gateway asks its supervisor for a restart. */
export const RESTART_EXIT_CODE = 75;

const HELP = `opencube: an open home gateway for the local Open API

Usage:
  opencube start [--port 8081] [--host 0.0.0.0] [--data-dir ./data] [--name NAME] [...]
  opencube link [--data-dir ./data]          press the link button (approve a waiting client)
  opencube tokens [list|revoke ID] [--data-dir ./data]
  opencube reset [--data-dir ./data]          factory reset: clears tokens and devices
  opencube backup FILE [--data-dir ./data]    a backup of the store (also while the gateway runs)
  opencube restore FILE [--data-dir ./data]   restores a backup (a running gateway restarts onto it)
  opencube log-level [LEVEL] [--data-dir ./data]  shows or changes the running gateway's log level
  opencube settings                           print every setting, flag and environment variable

Settings (flags override OPENCUBE_* environment variables, which override defaults):
${settingsTable()}
`;

/** Runs the gateway in this process until SIGINT/SIGTERM, or until a client asks for a restart. */
async function runGateway(settings: Settings): Promise<void> {
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
  try {
    const url = await gateway.start();
    process.stdout.write(`opencube listening on ${url} (data in ${resolve(settings.data_dir)})\n`);
  } catch (err) {
    gateway.log.fatal({ err }, 'could not start');
    process.stderr.write(`opencube: could not start: ${(err as Error).message}\n`);
    await gateway.stop().catch(() => {});
    process.exit(1);
  }
}

/**
 * Supervises the gateway in a child process: restarts it when it exits with RESTART_EXIT_CODE,
 * forwards SIGINT/SIGTERM, and exits with the child's code otherwise.
 */
function supervise(): void {
  const args = [...process.execArgv, process.argv[1] as string, ...process.argv.slice(2), '--no-supervise'];
  let child: ReturnType<typeof spawn>;
  let stopping = false;
  const run = () => {
    child = spawn(process.execPath, args, { stdio: 'inherit', env: { ...process.env, OPENCUBE_SUPERVISED: '1' } });
    child.on('exit', (code, signal) => {
      if (!stopping && code === RESTART_EXIT_CODE) {
        process.stdout.write('opencube: restarting\n');
        run();
        return;
      }
      process.exit(code ?? (signal ? 1 : 0));
    });
  };
  const forward = (sig: NodeJS.Signals) => {
    stopping = true;
    child.kill(sig);
  };
  process.on('SIGINT', () => forward('SIGTERM'));
  process.on('SIGTERM', () => forward('SIGTERM'));
  run();
}

async function viaSocketOrStore<T>(
  settings: Settings,
  socket: () => Promise<T>,
  store: (tokens: TokenService, db: Db) => T,
): Promise<T> {
  try {
    return await socket();
  } catch (err) {
    if (!(err instanceof NotRunningError)) throw err;
    const file = join(resolve(settings.data_dir), 'gateway.db');
    // Do not create a store where there is none: the user most likely gave the wrong folder.
    if (!existsSync(file)) throw new Error(`no gateway runs on ${resolve(settings.data_dir)} and it holds no store`);
    const db = openDb(file);
    try {
      return store(new TokenService(db, settings.link_window_seconds * 1000), db);
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
  switch (command) {
    case 'help':
      process.stdout.write(HELP);
      return;
    case 'settings':
      process.stdout.write(`${settingsTable()}\n`);
      return;
    case 'start':
      if (parsed.supervise && process.env.OPENCUBE_SUPERVISED !== '1') supervise();
      else await runGateway(settings);
      return;
    case 'link': {
      const r = await controlRequest<PressResult>(socket, 'POST', '/link');
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
            () => controlRequest<TokenInfo[]>(socket, 'GET', '/tokens'),
            (t) => t.list(),
          ),
        );
        return;
      }
      if (sub === 'revoke' && rest[1]) {
        const id = rest[1];
        const r = await viaSocketOrStore(
          settings,
          () => controlRequest<{ revoked: boolean }>(socket, 'DELETE', `/tokens/${encodeURIComponent(id)}`),
          (t) => ({ revoked: t.revoke(id) }),
        );
        process.stdout.write(r.revoked ? `revoked ${id}\n` : `no token with id ${id}\n`);
        if (!r.revoked) process.exitCode = 1;
        return;
      }
      throw new Error('usage: opencube tokens [list|revoke ID]');
    }
    case 'reset': {
      await viaSocketOrStore(
        settings,
        () => controlRequest(socket, 'POST', '/reset'),
        (_t, db) => {
          factoryReset(db);
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
