/**
 * The matter.js environment of the bridge: a child of matter.js's Node.js environment whose storage
 * is the gateway's SQLite store, whose mDNS is limited to the interface the user allows, and whose
 * log lines go to the gateway's log (warnings and worse: matter.js's own info is very chatty).
 */
import { Environment, LogFormat, Logger, LogLevel, StorageService } from '@matter/main';
import type { Db } from '../../store/db.ts';
import type { MatterLog } from './bridge.ts';
import { SQLITE_DRIVER_ID, SqliteMatterStorage } from './storage.ts';

/** A fresh environment for one bridge (matter.js's log settings are process-wide: set here). */
export function environmentFor(db: Db, networkInterface: string, log: MatterLog): Environment {
  Logger.format = LogFormat.PLAIN;
  Logger.level = LogLevel.WARN;
  const destination = Logger.destinations.default;
  if (destination) {
    destination.write = (text, message) => {
      const line = text.replace(/\s+/g, ' ').trim();
      if (message.level >= LogLevel.ERROR) log.error({}, `matter.js: ${line}`);
      else log.warn({}, `matter.js: ${line}`);
    };
  }
  const environment = new Environment('opencube-matter', Environment.default);
  if (networkInterface !== '') environment.vars.set('mdns.networkInterface', networkInterface);
  const storage = new StorageService(environment);
  storage.registerDriver({
    id: SQLITE_DRIVER_ID,
    create: (namespace) => new SqliteMatterStorage(db, namespace.namespace),
  });
  storage.defaultDriver = SQLITE_DRIVER_ID;
  storage.configuredDriver = SQLITE_DRIVER_ID;
  environment.set(StorageService, storage);
  return environment;
}
