/**
 * The `opencube` command. `start` runs the gateway in this process, and restarts it in this
 * process when a client asks (G8 reboot, a restore); with `--supervise`, under a small supervisor
 * process (src/cli/supervisor.ts) that starts it again when it crashed;
 * `link`, `tokens` and `reset` talk to the running gateway over its control socket (or, when none
 * runs, to the store directly).
 *
 * `start` first checks what would stop the gateway (src/cli/preflight.ts): each problem is one
 * line and exit code 78, which the supervisor does not retry. Once it listens, the banner
 * (src/cli/banner.ts) says where clients and the console reach it.
 *
 * Only the command line and the supervisor are imported here; the gateway and the store are
 * imported when a command needs them, so that the supervisor process loads none of them.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import { UsageError } from './cli/args.ts';
import { parseCommandLine } from './cli/command-line.ts';
import { asInvoked, COMMAND_ENV, commandLine, type Invocation, thisInvocation } from './cli/invocation.ts';
import { readNewSecret } from './cli/read-secret.ts';
import { CONFIG_EXIT_CODE, gatewayExecArgv, LISTENING_MESSAGE, supervise } from './cli/supervisor.ts';
import type { PressResult, TokenInfo, TokenService } from './core/tokens.ts';
import type { Clock } from './lib/clock.ts';
import { PACKAGE_ROOT } from './lib/package-root.ts';
import { type Settings, SettingsError } from './settings/index.ts';
import type { Db } from './store/db.ts';

/**
 * How the user runs `opencube` (a clone: `npm run opencube --`): every command this process prints
 * is written in that form (src/cli/invocation.ts).
 */
const invoked: Promise<Invocation> = thisInvocation(PACKAGE_ROOT);

/** Text for the user, with each `opencube COMMAND` in the form they run it. */
async function forUser(text: string): Promise<string> {
  return asInvoked(text, (await invoked).prefix);
}

/** Prints the one line of a start-up failure and ends the process with `code`. */
async function startFailed(line: string, code: number): Promise<never> {
  process.stderr.write(await forUser(`opencube: ${line}\n`));
  process.exit(code);
}

/** An error's message without secrets (an MQTT URL's password): it goes to the terminal, not through the logger. */
async function safeMessage(err: unknown): Promise<string> {
  return (await import('./lib/redact.ts')).redactText((err as Error)?.message ?? String(err));
}

/**
 * The clock tests of the real process drive (OPENCUBE_TEST_CLOCK, src/cli/test-clock.ts), or
 * undefined: the system clock. Only the source tree takes it: a build (dist/, where
 * scripts/build.mjs sets OPENCUBE_BUILD) refuses it and has none of its code.
 */
async function testClock(): Promise<Clock | undefined> {
  const value = process.env.OPENCUBE_TEST_CLOCK;
  if (value === undefined || value === '') return undefined;
  if (process.env.OPENCUBE_BUILD === 'dist') {
    return startFailed(
      'OPENCUBE_TEST_CLOCK is for tests of the source tree; a build of opencube does not take it',
      CONFIG_EXIT_CODE,
    );
  } else {
    const { stdinClock, testClockProblem } = await import('./cli/test-clock.ts');
    const problem = testClockProblem(value);
    return problem ? startFailed(problem, CONFIG_EXIT_CODE) : stdinClock(Number(value));
  }
}

/**
 * Runs the gateway in this process until SIGINT/SIGTERM. A restart a client asks for (G8, a
 * restore) happens here too: the gateway stops, and a new one is built from the same settings and
 * started, in the same process (as Zigbee2MQTT restarts): a second node process only to restart
 * would double the memory of an idle box (docs/benchmarks.md).
 */
async function runGateway(settings: Settings): Promise<void> {
  // Before anything starts: a port in use or a data folder that is a file is one line, not a
  // stack trace after the simulated network started.
  // The gateway's code loads while the checks wait on the file system and the network; nothing
  // of it runs before they pass (a module's top level builds no service).
  const gatewayModule = import('./gateway.ts');
  gatewayModule.catch(() => {}); // a failed check exits first; the load's own failure is reported below
  const preflight = await import('./cli/preflight.ts');
  const problem = await preflight.checkStart(settings);
  if (problem) await startFailed(problem, CONFIG_EXIT_CODE);
  const { createGateway } = await gatewayModule;
  const clock = await testClock();
  type Gateway = ReturnType<typeof createGateway>;
  /** What the process does now: a stop waits for a restart under way, then stops what it built. */
  let turn: Promise<void> = Promise.resolve();
  let stopping = false;
  let restarting = false;

  /**
   * After a start that failed on a store just restored: puts it aside and the store there was
   * back (src/core/maintenance/store-restore.ts), says so, and returns true; false when the
   * store was no fresh restore.
   */
  const rolledBack = async (err: unknown): Promise<boolean> => {
    const { rollBackRestore } = await import('./core/maintenance/store-restore.ts');
    const failed = rollBackRestore(join(resolve(settings.data_dir), 'gateway.db'));
    if (!failed) return false;
    process.stderr.write(
      await forUser(
        `opencube: the restored store did not start (${await safeMessage(err)}): it is kept as ${failed}, and the store there was is back\n`,
      ),
    );
    return true;
  };
  const build = async (): Promise<Gateway> => {
    try {
      const inv = await invoked;
      return createGateway(settings, {
        ...(clock ? { clock } : {}),
        onRestart: () => restart(),
        cliCommand: (words) => commandLine(inv, words, settings.data_dir),
      });
    } catch (err) {
      if (await rolledBack(err)) return build();
      return startFailed(`could not start: ${await safeMessage(err)}`, 1);
    }
  };
  const launch = async (gateway: Gateway): Promise<void> => {
    try {
      const url = await gateway.start();
      const port = Number(new URL(url).port);
      const [{ listeningLine }, { networkInterfaces }] = await Promise.all([
        import('./cli/banner.ts'),
        import('node:os'),
      ]);
      process.stdout.write(`${listeningLine(settings.host, port, networkInterfaces(), resolve(settings.data_dir))}\n`);
      await printBanner(gateway, settings, port);
      // The supervisor may die at any moment, even between the check and the write: a send on a
      // closed channel then fails in the callback (the 'disconnect' handler stops the gateway),
      // where without one it would be an uncaught error that kills the gateway uncleanly.
      if (process.connected) process.send?.(LISTENING_MESSAGE, undefined, {}, () => {});
    } catch (err) {
      // The line first; the stack only for whoever asked for debug.
      const config = preflight.portProblem(err, settings.host, settings.port);
      process.stderr.write(await forUser(`opencube: ${config ?? `could not start: ${await safeMessage(err)}`}\n`));
      gateway.log.debug({ err }, 'could not start');
      await gateway.stop().catch(() => {});
      if (await rolledBack(err)) return launch(await build());
      process.exit(config ? CONFIG_EXIT_CODE : 1);
    }
  };
  const stopOrExit = (gateway: Gateway): Promise<void> =>
    gateway.stop().catch((err) => {
      gateway.log.error({ err }, 'stop failed');
      process.exit(1);
    });

  let gateway = await build();
  const restart = () => {
    if (stopping || restarting) return;
    restarting = true;
    turn = turn.then(async () => {
      gateway.log.info({ why: 'restart requested' }, 'stopping');
      await stopOrExit(gateway);
      if (stopping) return;
      process.stdout.write('opencube: restarting\n');
      gateway = await build();
      restarting = false;
      await launch(gateway);
    });
  };
  const shutdown = (why: string) => {
    if (stopping) return;
    stopping = true;
    turn = turn.then(async () => {
      gateway.log.info({ why }, 'stopping');
      await stopOrExit(gateway);
      process.exit(0);
    });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // Under the supervisor: its IPC channel closes when it dies, and a gateway nobody supervises
  // would hold the port and the data folder against the next `opencube start`.
  if (process.send) process.on('disconnect', () => shutdown('supervisor gone'));
  turn = turn.then(() => launch(gateway));
}

/** The start-up banner at `info`: readable lines at a terminal, one JSON entry in a JSON log. */
async function printBanner(gateway: { log: Logger }, settings: Settings, port: number): Promise<void> {
  if (!gateway.log.isLevelEnabled('info')) return;
  const [{ bannerFacts, bannerLines }, { networkInterfaces }, { resolveLogFormat }] = await Promise.all([
    import('./cli/banner.ts'),
    import('node:os'),
    import('./lib/logger.ts'),
  ]);
  const facts = bannerFacts(
    settings,
    port,
    networkInterfaces(),
    pkg.version,
    resolve(settings.data_dir),
    commandLine(await invoked, 'link', settings.data_dir),
  );
  if (resolveLogFormat(settings.log_format, process.stderr.isTTY === true) === 'pretty')
    process.stderr.write(`${bannerLines(facts).join('\n')}\n`);
  else
    gateway.log.info(
      {
        open_api: facts.openApi,
        urls: facts.urls,
        console: facts.console,
        approve: facts.approve,
        zigbee: facts.zigbee,
      },
      'opencube is running',
    );
}

async function viaSocketOrStore<T>(
  settings: Settings,
  socket: () => Promise<T>,
  store: (tokens: TokenService, db: Db) => T | Promise<T>,
): Promise<T> {
  try {
    return await socket();
  } catch (err) {
    if (!(err instanceof (await import('./lib/control-client.ts')).NotRunningError)) throw err;
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
    process.stderr.write(await forUser(`opencube: ${err.message}; run "opencube --help" for usage\n`));
    process.exit(2);
  }
  const { command, rest, settings } = parsed;
  const socket = join(resolve(settings.data_dir), 'opencube.sock');
  /** Writes to stdout with each `opencube COMMAND` in the user's form. */
  const out = async (text: string) => process.stdout.write(await forUser(text));
  const controlRequest = async <T>(method: string, path: string, body?: unknown): Promise<T> =>
    (await import('./lib/control-client.ts')).controlRequest<T>(socket, method, path, body);
  switch (command) {
    case 'help': {
      const help = await import('./cli/help.ts');
      const width = help.helpWidth(process.stdout);
      const { prefix } = await invoked;
      await out(
        rest[0] === undefined
          ? help.renderHelp(pkg.version, width, prefix)
          : (help.renderCommandHelp(rest[0], width, prefix) as string),
      );
      return;
    }
    case 'version':
      process.stdout.write(`opencube ${pkg.version}\n`);
      return;
    case 'settings':
      {
        const help = await import('./cli/help.ts');
        await out(help.renderSettings(help.helpWidth(process.stdout), (await invoked).prefix));
      }
      return;
    case 'zigbee': {
      const { zigbeeCommand } = await import('./drivers/herdsman/cli.ts');
      const { prefix } = await invoked;
      process.exitCode = zigbeeCommand(rest, settings, (s) => process.stdout.write(asInvoked(s, prefix)));
      return;
    }
    case 'start':
      // Off by default: a supervisor is a second node process, as big as a bare node (systemd
      // restarts a crashed gateway on a box; docs/operations.md).
      if (parsed.supervise && process.env.OPENCUBE_SUPERVISED !== '1') {
        supervise({
          entry: fileURLToPath(import.meta.url),
          args: process.argv.slice(2),
          execArgv: gatewayExecArgv(process.execArgv),
          // The gateway runs from dist/ itself: it is told the form the user started this with.
          env: { ...process.env, [COMMAND_ENV]: (await invoked).prefix },
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
      const dir = resolve(settings.data_dir);
      if (!parsed.yes) {
        const { canAsk, confirm } = await import('./cli/confirm.ts');
        // A script, a pipe or a service has nobody to ask: it says --yes, or nothing is cleared.
        if (!canAsk())
          throw new Error(
            `reset clears every token, device and TTS engine of the gateway on ${dir}: add --yes to do it (there is no terminal to ask)`,
          );
        const yes = await confirm(
          `Factory reset of the gateway on ${dir}: every token, device and TTS engine is cleared. Go on? [y/N] `,
        );
        if (!yes) {
          process.stdout.write('not reset: nothing changed\n');
          process.exitCode = 1;
          return;
        }
      }
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
      await out(
        command === 'backup'
          ? await m.backupCommand(settings, socket, rest[0] as string)
          : command === 'restore'
            ? await m.restoreCommand(settings, socket, rest[0] as string)
            : await m.logLevelCommand(socket, rest[0]),
      );
      return;
    }
    case 'matter': {
      const word = rest[0];
      if (word !== undefined && word !== 'codes' && word !== 'open' && word !== 'close')
        throw new Error('usage: opencube matter [codes | open | close]');
      const { matterCommand } = await import('./integrations/matter/cli.ts');
      const pairing = word === 'open' || word === 'close' ? { pairing: word as 'open' | 'close' } : {};
      await out(await matterCommand(socket, { drawQr: word !== 'codes' && word !== 'close', ...pairing }));
      return;
    }
    default:
      throw new Error(`unknown command "${command}"; run "opencube --help"`);
  }
}

main().catch(async (err) => {
  process.stderr.write(await forUser(`opencube: ${(err as Error).message}\n`));
  process.exit(1);
});
