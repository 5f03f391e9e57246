/**
 * The factory reset (spec 3: "gateway device reset" clears tokens): every token, device, TTS
 * engine and dashboard card goes, in one transaction, and so does the Matter bridge's identity (its
 * fabrics, keys and pairing code: a reset gateway is a new bridge to every controller, as a reset
 * hardware gateway is), and every scene and automation with its runs and traces (they name the
 * devices that went: a reset hardware gateway has no scenes either; a backup taken before keeps
 * them); the settings of the speaker, the security modes and the Matter switch stay. One
 * function for the API, the CLI and the control socket: with the running gateway's services it
 * clears through them (memory follows, a deleteDevice event per device, streams end); without
 * (the gateway not running) it clears the store.
 */
import type { Db } from '../../store/db.ts';
import type { DeviceRegistry } from '../devices/index.ts';
import { clearDevices } from '../devices/store.ts';
import type { TokenService } from '../tokens.ts';
import { clearTtsEngines, type TtsEngines } from '../tts/engines.ts';
import { clearUiCards } from '../ui-cards.ts';

export interface RunningServices {
  registry: DeviceRegistry;
  engines: TtsEngines;
  tokens: TokenService;
}

/** The Matter bridge's whole storage (table `matter_storage`): fabrics, keys, endpoint numbers, pairing secrets. */
function clearMatterStorage(db: Db): void {
  db.prepare('DELETE FROM matter_storage').run();
}

/** Every scene and automation; their runs journal, holds, cursors and traces go with them (ON DELETE CASCADE). */
function clearAutomations(db: Db): void {
  db.prepare('DELETE FROM automations').run();
}

/**
 * The history's tables (migration 8), for a reset with the gateway stopped: the running gateway's
 * history clears itself in small steps after the reset (src/history/integration.ts).
 */
const HISTORY_TABLES = [
  'history_events',
  'history_raw',
  'history_5min',
  'history_hourly',
  'history_energy',
  'history_batches',
  'history_last',
  'history_series',
  'history_devices',
  'history_exclusions',
  'history_meta',
];

function clearHistory(db: Db): void {
  for (const t of HISTORY_TABLES) db.prepare(`DELETE FROM ${t}`).run();
}

/** Clears every token, device, TTS engine, card, automation, the history and the Matter identity; a failure midway leaves all of them stored. */
export function factoryReset(db: Db, running?: RunningServices): void {
  if (!running) {
    db.transaction(() => {
      clearDevices(db);
      clearAutomations(db);
      clearTtsEngines(db);
      clearUiCards(db);
      clearMatterStorage(db);
      clearHistory(db);
      db.prepare('DELETE FROM tokens').run();
    })();
    return;
  }
  // The registry reloads itself on a failure; engines and tokens delete their rows before they
  // forget them in memory, so they go last.
  running.registry.batch(() => {
    running.registry.clear();
    running.engines.clear();
    clearUiCards(db);
    // The caller stopped a running bridge first: matter.js would write its fabrics back.
    clearMatterStorage(db);
    // The automations' engine is stopped around the reset (its integration's aroundReset).
    clearAutomations(db);
    running.tokens.clear(false);
  });
  // After the deleteDevice events (published at the commit): the streams hear them, then end.
  running.tokens.announceCleared();
}
