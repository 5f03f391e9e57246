/**
 * What the console shows of a device, generated from the catalog: one control per field a
 * client may command (its kind, range, values and label), one reading per reported value (with
 * its unit and, for detections, words), and the device's settings. Nothing here knows a device
 * model: a capability the catalog can command gets a control; one it cannot (a configuration
 * object, an energy query) gets none, so the console never shows a dead control. Values are not
 * part of the layout: the console reads them from the device's live state at `path`.
 */
import { bodyDef, capabilityDef, controlSchema, narrowBody, reportSchema } from '../../catalog/catalog.ts';
import { permissionBits } from '../../catalog/permissions.ts';
import type { Schema } from '../../catalog/schema.ts';
import type { BodyDef, CapabilityObject, SettingItem } from '../../catalog/types.ts';
import type { DeviceRecord } from '../../core/devices/index.ts';
import { isObject } from '../../lib/object.ts';
import { humanize } from './humanize.ts';

import type { Control, ControlKind, Layout, Reading, SettingView } from './views.ts';

export type { Control, ControlKind, Layout, Reading, SettingView };

const LABELS: Record<string, string> = {
  power: 'Power',
  toggle: 'Channel',
  brightness: 'Brightness',
  'color-temperature': 'Colour temperature',
  'color-rgb': 'Colour',
  percentage: 'Position',
  'motor-control': 'Motor',
  'motor-reverse': 'Motor direction reversed',
  'motor-clb': 'Calibration',
  startup: 'Power-on behaviour',
  'toggle-startup': 'Power-on behaviour',
  identify: 'Identify (seconds)',
  'toggle-identify': 'Identify (seconds)',
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
  'illumination-level': 'Light level',
  co2: 'CO₂',
  pm25: 'PM2.5',
  'voc-index': 'VOC index',
};

/** Booleans of detections read as words, not `true`. `contact: true` means open (COMPAT.md). */
const WORDS: Record<string, [string, string]> = {
  contact: ['Open', 'Closed'],
  motion: ['Detected', 'Clear'],
  detect: ['Detected', 'Clear'],
  smoke: ['Detected', 'Clear'],
  'water-leak': ['Leak', 'Dry'],
  gas: ['Detected', 'Clear'],
  identify: ['Identifying', 'Idle'],
  'toggle-identify': ['Identifying', 'Idle'],
};

function labelOf(c: CapabilityObject, tags: Record<string, unknown> | undefined, field: string, many: boolean): string {
  const base = LABELS[c.capability] ?? humanize(c.capability);
  let label = base;
  if (c.name !== undefined) {
    const def = capabilityDef(c.capability);
    const toggleLabels = isObject(tags?.toggle) ? (tags.toggle as Record<string, unknown>) : undefined;
    const given = toggleLabels?.[c.name];
    if (def?.naming.kind === 'fixed') label = `${base}: ${humanize(c.name)}`;
    else if (typeof given === 'string' && given.trim() !== '')
      label = c.capability === 'toggle' ? given : `${given}: ${base.toLowerCase()}`;
    else label = c.capability === 'toggle' ? `Channel ${c.name}` : `${base} (channel ${c.name})`;
  }
  return many ? `${label}: ${humanize(field)}` : label;
}

/** The body of a device's capability entry, narrowed by its own settings (ranges, supported values). */
function bodyOf(c: CapabilityObject): BodyDef | undefined {
  const def = capabilityDef(c.capability);
  if (!def) return undefined;
  const body = bodyDef(def, c.name);
  if (!body) return undefined;
  return narrowBody(body, c.settings) ?? body;
}

function statePath(c: CapabilityObject, field: string): string[] {
  return c.name === undefined ? [c.capability, field] : [c.capability, c.name, field];
}

/** The fields of an object schema a person sets, the first of each group of alternatives (no `*Delta`). */
function settableFields(s: Schema): [string, Schema][] {
  if (s.kind !== 'object') return [];
  const skipped = new Set((s.exactlyOne ?? []).flatMap((group) => group.slice(1)));
  return Object.entries(s.fields).filter(([k]) => !skipped.has(k));
}

function unitOf(c: CapabilityObject, s: Schema): string | undefined {
  if (c.capability === 'thermostat-target-setpoint') {
    const unit = c.settings?.temperatureUnit?.value;
    return unit === 'f' ? '°F' : '°C';
  }
  return s.kind === 'number' ? s.unit : undefined;
}

function controlsOf(c: CapabilityObject, tags: Record<string, unknown> | undefined): Control[] {
  const body = bodyOf(c);
  if (!body) return [];
  // A capability is commanded when its permission has the control bit, or when the catalog gives
  // it an explicit control body although it only reports (identify: a countdown).
  if (!permissionBits(c.permission).control && !body.control) return [];
  const schema = controlSchema(body);
  if (schema?.kind !== 'object') return [];
  const base = { capability: c.capability, ...(c.name !== undefined ? { name: c.name } : {}) };
  const idOf = (field: string) => [c.capability, c.name ?? '', field].join('/');
  const stateFields = body.state?.kind === 'object' ? body.state.fields : {};
  const fields = settableFields(schema);
  const names = Object.keys(schema.fields);
  if (['red', 'green', 'blue'].every((k) => names.includes(k)) && names.length === 3) {
    return [
      {
        ...base,
        id: idOf('rgb'),
        field: 'rgb',
        label: labelOf(c, tags, 'rgb', false),
        kind: 'color',
        path: c.name === undefined ? [c.capability] : [c.capability, c.name],
      },
    ];
  }
  const out: Control[] = [];
  for (const [field, s] of fields) {
    const label = labelOf(c, tags, field, fields.length > 1);
    const path = field in stateFields ? { path: statePath(c, field) } : {};
    const common = { ...base, id: idOf(field), field, label, ...path };
    if (s.kind === 'enum') {
      if (s.values.length === 1) out.push({ ...common, kind: 'action', values: s.values });
      else if (s.values.includes('on') && s.values.includes('off') && s.values.length <= 3)
        out.push({ ...common, kind: 'switch', values: s.values });
      else out.push({ ...common, kind: 'choice', values: s.values });
    } else if (s.kind === 'boolean') out.push({ ...common, kind: 'bool' });
    else if (s.kind === 'number') {
      const unit = unitOf(c, s);
      const bounds = {
        ...(s.min !== undefined ? { min: s.min } : {}),
        ...(s.max !== undefined ? { max: s.max } : {}),
        ...(s.step !== undefined ? { step: s.step } : s.int ? { step: 1 } : {}),
        ...(unit ? { unit } : {}),
      };
      out.push({ ...common, kind: s.min !== undefined && s.max !== undefined ? 'range' : 'number', ...bounds });
    }
    // Objects, arrays, dates and strings (an energy query, a schedule) are not a single control.
  }
  return out;
}

/** Readings a person looks for first; the radio's and the battery's come last. */
const LAST = ['battery', 'lqi', 'rssi', 'identify', 'toggle-identify', 'tamper-alert'];

/** A reading's label: the capability's, or with several fields each field's own (with its channel). */
function readingLabel(c: CapabilityObject, field: string, many: boolean): string {
  if (c.capability === 'identify' || c.capability === 'toggle-identify') return 'Identifying';
  if (!many) return labelOf(c, undefined, field, false);
  return c.name === undefined ? humanize(field) : `${humanize(field)} (channel ${c.name})`;
}

function readingsOf(c: CapabilityObject, controlled: Set<string>): Reading[] {
  const body = bodyOf(c);
  if (!body || !permissionBits(c.permission).report) return [];
  const schema = reportSchema(body);
  if (schema?.kind !== 'object') return [];
  const out: Reading[] = [];
  const fields = Object.entries(schema.fields);
  for (const [field, s] of fields) {
    const path = statePath(c, field);
    if (controlled.has(path.join('/'))) continue;
    if (!['number', 'boolean', 'enum', 'string', 'date'].includes(s.kind)) continue;
    const rawUnit = unitOf(c, s);
    const hundredths = rawUnit?.startsWith('0.01 ');
    const unit = hundredths ? rawUnit?.slice(5) : rawUnit;
    out.push({
      id: path.join('/'),
      label: readingLabel(c, field, fields.length > 1),
      path,
      ...(unit ? { unit } : {}),
      ...(s.kind === 'boolean' && WORDS[c.capability] ? { words: WORDS[c.capability] } : {}),
      ...(hundredths ? { scale: 0.01 } : {}),
    });
  }
  return out;
}

function settingsOf(c: CapabilityObject): SettingView[] {
  if (!c.settings) return [];
  return Object.entries(c.settings).map(([key, item]: [string, SettingItem]) => ({
    capability: c.capability,
    ...(c.name !== undefined ? { name: c.name } : {}),
    key,
    label: humanize(key),
    value:
      item.value ??
      item.values ??
      (item.min !== undefined || item.max !== undefined ? { min: item.min, max: item.max } : item.default),
    ...(item.unit ? { unit: item.unit } : {}),
    modifiable: item.permission === '10' || item.permission === '11',
  }));
}

/** The console's layout of one device. */
export function deviceLayout(d: Pick<DeviceRecord, 'capabilities' | 'tags'>): Layout {
  const controls = d.capabilities.flatMap((c) => controlsOf(c, d.tags));
  const controlled = new Set(controls.flatMap((c) => (c.path ? [c.path.join('/')] : [])));
  // The colour control covers the three channels.
  for (const c of controls)
    if (c.kind === 'color' && c.path)
      for (const k of ['red', 'green', 'blue']) controlled.add([...c.path, k].join('/'));
  const seen = new Set<string>();
  const rank = (r: Reading) => LAST.indexOf(r.path[0] as string);
  const readings = d.capabilities
    .flatMap((c) => readingsOf(c, controlled))
    .filter((r) => !seen.has(r.id) && seen.add(r.id))
    .sort((a, b) => rank(a) - rank(b));
  return { controls, readings, settings: d.capabilities.flatMap(settingsOf) };
}
