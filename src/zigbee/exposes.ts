/**
 * The shape of Zigbee device definitions as zigbee-herdsman-converters describes them ("exposes"),
 * which Zigbee2MQTT publishes as they are. Shared by every Zigbee driver (Zigbee2MQTT today, a
 * zigbee-herdsman driver tomorrow) and by the simulated network.
 */

/** One expose (or one feature of a composite/specific expose) as Zigbee2MQTT publishes it. */
export interface Expose {
  type: string;
  name?: string;
  label?: string;
  property?: string;
  /** Bit 1: published in state; bit 2: settable (`/set`); bit 4: readable (`/get`). */
  access?: number;
  endpoint?: string;
  unit?: string;
  category?: string;
  description?: string;
  value_min?: number;
  value_max?: number;
  value_step?: number;
  values?: string[];
  value_on?: unknown;
  value_off?: unknown;
  value_toggle?: unknown;
  features?: Expose[];
  presets?: unknown[];
  [k: string]: unknown;
}

export const ACCESS_STATE = 1;
export const ACCESS_SET = 2;
export const ACCESS_GET = 4;

/** A model captured from zigbee-herdsman-converters into the simulator's fixtures. */
export interface ModelFixture {
  /** Position in the default set (the first devices cover every mapped family). */
  order: number;
  family: string;
  model: string;
  vendor: string;
  description: string;
  zigbee_model: string;
  power_source: string;
  type: 'Router' | 'EndDevice';
  /** Whether the model takes firmware updates (its definition's `ota`). */
  supports_ota?: boolean;
  exposes: Expose[];
}
