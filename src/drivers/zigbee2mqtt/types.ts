/**
 * The shapes of Zigbee2MQTT's MQTT API that the driver reads (bridge/devices, bridge/response/*).
 * The exposes inside a definition are Zigbee's own vocabulary: src/zigbee/exposes.ts.
 */
import type { Expose } from '../../zigbee/exposes.ts';

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

/** One endpoint of a device in bridge/devices: its name (multi-endpoint models), clusters and bindings. */
export interface Z2mEndpoint {
  name?: string;
  clusters: { input: string[]; output: string[] };
  bindings: Z2mBinding[];
}

/** A binding in bridge/devices. */
export interface Z2mBinding {
  cluster: string;
  target: { type: 'endpoint'; ieee_address: string; endpoint: number } | { type: 'group'; id: number };
}

/** One group of the retained `<base>/bridge/groups`. */
export interface Z2mGroup {
  id: number;
  friendly_name: string;
  members: { ieee_address: string; endpoint: number }[];
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
