/**
 * The command line of `opencube`: a command, its words, and flags. Every flag takes
 * `--flag value` and `--flag=value`; a boolean flag also stands alone (`--mdns`), takes a boolean
 * word after it (`--mdns false`) and has a `--no-` form (`--no-mdns`). An unknown flag, a missing
 * value or a stray word is an error that names it (never silently ignored: `--mdns false` once
 * left mDNS on and `false` unread).
 */

/** How one flag reads its value. */
export interface FlagSpec {
  name: string;
  type: 'string' | 'boolean';
}

/** A command and how many words it takes after its name. */
export interface CommandSpec {
  name: string;
  /** The most words after the command (`tokens revoke ID`: 2). */
  maxWords: number;
}

export interface ParsedArgs {
  command: string;
  /** Whether the command was given (false: it is the default). */
  commandGiven: boolean;
  words: string[];
  /** Flag values by flag name: strings as given, booleans as booleans. */
  flags: Record<string, string | boolean>;
}

export class UsageError extends Error {}

const BOOLEAN_WORDS = new Map<string, boolean>([
  ['true', true],
  ['yes', true],
  ['on', true],
  ['1', true],
  ['false', false],
  ['no', false],
  ['off', false],
  ['0', false],
]);

/** Parses `argv` (without node and the script); the command defaults to `defaultCommand`. */
export function parseArgs(
  argv: readonly string[],
  flags: readonly FlagSpec[],
  commands: readonly CommandSpec[],
  defaultCommand: string,
): ParsedArgs {
  const byName = new Map(flags.map((f) => [f.name, f]));
  const out: ParsedArgs = { command: '', commandGiven: false, words: [], flags: {} };
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    if (arg === '-h' || arg === '-V') {
      out.flags[arg === '-h' ? 'help' : 'version'] = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    let spec = byName.get(name);
    if (!spec && name.startsWith('no-')) {
      const negated = byName.get(name.slice(3));
      if (negated?.type === 'boolean') {
        if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
        out.flags[negated.name] = false;
        continue;
      }
    }
    if (!spec) throw new UsageError(`unknown option --${name}`);
    if (spec.type === 'boolean') {
      if (inline !== undefined) {
        const v = BOOLEAN_WORDS.get(inline.toLowerCase());
        if (v === undefined) throw new UsageError(`--${name}: ${JSON.stringify(inline)} is not true or false`);
        out.flags[spec.name] = v;
        continue;
      }
      const next = argv[i + 1];
      const v = next === undefined ? undefined : BOOLEAN_WORDS.get(next.toLowerCase());
      if (v !== undefined) i++;
      out.flags[spec.name] = v ?? true;
      continue;
    }
    if (inline !== undefined) {
      out.flags[spec.name] = inline;
      continue;
    }
    const next = argv[i + 1];
    if (next === undefined || (next.startsWith('--') && next.length > 2))
      throw new UsageError(`--${name} needs a value`);
    out.flags[spec.name] = next;
    i++;
    spec = undefined;
  }
  const command = positionals[0] ?? defaultCommand;
  const known = commands.find((c) => c.name === command);
  if (!known) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  const words = positionals.slice(1);
  if (words.length > known.maxWords) {
    const stray = words.slice(known.maxWords);
    throw new UsageError(
      `unexpected ${stray.length === 1 ? 'word' : 'words'} ${stray.map((w) => JSON.stringify(w)).join(' ')}`,
    );
  }
  out.command = command;
  out.commandGiven = positionals.length > 0;
  out.words = words;
  return out;
}
