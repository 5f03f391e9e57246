/** The device side of the core: the registry (DriverHost) and the service clients use. */
export { DeviceRegistry, type LocalUpdate } from './registry.ts';
export { DeviceService, type Done } from './service.ts';
export { mergeState } from './state.ts';
export { clearDevices } from './store.ts';
export { endpointOf, toWire } from './wire.ts';

import type { Db } from '../../store/db.ts';
import { clearTtsEngines } from '../tts/engines.ts';
import { clearDevices as clearDeviceRows } from './store.ts';

/** The device part of a factory reset done on the store (the gateway not running): devices and TTS engines. */
export function clearDeviceData(db: Db): void {
  db.transaction(() => {
    clearDeviceRows(db);
    clearTtsEngines(db);
  })();
}
