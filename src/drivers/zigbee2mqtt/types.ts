/**
 * The shapes of Zigbee2MQTT's MQTT API that the driver reads (bridge/devices, bridge/info,
 * bridge/event, bridge/response/*) and of the `exposes` it publishes for each device definition.
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

/** The `definition` of a device in bridge/devices. */
export interface Z2mDefinition {
  model: string;
  vendor: string;
  description: string;
  exposes: Expose[];
  supports_ota?: boolean;
  options?: unknown[];
  [k: string]: unknown;
}

/** One entry of the retained `<base>/bridge/devices` list. */
export interface Z2mDevice {
  ieee_address: string;
  friendly_name: string;
  type: 'Coordinator' | 'Router' | 'EndDevice' | string;
  network_address?: number;
  supported?: boolean;
  disabled?: boolean;
  interviewing?: boolean;
  interview_completed?: boolean;
  /** Zigbee2MQTT 2.x: PENDING, IN_PROGRESS, SUCCESSFUL, FAILED. */
  interview_state?: string;
  definition?: Z2mDefinition | null;
  manufacturer?: string;
  model_id?: string;
  power_source?: string;
  software_build_id?: string;
  date_code?: string;
  description?: string;
  [k: string]: unknown;
}

/** The answer on `<base>/bridge/response/<request>`. */
export interface Z2mResponse {
  data?: Record<string, unknown>;
  status: 'ok' | 'error';
  error?: string;
  transaction?: string | number;
  /** Set by the driver when no answer came in time (not part of Zigbee2MQTT's message). */
  timedOut?: boolean;
}

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
  exposes: Expose[];
}
