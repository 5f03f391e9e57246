/**
 * Scenes and automations in the console: the API's types (src/automations/views.ts, model.ts),
 * and each trigger, condition and action in words, with the device's own labels from its layout
 * (`Hall sensor: Motion becomes Detected`, `At 07:00 on Mon, Tue`, `Wait 2 min`).
 */
import type { Action, Condition, Trigger } from '../../src/automations/model.ts';
import type { Choices, DefinitionView, DeviceChoices, ValueChoice } from '../../src/automations/views.ts';
import { humanize } from './format.ts';
import type { Device } from './types.ts';

export type {
  ActiveRun,
  Choices,
  DefinitionView,
  DeviceChoices,
  NextFiring,
  Trace,
  ValueChoice,
} from '../../src/automations/views.ts';
export type { Action, Condition, Trigger };

/** A definition being edited: the API's shape, as plain JSON (what GET gave, changed). */
export interface Draft {
  id?: string;
  kind: 'scene' | 'automation';
  name: string;
  enabled?: boolean;
  mode?: string;
  max?: number;
  triggers: Record<string, unknown>[];
  conditions: Record<string, unknown>[];
  actions: Record<string, unknown>[];
}

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const DAY_WORDS: Record<string, string> = {
  mon: 'Mon',
  tue: 'Tue',
  wed: 'Wed',
  thu: 'Thu',
  fri: 'Fri',
  sat: 'Sat',
  sun: 'Sun',
};

/** A new, empty definition. */
export function blank(kind: Draft['kind']): Draft {
  return { kind, name: '', enabled: true, triggers: [], conditions: [], actions: [] };
}

/** The definition as an editor starts from it (the fields the gateway adds stay out). */
export function draftOf(d: DefinitionView): Draft {
  return {
    id: d.id,
    kind: d.kind,
    name: d.name,
    enabled: d.enabled,
    mode: d.mode,
    ...(d.max !== undefined ? { max: d.max } : {}),
    triggers: d.triggers as unknown as Record<string, unknown>[],
    conditions: d.conditions as unknown as Record<string, unknown>[],
    actions: d.actions as unknown as Record<string, unknown>[],
  };
}

/** The device of a serial number in the live list. */
export function deviceNamed(devices: readonly Device[], serial: unknown): Device | undefined {
  return devices.find((d) => d.serial_number === serial);
}

/** A value's key in a device's choices: `capability/name/field`. */
export function valueKey(v: { capability?: unknown; name?: unknown; field?: unknown }): string {
  return `${String(v.capability ?? '')}/${v.name === undefined ? '' : String(v.name)}/${String(v.field ?? '')}`;
}

/** The choice a row reads, when the device offers it (a missing field: the capability's one field). */
export function choiceOf(dc: DeviceChoices | undefined, ref: Record<string, unknown>): ValueChoice | undefined {
  if (!dc) return undefined;
  return (
    dc.values.find((v) => valueKey(v) === valueKey(ref)) ??
    (ref.field === undefined
      ? dc.values.find((v) => v.capability === ref.capability && (v.name ?? undefined) === ref.name)
      : undefined)
  );
}

/** How the console names a value of a device: its control's or reading's label, else the field in words. */
export function valueLabel(d: Device | undefined, v: { capability: string; name?: string; field: string }): string {
  if (d) {
    const control = d.layout.controls.find(
      (c) => c.capability === v.capability && (c.name ?? undefined) === v.name && c.field === v.field,
    );
    if (control) return control.label;
    const path = [v.capability, ...(v.name !== undefined ? [v.name] : []), v.field].join('/');
    const reading = d.layout.readings.find((r) => r.path.join('/') === path);
    if (reading) return reading.label;
  }
  return humanize(v.field === 'press' ? v.capability : v.field);
}

/** A value of a field in words: the reading's words for a detection (Detected, Open), a unit with a number. */
export function valueWords(d: Device | undefined, c: ValueChoice | undefined, v: unknown): string {
  if (v === undefined) return '…';
  if (typeof v === 'boolean' && d && c) {
    const path = [c.capability, ...(c.name !== undefined ? [c.name] : []), c.field].join('/');
    const words = d.layout.readings.find((r) => r.path.join('/') === path)?.words;
    if (words) return v ? words[0] : words[1];
    return v ? 'Yes' : 'No';
  }
  if (typeof v === 'number') return c?.unit ? `${v} ${c.unit}` : String(v);
  return humanize(String(v));
}

/** Weekdays in words: every day, weekdays, the weekend, or the days. */
export function daysWords(days: unknown): string {
  if (!Array.isArray(days) || days.length === 0 || days.length === 7) return 'every day';
  const set = new Set(days as string[]);
  if (set.size === 5 && ['mon', 'tue', 'wed', 'thu', 'fri'].every((d) => set.has(d))) return 'on weekdays';
  if (set.size === 2 && set.has('sat') && set.has('sun')) return 'at the weekend';
  return `on ${WEEKDAYS.filter((d) => set.has(d))
    .map((d) => DAY_WORDS[d])
    .join(', ')}`;
}

/** A duration in seconds as a person says it: 90 s, 2 min, 1 h 30 min. */
export function secondsWords(s: unknown): string {
  const n = typeof s === 'number' ? s : 0;
  if (n < 120 && n % 60 !== 0) return `${n} s`;
  const h = Math.floor(n / 3600);
  const m = Math.round((n % 3600) / 60);
  if (h === 0) return `${m} min`;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

function offsetWords(minutes: unknown): string {
  const n = typeof minutes === 'number' ? minutes : 0;
  if (n === 0) return '';
  return `, ${secondsWords(Math.abs(n) * 60)} ${n < 0 ? 'before' : 'after'}`;
}

/** What the words need to name devices, modes and definitions. */
export interface Names {
  devices: readonly Device[];
  choices?: Choices;
}

function deviceWord(n: Names, serial: unknown): string {
  return deviceNamed(n.devices, serial)?.name ?? `a removed device (${String(serial)})`;
}

function modeWord(n: Names, sid: unknown): string {
  if (sid === undefined) return 'any mode';
  const m = n.choices?.security_modes.find((x) => x.sid === sid);
  return m ? humanize(m.name) : `mode ${String(sid)}`;
}

function comparisonWords(d: Device | undefined, c: ValueChoice | undefined, x: Record<string, unknown>): string {
  const parts: string[] = [];
  if (x.equals !== undefined) parts.push(`is ${valueWords(d, c, x.equals)}`);
  if (x.above !== undefined) parts.push(`above ${valueWords(d, c, x.above)}`);
  if (x.below !== undefined) parts.push(`below ${valueWords(d, c, x.below)}`);
  return parts.join(' and ');
}

function valueRefWords(n: Names, x: Record<string, unknown>): { d?: Device; c?: ValueChoice; head: string } {
  const d = deviceNamed(n.devices, x.device);
  const dc = n.choices?.devices.find((y) => y.serial_number === x.device);
  // Without the editor's choices (the list page), the row itself names the value: its reading's words still apply.
  const c =
    choiceOf(dc, x) ??
    (typeof x.capability === 'string' && typeof x.field === 'string'
      ? {
          capability: x.capability,
          field: x.field,
          type: 'boolean' as const,
          ...(typeof x.name === 'string' ? { name: x.name } : {}),
        }
      : undefined);
  const label = c
    ? valueLabel(d, c)
    : humanize(String(x.field ?? x.capability ?? '')) + (x.name !== undefined ? ` ${String(x.name)}` : '');
  return { d, c, head: `${deviceWord(n, x.device)}: ${label}` };
}

/** A trigger in words. */
export function triggerWords(n: Names, t: Record<string, unknown>): string {
  const held = typeof t.for_seconds === 'number' && t.for_seconds > 0 ? ` for ${secondsWords(t.for_seconds)}` : '';
  switch (t.type) {
    case 'state': {
      const { d, c, head } = valueRefWords(n, t);
      const parts: string[] = [];
      if (t.to !== undefined) parts.push(`becomes ${valueWords(d, c, t.to)}`);
      if (t.above !== undefined) parts.push(`rises above ${valueWords(d, c, t.above)}`);
      if (t.below !== undefined) parts.push(`falls below ${valueWords(d, c, t.below)}`);
      const from = t.from !== undefined ? ` from ${valueWords(d, c, t.from)}` : '';
      return `${head} ${parts.join(' and ') || 'changes'}${from}${held}`;
    }
    case 'press':
      return `${deviceWord(n, t.device)}${t.name !== undefined ? ` button ${String(t.name)}` : ''}: ${humanize(String(t.press)).toLowerCase()}`;
    case 'online':
      return `${deviceWord(n, t.device)} ${t.online ? 'comes back online' : 'goes offline'}${held}`;
    case 'time':
      return `At ${String(t.at)} ${daysWords(t.weekdays)}`;
    case 'sun':
      return `At ${String(t.event)}${offsetWords(t.offset_minutes)} ${daysWords(t.weekdays)}`;
    case 'security':
      return `${modeWord(n, t.sid)} is ${String(t.state)}`;
    case 'alarm':
      return t.state === 'raised' ? 'The alarm sounds' : 'The alarm ends';
    case 'started':
      return 'The gateway starts';
    default:
      return String(t.type);
  }
}

function sunBoundWords(b: unknown): string {
  const x = (b ?? {}) as Record<string, unknown>;
  return `${String(x.event)}${offsetWords(x.offset_minutes)}`;
}

/** A condition in words (groups with their members). */
export function conditionWords(n: Names, c: Record<string, unknown>): string {
  switch (c.type) {
    case 'time': {
      const window =
        c.after !== undefined && c.before !== undefined
          ? `between ${String(c.after)} and ${String(c.before)}`
          : c.after !== undefined
            ? `after ${String(c.after)}`
            : c.before !== undefined
              ? `before ${String(c.before)}`
              : '';
      return `${window ? `The time is ${window} ` : 'The day is '}${daysWords(c.weekdays)}`.trim();
    }
    case 'weekday':
      return `Today is ${daysWords(c.weekdays).replace(/^on /, '')}`;
    case 'sun':
      if (c.after !== undefined && c.before !== undefined)
        return `Between ${sunBoundWords(c.after)} and ${sunBoundWords(c.before)}`;
      return c.after !== undefined ? `After ${sunBoundWords(c.after)}` : `Before ${sunBoundWords(c.before)}`;
    case 'state': {
      const { d, c: choice, head } = valueRefWords(n, c);
      return `${head} ${comparisonWords(d, choice, c)}`;
    }
    case 'online':
      return `${deviceWord(n, c.device)} is ${c.online ? 'online' : 'offline'}`;
    case 'security':
      return `${modeWord(n, c.sid)} is ${String(c.state)}`;
    case 'all':
    case 'any':
    case 'not': {
      const inner = ((c.conditions as Record<string, unknown>[]) ?? []).map((x) => conditionWords(n, x));
      const head = c.type === 'all' ? 'All of' : c.type === 'any' ? 'Any of' : 'Not all of';
      return `${head}: ${inner.join('; ')}`;
    }
    default:
      return String(c.type);
  }
}

/** A device action's command in words, with its controls' labels: `Power on, Brightness 40 %`. */
export function commandWords(d: Device | undefined, state: unknown): string {
  if (typeof state !== 'object' || state === null) return '…';
  const parts: string[] = [];
  for (const [cap, body] of Object.entries(state as Record<string, Record<string, unknown>>)) {
    const controls = d?.layout.controls.filter((c) => c.capability === cap) ?? [];
    const flat: [string | undefined, Record<string, unknown>][] =
      controls.some((c) => c.name !== undefined) && typeof body === 'object'
        ? Object.entries(body).map(([name, v]) => [name, v as Record<string, unknown>])
        : [[undefined, body]];
    for (const [name, fields] of flat) {
      if (typeof fields !== 'object' || fields === null) continue;
      const colour = controls.find((c) => c.kind === 'color' && (c.name ?? undefined) === name);
      if (colour && 'red' in fields) {
        const hex = ['red', 'green', 'blue']
          .map((k) =>
            Number(fields[k] ?? 0)
              .toString(16)
              .padStart(2, '0'),
          )
          .join('');
        parts.push(`${colour.label} #${hex}`);
        continue;
      }
      for (const [field, v] of Object.entries(fields)) {
        const c = controls.find((x) => (x.name ?? undefined) === name && x.field === field);
        const label = c?.label ?? humanize(field);
        parts.push(
          `${label} ${typeof v === 'number' && c?.unit ? `${v} ${c.unit}` : humanize(String(v)).toLowerCase()}`,
        );
      }
    }
  }
  return parts.join(', ');
}

/** An action in words. */
export function actionWords(n: Names, a: Record<string, unknown>): string {
  switch (a.type) {
    case 'device': {
      const d = deviceNamed(n.devices, a.device);
      return `${deviceWord(n, a.device)}: ${commandWords(d, a.state)}`;
    }
    case 'scene': {
      const s = n.choices?.definitions.find((x) => x.id === a.scene);
      return `Run the scene ${s?.name ?? String(a.scene)}`;
    }
    case 'security':
      return a.action === 'arm'
        ? `Arm ${a.sid === undefined ? 'the default mode' : modeWord(n, a.sid)}`
        : `Disarm ${a.sid === undefined ? 'every mode' : modeWord(n, a.sid)}`;
    case 'sound':
      return `Play ${humanize(String(a.sound))}${a.volume !== undefined ? ` at ${String(a.volume)} %` : ''}`;
    case 'speak':
      return `Say "${String(a.text)}"`;
    case 'delay':
      return `Wait ${secondsWords(a.seconds)}`;
    case 'wait': {
      const { d, c, head } = valueRefWords(n, a);
      return `Wait until ${head} ${comparisonWords(d, c, a)} (at most ${secondsWords(a.timeout_seconds)}${a.on_timeout === 'stop' ? ', else stop' : ''})`;
    }
    case 'automation': {
      const s = n.choices?.definitions.find((x) => x.id === a.automation);
      return `${a.enabled ? 'Enable' : 'Disable'} ${s?.name ?? String(a.automation)}`;
    }
    case 'notify':
      return `Notify: ${String(a.message)}`;
    default:
      return String(a.type);
  }
}

/** How a run ended, in words. */
export const RESULT_WORDS: Record<string, string> = {
  running: 'Running',
  finished: 'Finished',
  failed: 'Failed',
  stopped: 'Stopped',
  not_run: 'Not run',
};
