/**
 * How the person who started this process runs `opencube`, so that every command the gateway and
 * the CLI print works as printed (issue 23): `opencube` is on the PATH only after a global
 * install. In a clone it is `npm run opencube --` (npm runs it in the package's folder, whatever
 * folder the user is in); under the systemd unit it is `node /opt/opencube/bin/opencube.js`, as the
 * service's user; started as `node bin/opencube.js`, it is that. A supervised gateway is told the
 * form its supervisor was started with (OPENCUBE_COMMAND), since it runs from dist/ itself.
 */
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';
import { COMMANDS } from './commands.ts';

/** The environment variable a supervisor gives its gateway: the form it was started with. */
export const COMMAND_ENV = 'OPENCUBE_COMMAND';

/** What a command line is built from. */
export interface Invocation {
  /** The words before a command: `opencube`, `npm run opencube --`, `node /opt/opencube/bin/opencube.js`. */
  prefix: string;
  /** The form runs in the package's folder whatever the user's folder (npm run): `./data` means the same there. */
  packageCwd: boolean;
  /** The folder `./data` is resolved against by that form (the package's, for npm run). */
  cwd: string;
}

/** What the form is worked out from (the process's, or a test's). */
export interface InvocationFacts {
  env: Record<string, string | undefined>;
  /** The script node runs (process.argv[1]). */
  script: string;
  /** Node's own flags (process.execArgv): a loader (`--import tsx`) is part of the form. */
  execArgv: readonly string[];
  cwd: string;
  /** The package's folder (where bin/opencube.js is). */
  packageRoot: string;
  /** The user the process runs as. */
  user: string;
  uid: number;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Whether `opencube` on the PATH is this package's command (a global install, or `npm link`). */
function onPath(env: InvocationFacts['env'], bin: string): boolean {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, 'opencube');
    if (existsSync(candidate) && real(candidate) === bin) return true;
  }
  return false;
}

/** A path as a user would type it: relative when it is under the working folder, else absolute. */
function typed(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return cwd !== '/' && rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** Quotes a word for a POSIX shell when it needs it. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The form of `opencube` for the person who started this process. */
export function invocationOf(f: InvocationFacts): Invocation {
  const given = f.env[COMMAND_ENV];
  if (given)
    return {
      prefix: given,
      packageCwd: given.startsWith('npm '),
      cwd: given.startsWith('npm ') ? f.packageRoot : f.cwd,
    };
  // npm runs a package's scripts in the package's folder and says which script it runs.
  const script = f.env.npm_lifecycle_event;
  if (f.env.npm_package_name === 'opencube' && script && ['start', 'opencube', 'dev'].includes(script))
    return {
      prefix: script === 'dev' ? 'npm run dev --' : 'npm run opencube --',
      packageCwd: true,
      cwd: f.packageRoot,
    };
  const bin = real(join(f.packageRoot, 'bin', 'opencube.js'));
  if (onPath(f.env, bin)) return { prefix: 'opencube', packageCwd: false, cwd: f.cwd };
  // A loader given to node (tsx) is needed again to run the same script.
  const loader: string[] = [];
  for (let i = 0; i < f.execArgv.length; i++) {
    const a = f.execArgv[i] as string;
    if ((a === '--import' || a === '--require' || a === '-r' || a === '--loader') && f.execArgv[i + 1] !== undefined)
      loader.push(a, f.execArgv[++i] as string);
    else if (/^--(import|require|loader)=/.test(a)) loader.push(a);
  }
  const node = ['node', ...loader, typed(f.script, f.cwd)].map(shellWord).join(' ');
  // Under systemd the service has its own user; whoever reads the journal runs commands as it.
  const service = f.env.INVOCATION_ID !== undefined && f.uid !== 0;
  return { prefix: service ? `sudo -u ${shellWord(f.user)} ${node}` : node, packageCwd: false, cwd: f.cwd };
}

/** This process's form. */
export async function thisInvocation(packageRoot: string): Promise<Invocation> {
  const os = await import('node:os');
  const info = os.userInfo();
  return invocationOf({
    env: process.env,
    script: process.argv[1] ?? '',
    execArgv: process.execArgv,
    cwd: process.cwd(),
    packageRoot,
    user: info.username,
    uid: info.uid,
  });
}

/**
 * `words` (`link`, `matter codes`) as the user types them, with `--data-dir` when the gateway's
 * data folder is not the one the command would find by itself (`./data` of the form's folder).
 */
export function commandLine(inv: Invocation, words: string, dataDir: string): string {
  const own = resolve(dataDir) === resolve(inv.cwd, 'data') && inv.packageCwd;
  return `${inv.prefix} ${words}${own ? '' : ` --data-dir ${shellWord(resolve(dataDir))}`}`;
}

const COMMAND_WORDS = new Set([...COMMANDS.map((c) => c.name), '--help', '-h', '--version']);

/**
 * `text` with every `opencube COMMAND` written in the user's form (`npm run opencube -- COMMAND`):
 * the messages, usage lines and examples of the CLI are written once, with `opencube`.
 */
export function asInvoked(text: string, prefix: string): string {
  if (prefix === 'opencube') return text;
  return text.replace(/(^|[\s"'`(])opencube ([\w-]+)(?=[\s"'`),;.]|$)/gm, (all, before: string, word: string) =>
    COMMAND_WORDS.has(word) ? `${before}${prefix} ${word}` : all,
  );
}
