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
import { cameraView } from './camera-view.ts';
import { type ChannelNames, capabilityLabel, channelNames, fieldLabel, WORDS } from './labels.ts';
import { settingText } from './setting-text.ts';
import type { Control, ControlKind, Layout, Reading, SettingView } from './views.ts';

export type { Control, ControlKind, Layout, Reading, SettingView };

/** What the ends of a slider mean, where its number alone does not say (spec 2.6: 0 warm, 100 cool). */
const ENDS: Record<string, [string, string]> = { 'color-temperature': ['Warm', 'Cool'] };

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

function controlsOf(c: CapabilityObject, channels: ChannelNames): Control[] {
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
        label: capabilityLabel(c, channels),
        kind: 'color',
        path: c.name === undefined ? [c.capability] : [c.capability, c.name],
      },
    ];
  }
  const out: Control[] = [];
  for (const [field, s] of fields) {
    const label = fieldLabel(c, field, fields.length > 1, channels, 'control');
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
      const range = s.min !== undefined && s.max !== undefined;
      const ends = range ? ENDS[c.capability] : undefined;
      out.push({ ...common, kind: range ? 'range' : 'number', ...bounds, ...(ends ? { ends } : {}) });
    }
    // Objects, arrays, dates and strings (an energy query, a schedule) are not a single control.
  }
  return out;
}

/** Readings a person looks for first; the radio's and the battery's come last. */
const LAST = ['battery', 'lqi', 'rssi', 'identify', 'toggle-identify', 'tamper-alert'];
/** The radio's readings: how well the device is heard, not what it measures (never on a card). */
const RADIO = new Set(['lqi', 'rssi']);

/** A reading's label: the capability's, or with several fields each field's own (with its channel). */
function readingLabel(c: CapabilityObject, field: string, many: boolean, channels: ChannelNames): string {
  if (c.capability === 'identify' || c.capability === 'toggle-identify') return 'Identifying';
  return fieldLabel(c, field, many, channels, 'reading');
}

function readingsOf(c: CapabilityObject, controlled: Set<string>, channels: ChannelNames): Reading[] {
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
      label: readingLabel(c, field, fields.length > 1, channels),
      path,
      ...(unit ? { unit } : {}),
      ...(s.kind === 'boolean' && WORDS[c.capability] ? { words: WORDS[c.capability] } : {}),
      ...(hundredths ? { scale: 0.01 } : {}),
      ...(RADIO.has(c.capability) ? { minor: true as const } : {}),
    });
  }
  return out;
}

/** The unit of a capability's first number (a range setting of temperatures is in °C). */
function valueUnit(c: CapabilityObject): string | undefined {
  const state = bodyOf(c)?.state;
  if (state?.kind !== 'object') return undefined;
  for (const s of Object.values(state.fields)) if (s.kind === 'number') return unitOf(c, s)?.replace(/^0\.01 /, '');
  return undefined;
}

function settingsOf(c: CapabilityObject, channels: ChannelNames): SettingView[] {
  // A camera's stream has its own form (cameraView); its setting holds the account.
  if (!c.settings || c.capability === 'camera-stream') return [];
  const unit = valueUnit(c);
  return Object.entries(c.settings).map(([key, item]: [string, SettingItem]) => ({
    capability: c.capability,
    ...(c.name !== undefined ? { name: c.name } : {}),
    key,
    // With its capability's name and channel: a switch's three channels each have "Actions".
    label: fieldLabel(c, key, true, channels, 'reading'),
    value:
      item.value ??
      item.values ??
      (item.min !== undefined || item.max !== undefined ? { min: item.min, max: item.max } : item.default),
    text: settingText(key, item, unit),
    ...(item.unit ? { unit: item.unit } : {}),
    modifiable: item.permission === '10' || item.permission === '11',
  }));
}

/** The console's layout of one device. */
export function deviceLayout(d: Pick<DeviceRecord, 'capabilities' | 'tags'> & { protocol?: string }): Layout {
  const channels = channelNames(d);
  const controls = d.capabilities.flatMap((c) => controlsOf(c, channels));
  const controlled = new Set(controls.flatMap((c) => (c.path ? [c.path.join('/')] : [])));
  // The colour control covers the three channels.
  for (const c of controls)
    if (c.kind === 'color' && c.path)
      for (const k of ['red', 'green', 'blue']) controlled.add([...c.path, k].join('/'));
  const seen = new Set<string>();
  const rank = (r: Reading) => LAST.indexOf(r.path[0] as string);
  const readings = d.capabilities
    .flatMap((c) => readingsOf(c, controlled, channels))
    .filter((r) => !seen.has(r.id) && seen.add(r.id))
    .sort((a, b) => rank(a) - rank(b));
  const camera = cameraView(d);
  return {
    controls,
    readings,
    settings: d.capabilities.flatMap((c) => settingsOf(c, channels)),
    capabilities: d.capabilities.map((c) => ({
      id: `${c.capability}/${c.name ?? ''}`,
      label: capabilityLabel(c, channels),
      permission: c.permission,
    })),
    ...(camera ? { camera } : {}),
  };
}
