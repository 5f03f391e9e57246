/**
 * `opencube --help` and `opencube help COMMAND` as plain text wrapped to the terminal's width: the
 * settings reference in README.md is a Markdown table, which a terminal shows as a wall of pipes.
 * Everything here is rendered from the command table (commands.ts) and the settings schema, so
 * the help cannot fall behind either.
 */
import { envName, flagName, type SettingDef, settingDefs, settingRange, settingType } from '../settings/index.ts';
import { COMMANDS, type CommandDef } from './commands.ts';
import { asInvoked } from './invocation.ts';

/** The width help is wrapped at: the terminal's, or 80 when the output is not a terminal. */
export function helpWidth(stream: { isTTY?: boolean; columns?: number }): number {
  const columns = stream.isTTY ? stream.columns : undefined;
  // Narrower than 40 columns nothing reads well; wrap there and let the terminal fold the rest.
  return Math.max(40, columns && columns > 0 ? columns : 80);
}

/** `text` wrapped to lines of at most `width` characters. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  const words = text.split(/\s+/).filter((w) => w.length > 0);
  // A word wider than the whole line (a long device path) is cut: a terminal would fold it anyway.
  const pieces = words.flatMap((w) => w.match(new RegExp(`.{1,${width}}`, 'g')) ?? []);
  for (const word of pieces) {
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines.length > 0 ? lines : [''];
}

/** A label and its text: side by side when the label fits the left column, else the text below it. */
function entry(label: string, text: string[], width: number, column: number): string[] {
  const out: string[] = [];
  const indent = ' '.repeat(column);
  const textWidth = Math.max(20, width - column);
  const wrapped = text.flatMap((t) => wrap(t, textWidth));
  if (2 + label.length + 2 <= column) {
    out.push(`  ${label.padEnd(column - 2)}${wrapped[0]}`.trimEnd());
    for (const l of wrapped.slice(1)) out.push(`${indent}${l}`);
  } else {
    // A label wider than the terminal (`--audio-beeps-armed, --no-audio-beeps-armed`) is wrapped too.
    for (const l of wrap(label, width - 2)) out.push(`  ${l}`);
    for (const l of wrapped) out.push(`${indent}${l}`);
  }
  return out;
}

/** The left column: wide enough for most labels, narrow enough to leave the text room. */
function columnFor(width: number): number {
  return width >= 72 ? 28 : 6;
}

/** Markdown code spans read as plain words at a terminal. */
function plain(text: string): string {
  return text.replace(/`/g, '');
}

/** The flag as typed: `--port NUMBER`, `--mdns, --no-mdns`, `--log-format auto|json|pretty`. */
export function flagLabel(def: SettingDef): string {
  const flag = `--${flagName(def)}`;
  switch (settingType(def)) {
    case 'bool':
      return `${flag}, --no-${flagName(def)}`;
    case 'int':
      return `${flag} NUMBER`;
    case 'list':
      return `${flag} LIST`;
    case 'enum': {
      const values = (settingRange(def).values ?? []).join('|');
      return values.length <= 24 ? `${flag} ${values}` : `${flag} VALUE`;
    }
    default:
      return `${flag} TEXT`;
  }
}

function showDefault(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(',');
  if (value === '') return 'empty';
  return String(value);
}

/** Type, allowed values, default and environment variable of a setting, in one sentence. */
export function flagFacts(def: SettingDef): string {
  const type = settingType(def);
  const { min, max, values } = settingRange(def);
  const kind =
    type === 'int'
      ? `integer ${min ?? ''}..${max ?? ''}`
      : type === 'bool'
        ? 'true or false'
        : type === 'enum'
          ? `one of ${(values ?? []).join(', ')}`
          : type === 'list'
            ? 'comma-separated list'
            : 'text';
  return `[${kind}; default ${showDefault(def.default)}; env ${envName(def)}]`;
}

/** Every setting as a flag; `prefix` is how the user runs opencube, for the commands descriptions name. */
function flagLines(width: number, prefix: string): string[] {
  const column = columnFor(width);
  return (settingDefs as readonly SettingDef[]).flatMap((def) =>
    entry(flagLabel(def), [asInvoked(plain(def.description), prefix), flagFacts(def)], width, column),
  );
}

function commandLabel(c: CommandDef): string {
  return `${c.name}${c.usage ? ` ${c.usage}` : ''}`;
}

function commandLines(width: number, prefix: string): string[] {
  const column = columnFor(width);
  return COMMANDS.flatMap((c) =>
    entry(commandLabel(c), [c.summary, `e.g. ${asInvoked(c.example, prefix)}`], width, column),
  );
}

const OWN_FLAGS: readonly [string, string][] = [
  ['-h, --help', 'this help (after a command: the help of that command)'],
  ['-V, --version', 'the version of opencube'],
  [
    '--supervise, --no-supervise',
    'start only: run the gateway under a supervisor that restarts it after a crash [default false]',
  ],
  ['--yes', 'reset only: do it without asking (a script; without a terminal to ask at, reset needs it)'],
];

function ownFlagLines(width: number): string[] {
  const column = columnFor(width);
  return OWN_FLAGS.flatMap(([label, text]) => entry(label, [text], width, column));
}

/** `opencube --help`: the commands, then every flag of `start`; `prefix` is how the user runs opencube (src/cli/invocation.ts). */
export function renderHelp(version: string, width: number, prefix = 'opencube'): string {
  const lines = [
    ...wrap(`opencube ${version}: an open home gateway that serves the local Open API of a smart-home gateway.`, width),
    '',
    ...wrap(`Usage: ${prefix} [COMMAND] [WORDS] [FLAGS]`, width),
    '',
    'Commands:',
    ...commandLines(width, prefix),
    '',
    'Flags:',
    ...ownFlagLines(width),
    '',
    ...wrap(
      'Settings of start (each is also an environment variable; a flag wins over the environment, which wins over the default):',
      width,
    ),
    ...flagLines(width, prefix),
    '',
    ...wrap(asInvoked('Run "opencube help COMMAND" for one command.', prefix), width),
  ];
  return `${lines.join('\n')}\n`;
}

/** `opencube help COMMAND`; undefined when there is no such command. */
export function renderCommandHelp(name: string, width: number, prefix = 'opencube'): string | undefined {
  const c = COMMANDS.find((x) => x.name === name);
  if (!c) return undefined;
  const lines = [
    ...wrap(`opencube ${commandLabel(c)}: ${c.summary}`, width),
    '',
    ...(c.details ? [...wrap(asInvoked(plain(c.details), prefix), width), ''] : []),
    'Example:',
    `  ${asInvoked(c.example, prefix)}`,
  ];
  if (c.name === 'start')
    lines.push('', 'Flags:', ...ownFlagLines(width), '', 'Settings:', ...flagLines(width, prefix));
  else if (c.name !== 'help' && c.name !== 'settings') {
    const column = columnFor(width);
    lines.push(
      '',
      'Flags:',
      ...entry('--data-dir TEXT', ['the data folder of the gateway [default ./data]'], width, column),
    );
    if (c.name === 'reset')
      lines.push(...entry('--yes', ['do it without asking (needed without a terminal)'], width, column));
  }
  return `${lines.join('\n')}\n`;
}

/** `opencube settings`: every setting with its flag, environment variable, type and default. */
export function renderSettings(width: number, prefix = 'opencube'): string {
  return `${flagLines(width, prefix).join('\n')}\n`;
}
