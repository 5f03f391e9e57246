/**
 * The words the console shows for a device's capabilities, their channels and fields: one
 * spelling everywhere (British, as the rest of the console: "Colour"), a channel named by its
 * `tags.toggle` label, and no channel at all on a device that has only one (a plug is not
 * "channel 1"). The controls, readings, settings and capability list of a layout all take their
 * labels from here.
 */
import { capabilityDef } from '../../catalog/catalog.ts';
import type { CapabilityObject } from '../../catalog/types.ts';
import { isObject } from '../../lib/object.ts';
import { humanize } from './humanize.ts';

const LABELS: Record<string, string> = {
  power: 'Power',
  toggle: 'Power',
  brightness: 'Brightness',
  'color-temperature': 'Colour temperature',
  'color-rgb': 'Colour',
  percentage: 'Position',
  'motor-control': 'Motor',
  'motor-reverse': 'Motor direction reversed',
  'motor-clb': 'Calibration',
  startup: 'Power-on behaviour',
  'toggle-startup': 'Power-on behaviour',
  identify: 'Identify',
  'toggle-identify': 'Identify',
  'toggle-inching': 'Inching',
  inching: 'Inching',
  'thermostat-target-setpoint': 'Target temperature',
  thermostat: 'Thermostat',
  'thermostat-mode-detect': 'Comfort',
  temperature: 'Temperature',
  humidity: 'Humidity',
  battery: 'Battery',
  rssi: 'Signal (RSSI)',
  lqi: 'Link quality',
  contact: 'Door or window',
  motion: 'Motion',
  detect: 'Presence',
  'detect-hold': 'Presence hold',
  smoke: 'Smoke',
  'water-leak': 'Water leak',
  gas: 'Gas',
  'tamper-alert': 'Tamper',
  press: 'Last press',
  'multi-press': 'Last press',
  system: 'Restart device',
  'child-lock': 'Child lock',
  'window-detection': 'Open-window detection',
  eco: 'Eco',
  'anti-direct-blow': 'Anti direct blow',
  'horizontal-swing': 'Horizontal swing',
  'vertical-swing': 'Vertical swing',
  'toggle-voltage': 'Voltage',
  'toggle-electric-current': 'Current',
  'toggle-electric-power': 'Power draw',
  'power-consumption': 'Energy',
  'toggle-power-consumption': 'Energy',
  'illumination-level': 'Light level',
  illumination: 'Illuminance',
  co2: 'CO₂',
  pm25: 'PM2.5',
  'voc-index': 'VOC index',
  'camera-stream': 'Camera stream',
  'barometric-pressure': 'Air pressure',
  'ultraviolet-index': 'UV index',
};

/**
 * Fixed names of capabilities whose name says it all: `mode` `fanLevel` is the fan level, not
 * "Mode: fan level"; `thermostat` `thermostat-mode` is the thermostat mode, not "Thermostat:
 * Thermostat mode".
 */
const NAME_IS_LABEL = new Set(['mode', 'thermostat']);

/** Booleans of detections read as words, not `true`. `contact: true` means open (COMPAT.md). */
export const WORDS: Readonly<Record<string, [string, string]>> = {
  contact: ['Open', 'Closed'],
  motion: ['Detected', 'Clear'],
  detect: ['Detected', 'Clear'],
  smoke: ['Detected', 'Clear'],
  'water-leak': ['Leak', 'Dry'],
  gas: ['Detected', 'Clear'],
  identify: ['Identifying', 'Idle'],
  'toggle-identify': ['Identifying', 'Idle'],
};

/** What names the channels of one device: its `tags.toggle` labels, and whether it has one channel only. */
export interface ChannelNames {
  labels: Record<string, unknown> | undefined;
  single: boolean;
}

/**
 * The channels of a device: the names of its capabilities that are channels (not the fixed names
 * of a thermostat's modes). One numbered channel (a plug's `1`) goes unnamed; a named one (a fan
 * light's `light`) keeps its name.
 */
export function channelNames(d: { capabilities: readonly CapabilityObject[]; tags?: unknown }): ChannelNames {
  const names = new Set<string>();
  for (const c of d.capabilities)
    if (c.name !== undefined && capabilityDef(c.capability)?.naming.kind !== 'fixed') names.add(c.name);
  const tags = isObject(d.tags) ? d.tags : undefined;
  return {
    labels: isObject(tags?.toggle) ? (tags.toggle as Record<string, unknown>) : undefined,
    single: names.size <= 1,
  };
}

/** A channel in words: its `tags.toggle` label, `channel 2`, or its own name (`light`). */
function channelWord(name: string, channels: ChannelNames): string {
  const given = channels.labels?.[name];
  if (typeof given === 'string' && given.trim() !== '') return given.trim();
  return /^\d+$/.test(name) ? `channel ${name}` : humanize(name).toLowerCase();
}

/** The label of a capability of a device, with its channel or fixed name when it has one. */
export function capabilityLabel(c: Pick<CapabilityObject, 'capability' | 'name'>, channels: ChannelNames): string {
  const base = LABELS[c.capability] ?? humanize(c.capability);
  if (c.name === undefined) return base;
  if (capabilityDef(c.capability)?.naming.kind === 'fixed')
    return NAME_IS_LABEL.has(c.capability) ? humanize(c.name) : `${base} (${humanize(c.name).toLowerCase()})`;
  const numbered = /^\d+$/.test(c.name);
  if (c.capability === 'toggle') {
    // A switch's channel is named by its label alone ("Ceiling"), by its own name (a fan's
    // "Light"), or is the power of a one-channel device.
    const given = channels.labels?.[c.name];
    if (typeof given === 'string' && given.trim() !== '') return given.trim();
    if (!numbered) return humanize(c.name);
    return channels.single ? base : `Channel ${c.name}`;
  }
  return channels.single && numbered ? base : `${base} (${channelWord(c.name, channels)})`;
}

/**
 * The label of one field of a capability: the capability's label when it has one field, else the
 * field's own words with the channel (`Reactive power (left)`), or after the capability's label
 * for a control (`Motor: direction`).
 */
export function fieldLabel(
  c: Pick<CapabilityObject, 'capability' | 'name'>,
  field: string,
  many: boolean,
  channels: ChannelNames,
  kind: 'control' | 'reading',
): string {
  const label = capabilityLabel(c, channels);
  if (!many) return label;
  const words = humanize(field);
  if (kind === 'control') return `${label}: ${words.toLowerCase()}`;
  if (c.name === undefined) return words;
  if (capabilityDef(c.capability)?.naming.kind === 'fixed') return `${words} (${humanize(c.name).toLowerCase()})`;
  return channels.single && /^\d+$/.test(c.name) ? words : `${words} (${channelWord(c.name, channels)})`;
}
