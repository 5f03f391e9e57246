/** Where `herdsman` mode keeps its data: the `zigbee` folder of the gateway's data folder. */
import { join, resolve } from 'node:path';

/** The Zigbee data folder (network.json, database.db, coordinator_backup.json) of a gateway's data folder. */
export function zigbeeDir(dataDir: string): string {
  return join(resolve(dataDir), 'zigbee');
}
