/**
 * The per-mode alarm settings in SQLite (table `alarm_config`, migration.ts). Its `devices` column
 * holds NULL for every sensor, a JSON array of serial numbers, or `{"kinds": [...]}` (the kinds of
 * sensor a mode watches; an older release reads that as every sensor).
 */

import { isObject } from '../../lib/object.ts';
import type { Db } from '../../store/db.ts';
import { ALARM_SOUNDS, ALL_DEVICES, type AlarmConfig, type AlarmSound, DEFAULT_CONFIG } from './config.ts';
import { INTRUSION, type IntrusionKind } from './triggers.ts';

interface Row {
  exit_delay: number;
  entry_delay: number;
  alarm_sound: string;
  alarm_duration: number;
  devices: string | null;
}

function parseDevices(text: string | null): AlarmConfig['devices'] {
  if (text === null) return ALL_DEVICES;
  try {
    const list: unknown = JSON.parse(text);
    if (Array.isArray(list) && list.every((s) => typeof s === 'string')) return list;
    // `{"kinds": [...]}`: the kinds a mode watches; a kind a later release no longer has is dropped.
    if (isObject(list) && Array.isArray(list.kinds))
      return { kinds: list.kinds.filter((k): k is IntrusionKind => typeof k === 'string' && k in INTRUSION) };
  } catch {
    // fall through: a row written by hand that is not a list of serials
  }
  return ALL_DEVICES;
}

export class AlarmConfigStore {
  private readonly getStmt;
  private readonly setStmt;

  /** @param defaults the settings of a mode that has no row (by its sid) */
  constructor(
    db: Db,
    private readonly defaults: (sid: number) => AlarmConfig = () => ({ ...DEFAULT_CONFIG }),
  ) {
    this.getStmt = db.prepare<[number], Row>(
      'SELECT exit_delay, entry_delay, alarm_sound, alarm_duration, devices FROM alarm_config WHERE sid = ?',
    );
    this.setStmt = db.prepare(`
      INSERT INTO alarm_config (sid, exit_delay, entry_delay, alarm_sound, alarm_duration, devices)
      VALUES (@sid, @exit_delay, @entry_delay, @alarm_sound, @alarm_duration, @devices)
      ON CONFLICT (sid) DO UPDATE SET exit_delay = excluded.exit_delay, entry_delay = excluded.entry_delay,
        alarm_sound = excluded.alarm_sound, alarm_duration = excluded.alarm_duration, devices = excluded.devices`);
  }

  /** The settings of a mode: its row, or the defaults when it has none. */
  get(sid: number): AlarmConfig {
    const row = this.getStmt.get(sid);
    if (!row) return this.defaults(sid);
    return {
      exit_delay: row.exit_delay,
      entry_delay: row.entry_delay,
      // A sound name the catalog no longer has falls back to the default rather than ringing nothing.
      alarm_sound: (ALARM_SOUNDS as readonly string[]).includes(row.alarm_sound)
        ? (row.alarm_sound as AlarmSound)
        : DEFAULT_CONFIG.alarm_sound,
      alarm_duration: row.alarm_duration,
      devices: parseDevices(row.devices),
    };
  }

  /** Writes every setting of a mode (committed when this returns). */
  set(sid: number, config: AlarmConfig): void {
    this.setStmt.run({
      sid,
      exit_delay: config.exit_delay,
      entry_delay: config.entry_delay,
      alarm_sound: config.alarm_sound,
      alarm_duration: config.alarm_duration,
      devices: config.devices === ALL_DEVICES ? null : JSON.stringify(config.devices),
    });
  }
}
