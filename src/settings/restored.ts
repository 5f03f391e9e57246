/**
 * The settings a backup carries, as lines for `settings-from-backup.env` (docs/operations.md: the
 * user copies the ones they want into /etc/default/opencube, which systemd reads and shells may
 * source). A backup is a file anyone could have crafted (issue 24), so only what a setting of this
 * release can be gets through: a known variable (not the data folder), a value its schema accepts,
 * no line break or control character, single-quoted (and so no single quote in it) so that
 * neither systemd nor a shell reads anything into it. A setting that names a program to run is
 * written commented out: there to read, not to use unseen. Everything left out is said, with why.
 */
import { envName, parseValue, type SettingDef, SettingsError, settingDefs } from './index.ts';

export interface RestoredSettings {
  /** Lines of the file, comments included. */
  lines: string[];
  /** Variables left out, and why (for the command's output). */
  left: { name: string; why: string }[];
}

/** Checks the settings a backup recorded (variable -> value) and words them as file lines. */
export function restoredSettings(recorded: unknown): RestoredSettings {
  const out: RestoredSettings = { lines: [], left: [] };
  if (recorded === null || typeof recorded !== 'object' || Array.isArray(recorded)) return out;
  const byName = new Map((settingDefs as readonly SettingDef[]).map((d) => [envName(d), d]));
  for (const [rawName, raw] of Object.entries(recorded)) {
    const name = rawName.replace(/[^\w]/g, '?').slice(0, 80);
    const def = byName.get(rawName);
    const leave = (why: string) => out.left.push({ name, why });
    if (!def || def.key === 'data_dir') {
      leave(def ? 'the data folder is where the backup is restored' : 'not a setting of opencube');
      continue;
    }
    const value = String(raw);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (/[\u0000-\u001f\u007f]/.test(value)) {
      leave('a line break or control character');
      continue;
    }
    if (value.includes("'")) {
      leave('a single quote, which the file cannot hold safely');
      continue;
    }
    try {
      parseValue(def, value, 'the backup');
    } catch (err) {
      if (!(err instanceof SettingsError)) throw err;
      leave(err.message);
      continue;
    }
    const line = `${rawName}='${value}'`;
    if (def.runs) out.lines.push(`# ${def.key} runs a program: check it before you use it`, `# ${line}`);
    else out.lines.push(line);
  }
  return out;
}
