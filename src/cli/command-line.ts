/** The `opencube` command line as the CLI reads it (commands, flags from the settings schema). */
import { flagName, loadSettings, type SettingDef, type Settings, settingDefs } from '../settings/index.ts';
import { type CommandSpec, type FlagSpec, parseArgs } from './args.ts';

export const COMMANDS: CommandSpec[] = [
  { name: 'start', maxWords: 0 },
  { name: 'link', maxWords: 0 },
  { name: 'tokens', maxWords: 2 },
  { name: 'reset', maxWords: 0 },
  { name: 'passwd', maxWords: 0 },
  { name: 'backup', maxWords: 1 },
  { name: 'restore', maxWords: 1 },
  { name: 'log-level', maxWords: 1 },
  { name: 'settings', maxWords: 0 },
  { name: 'zigbee', maxWords: 2 },
  { name: 'help', maxWords: 1 },
];

/** Reads the command line: the command, its words, the settings (defaults < environment < flags), supervision. */
export function parseCommandLine(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): { command: string; rest: string[]; settings: Settings; supervise: boolean } {
  const specs: FlagSpec[] = [
    { name: 'help', type: 'boolean' },
    { name: 'supervise', type: 'boolean' },
  ];
  for (const def of settingDefs as readonly SettingDef[])
    specs.push({ name: flagName(def), type: def.type === 'bool' ? 'boolean' : 'string' });
  const { command, words, flags } = parseArgs(argv, specs, COMMANDS, 'start');
  const { help, supervise, ...settingFlags } = flags;
  const settings = loadSettings({ flags: settingFlags, env });
  return { command: help ? 'help' : command, rest: words, settings, supervise: supervise !== false };
}
