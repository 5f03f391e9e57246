/**
 * TTS engines registered by third parties (RegisterTTSEngine on T1, listed by T3). One engine per
 * service address: the same address registered again (an add-on re-registers on every start and
 * after every new pairing, with a new token) updates that engine and keeps its id.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../../store/db.ts';

export interface TtsEngine {
  id: string;
  name: string;
  service_address: string;
  token_id: string | null;
  created_at: string;
}

/** Deletes every engine (factory reset); shared by the running gateway and the offline CLI path. */
export function clearTtsEngines(db: Db): number {
  return db.prepare('DELETE FROM tts_engines').run().changes;
}

export class TtsEngines {
  private readonly engines = new Map<string, TtsEngine>();

  constructor(private readonly db: Db) {
    // Insertion order, as listed before a restart (the clock can be behind after a boot).
    for (const e of db.prepare<[], TtsEngine>('SELECT * FROM tts_engines ORDER BY rowid').all())
      this.engines.set(e.id, e);
  }

  /** Registers (or re-registers) an engine; committed before it returns. */
  register(serviceAddress: string, name: string, tokenId: string | null): TtsEngine {
    for (const e of this.engines.values()) {
      if (e.service_address === serviceAddress) {
        if (e.name !== name || e.token_id !== tokenId) {
          this.db.prepare('UPDATE tts_engines SET name = ?, token_id = ? WHERE id = ?').run(name, tokenId, e.id);
          e.name = name;
          e.token_id = tokenId;
        }
        return e;
      }
    }
    const engine: TtsEngine = {
      id: randomBytes(8).toString('hex'),
      name,
      service_address: serviceAddress,
      token_id: tokenId,
      created_at: new Date().toISOString(),
    };
    this.db
      .prepare('INSERT INTO tts_engines (id, name, service_address, token_id, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(engine.id, engine.name, engine.service_address, engine.token_id, engine.created_at);
    this.engines.set(engine.id, engine);
    return engine;
  }

  get(id: string): TtsEngine | undefined {
    return this.engines.get(id);
  }

  /** Every engine, oldest first. */
  list(): TtsEngine[] {
    return [...this.engines.values()];
  }

  clear(): void {
    clearTtsEngines(this.db);
    this.engines.clear();
  }
}
