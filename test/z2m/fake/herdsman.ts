/**
 * The parts of zigbee-herdsman the fake coordinator speaks: ZCL and ZDO frame definitions. They
 * are passed in, so the fake works with the copy inside an installed Zigbee2MQTT (10.9.2) as
 * well as with this project's own dependency (10.9.5): frames must come from the very copy the
 * controller uses.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ZclPayload } from 'zigbee-herdsman/dist/adapter/events.js';
import type * as ZclNamespace from 'zigbee-herdsman/dist/zspec/zcl/index.js';
import type { ZclFrame } from 'zigbee-herdsman/dist/zspec/zcl/zclFrame.js';
import type * as ZdoNamespace from 'zigbee-herdsman/dist/zspec/zdo/index.js';

export type { ZclFrame, ZclPayload };

export interface HerdsmanZspec {
  Zcl: typeof ZclNamespace;
  Zdo: typeof ZdoNamespace;
}

/** The adapter module of a herdsman copy: its `Adapter.create` is what the fake replaces. */
export interface AdapterModule {
  Adapter: { create: (...args: unknown[]) => Promise<unknown> };
}

/** Loads ZCL/ZDO and the adapter module from the zigbee-herdsman package at `dir`. */
export function loadHerdsman(dir: string): HerdsmanZspec & { adapter: AdapterModule } {
  const require = createRequire(join(dir, 'package.json'));
  return {
    Zcl: require('./dist/zspec/zcl/index.js'),
    Zdo: require('./dist/zspec/zdo/index.js'),
    adapter: require('./dist/adapter/adapter.js'),
  };
}
