/**
 * Settings the console changes while the gateway runs (those the schema marks `live`): the
 * gateway's name, the event beeps and their volume. A value set in the console is kept in the
 * store and, like the console's Matter switch, wins over the flag and the environment at the next
 * starts: the person who changed it in the console expects to find it so after a restart.
 */
import { type Actor, byWords, whoFields } from '../core/actor.ts';
import type { EventBus } from '../core/event-bus.ts';
import type { Log } from '../lib/log.ts';
import {
  getPath,
  parseValue,
  type SettingDef,
  type Settings,
  SettingsError,
  setPath,
  settingDefs,
  settingType,
} from './index.ts';

/** Where the store keeps what the console set (a JSON value per setting). */
export interface LiveStore {
  get<T>(key: string, fallback: T): T;
  set(key: string, value: unknown): void;
}

/** The longest gateway name: it is an mDNS instance name (63 bytes at most) and a console heading. */
export const NAME_MAX = 63;

const storeKey = (key: string) => `setting.${key}`;

/** The settings the console may change while the gateway runs. */
export const liveDefs: readonly SettingDef[] = (settingDefs as readonly SettingDef[]).filter((d) => d.live);

/** Whether a setting can be changed while the gateway runs. */
export function isLive(key: string): boolean {
  return liveDefs.some((d) => d.key === key);
}

export type LiveCheck = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * A value for a live setting as the console sends it, checked strictly (JSON types, no "yes" for
 * true as the environment allows): the value, or why not in words.
 */
export function checkLive(key: string, raw: unknown): LiveCheck {
  const def = liveDefs.find((d) => d.key === key);
  if (!def) return { ok: false, message: `${key}: not a setting the console can change while the gateway runs` };
  const got = JSON.stringify(raw) ?? String(raw);
  const type = settingType(def);
  if (type === 'bool' && typeof raw !== 'boolean')
    return { ok: false, message: `${key}: expected true or false, got ${got}` };
  if (type === 'int' && !Number.isInteger(raw))
    return { ok: false, message: `${key}: expected a whole number, got ${got}` };
  if (type === 'string') {
    if (typeof raw !== 'string') return { ok: false, message: `${key}: expected a text, got ${got}` };
    // A name is shown in headings and advertised over mDNS: one line of visible text.
    if (raw.trim() === '') return { ok: false, message: `${key}: must not be empty` };
    if (raw.length > NAME_MAX) return { ok: false, message: `${key}: longer than ${NAME_MAX} characters` };
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
    if (/[\u0000-\u001f\u007f]/.test(raw)) return { ok: false, message: `${key}: contains a control character` };
    raw = raw.trim();
  }
  try {
    return { ok: true, value: parseValue(def, raw, 'the console') };
  } catch (err) {
    if (err instanceof SettingsError) return { ok: false, message: err.message.replace(' (from the console)', '') };
    throw err;
  }
}

/**
 * Puts what the console set (kept in the store) into `settings`, at start. A stored value that is
 * no longer valid (a later version narrowed a range) is left out; its key is returned to be logged.
 */
export function applyStoredSettings(settings: Settings, store: LiveStore): { applied: string[]; dropped: string[] } {
  const applied: string[] = [];
  const dropped: string[] = [];
  for (const def of liveDefs) {
    const stored = store.get<unknown>(storeKey(def.key), undefined);
    if (stored === undefined) continue;
    const r = checkLive(def.key, stored);
    if (r.ok) {
      setPath(settings as unknown as Record<string, unknown>, def.key, r.value);
      applied.push(def.key);
    } else dropped.push(def.key);
  }
  return { applied, dropped };
}

/** Whether the console has set this setting (its stored value wins over flags and the environment). */
export function setByConsole(store: LiveStore, key: string): boolean {
  return store.get<unknown>(storeKey(key), undefined) !== undefined;
}

/**
 * Sets a live setting in `settings` and keeps it in the store; returns the value there was.
 * Applying it to what already runs (mDNS, the beeps) is the caller's.
 */
export function setLive(settings: Settings, store: LiveStore, key: string, value: unknown): unknown {
  const was = getPath(settings as unknown as Record<string, unknown>, key);
  store.set(storeKey(key), value);
  setPath(settings as unknown as Record<string, unknown>, key, value);
  return was;
}

/** A setting as the console shows it: read-only (flags and the environment, at start) unless live. */
export interface SettingRow {
  key: string;
  value: unknown;
  description: string;
  /** The console can change it while the gateway runs (PUT /settings/{key}). */
  live: boolean;
  /** Its value was set in the console, and wins over the flag and the environment. */
  set_in_console: boolean;
}

/**
 * The settings of a running gateway as the console reads and changes them. A change is applied to
 * `settings` (the beeps read their switches and volume from it each time), kept in the store, and
 * published on the bus (`settings#changed`; a new name also `gateway#renamed`), where what runs
 * and shows it (mDNS, G4, the bridges) takes it up.
 */
export class LiveSettings {
  constructor(
    private readonly settings: Settings,
    private readonly store: LiveStore,
    private readonly bus: EventBus,
    private readonly log: Log,
  ) {}

  rows(): SettingRow[] {
    return (settingDefs as readonly SettingDef[]).map((d) => ({
      key: d.key,
      value: getPath(this.settings as unknown as Record<string, unknown>, d.key),
      description: d.description,
      live: d.live === true,
      set_in_console: d.live === true && setByConsole(this.store, d.key),
    }));
  }

  /**
   * Sets a live setting (a value checkLive accepted), applies it now and keeps it; returns the
   * value there was. `by`: who changed it (the console and its session), named in the log's line.
   */
  set(key: string, value: unknown, by?: Actor): unknown {
    const was = setLive(this.settings, this.store, key, value);
    this.bus.publish('settings#changed', { payload: { key, value, was } }, by);
    if (key === 'name')
      this.bus.publish('gateway#renamed', { payload: { name: value as string, was: was as string } }, by);
    this.log.info({ setting: key, value, was, ...whoFields(by) }, `setting changed: ${key}${byWords(by)}`);
    return was;
  }
}
