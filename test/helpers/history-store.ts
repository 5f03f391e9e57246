/**
 * A History on a store file of its own, with the real bus and registry and a clock moved by hand,
 * without a gateway around it: for the kill -9 child process and the benchmark.
 */
import { DeviceRegistry } from '../../src/core/devices/registry.ts';
import { EventBus } from '../../src/core/event-bus.ts';
import { History, type HistoryOptions, type HistorySettings } from '../../src/history/index.ts';
import { silentLog } from '../../src/lib/log.ts';
import { loadSettings } from '../../src/settings/index.ts';
import { type Db, openDb } from '../../src/store/db.ts';
import type { ManualClock } from './clock.ts';

export interface BareHistory {
  db: Db;
  bus: EventBus;
  registry: DeviceRegistry;
  history: History;
}

/** Opens (or creates) the store at `file` and builds a History on it (not started), the `history.*` defaults changed by `settings`. */
export function bareHistory(
  file: string,
  clock: ManualClock,
  opts: { settings?: Partial<HistorySettings>; observe?: HistoryOptions['observe'] } = {},
): BareHistory {
  const db = openDb(file);
  const bus = new EventBus();
  const registry = new DeviceRegistry(db, bus);
  const history = new History({
    db,
    bus,
    devices: registry,
    clock,
    log: silentLog,
    settings: { ...loadSettings().history, ...opts.settings },
    timeZone: 'UTC',
    observe: opts.observe,
  });
  return { db, bus, registry, history };
}
