/**
 * Which device states trigger the alarm, as data: a capability, and the field and value that mean
 * "detected" in its state (catalog defs/sensors.ts). Any driver's device counts: the alarm reads
 * the registry's states, never a protocol.
 */
import { isObject } from '../../catalog/format.ts';

/**
 * Intrusion sensors trigger the armed mode (through its entry delay) when the mode lists them.
 * `contact: true` means open (COMPAT.md: add-ons report a door opening as `contact: true`).
 */
export const INTRUSION = {
  contact: { field: 'contact', detected: true },
  motion: { field: 'motion', detected: true },
  'tamper-alert': { field: 'tamper', detected: 'detected' },
} as const;

/** Life-safety sensors ring the alarm at once in every mode, armed or not, from any device. */
export const LIFE_SAFETY = {
  smoke: { field: 'smoke', detected: true },
  gas: { field: 'gas', detected: true },
  'water-leak': { field: 'waterLeak', detected: true },
} as const;

export type IntrusionKind = keyof typeof INTRUSION;
export type TriggerCapability = IntrusionKind | keyof typeof LIFE_SAFETY;

const RULES: Readonly<Record<TriggerCapability, { field: string; detected: unknown }>> = {
  ...INTRUSION,
  ...LIFE_SAFETY,
};

/** Every capability that can trigger the alarm. */
export const TRIGGER_CAPABILITIES = Object.keys(RULES) as TriggerCapability[];

/** Whether a capability rings the alarm whatever the mode. */
export function isLifeSafety(capability: TriggerCapability): boolean {
  return capability in LIFE_SAFETY;
}

/**
 * For each trigger capability present in a (partial) state, whether it reads "detected". A
 * capability declared with names (several channels) is detected when any channel is.
 */
export function detections(state: Record<string, unknown>): [TriggerCapability, boolean][] {
  const out: [TriggerCapability, boolean][] = [];
  for (const cap of TRIGGER_CAPABILITIES) {
    const value = state[cap];
    if (!isObject(value)) continue;
    const { field, detected } = RULES[cap];
    const channels = field in value ? [value] : Object.values(value).filter(isObject);
    out.push([cap, channels.some((c) => c[field] === detected)]);
  }
  return out;
}
