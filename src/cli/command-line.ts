/** The `opencube` command line as the CLI reads it (commands from commands.ts, flags from the settings schema). */
import { flagName, loadSettings, type SettingDef, type Settings, settingDefs, settingType } from '../settings/index.ts';
import { type FlagSpec, parseArgs, UsageError } from './args.ts';
import { COMMANDS } from './commands.ts';

export { COMMANDS } from './commands.ts';

/**
 * Reads the command line: the command, its words, the settings (defaults < environment < flags),
 * supervision. `--help` after a command asks for that command's help (`help COMMAND`); `--version`
 * (or `-V`) is the command `version`.
 */
export function parseCommandLine(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): { command: string; rest: string[]; settings: Settings; supervise: boolean; yes: boolean } {
  const specs: FlagSpec[] = [
    { name: 'help', type: 'boolean' },
    { name: 'version', type: 'boolean' },
    { name: 'supervise', type: 'boolean' },
    { name: 'yes', type: 'boolean' },
  ];
  for (const def of settingDefs as readonly SettingDef[])
    specs.push({ name: flagName(def), type: settingType(def) === 'bool' ? 'boolean' : 'string' });
  const { command, commandGiven, words, flags } = parseArgs(argv, specs, COMMANDS, 'start');
  const { help, version, supervise, yes, ...settingFlags } = flags;
  if (help || version || command === 'help') {
    const topic = command === 'help' ? words[0] : commandGiven ? command : undefined;
    if (topic !== undefined && !COMMANDS.some((c) => c.name === topic))
      throw new UsageError(`no command ${JSON.stringify(topic)} to help with`);
    // Help needs no settings: a bad OPENCUBE_* variable must not hide the help that explains it.
    return {
      command: version && !help ? 'version' : 'help',
      rest: topic === undefined ? [] : [topic],
      settings: loadSettings(),
      supervise: false,
      yes: false,
    };
  }
  const settings = loadSettings({ flags: settingFlags, env });
  return { command, rest: words, settings, supervise: supervise === true, yes: yes === true };
}
