/**
 * The factory reset (spec 3: "gateway device reset" clears tokens): every token, device, TTS
 * engine and dashboard card goes, in one transaction; the settings of the speaker and the security modes stay. One
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

/** Clears every token, device, TTS engine and card; a failure midway leaves all of them stored. */
export function factoryReset(db: Db, running?: RunningServices): void {
  if (!running) {
    db.transaction(() => {
      clearDevices(db);
      clearTtsEngines(db);
      clearUiCards(db);
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
    running.tokens.clear(false);
  });
  // After the deleteDevice events (published at the commit): the streams hear them, then end.
  running.tokens.announceCleared();
}
