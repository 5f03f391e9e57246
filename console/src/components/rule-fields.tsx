/**
 * The fields the IF/THEN editor is made of, each offering only what a save accepts: a device
 * (those that have what the row needs), one of its values (from the gateway's choices: the
 * catalog's fields of its own capabilities, within its own ranges), a value of that field, a
 * comparison, a time of day, weekdays, a sun event with its offset, a duration.
 */
import { cloneElement, type VNode } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import {
  choiceOf,
  type DeviceChoices,
  deviceNamed,
  type ValueChoice,
  valueKey,
  valueLabel,
  WEEKDAYS,
} from '../automations.ts';
import { humanize } from '../format.ts';
import type { Device } from '../types.ts';

type Row = Record<string, unknown>;

/**
 * A labelled field of a row: its one control (the child) named by the label alone, so that a
 * screen reader (and a test) reads "Device", not the label with the value chosen.
 */
export function Field(p: { label: string; children: VNode; wide?: boolean }) {
  const id = useId();
  return (
    <div class={p.wide ? 'field wide' : 'field'}>
      <label class="field-label" for={id}>
        {p.label}
      </label>
      {cloneElement(p.children, { id })}
    </div>
  );
}

/** A choice among the devices that offer what the row needs. */
export function DeviceField(p: {
  devices: readonly DeviceChoices[];
  value: unknown;
  onChange: (dc: DeviceChoices) => void;
  label?: string;
}) {
  const known = p.devices.some((d) => d.serial_number === p.value);
  return (
    <Field label={p.label ?? 'Device'}>
      <select
        value={known ? String(p.value) : ''}
        onChange={(e) => {
          const dc = p.devices.find((d) => d.serial_number === (e.target as HTMLSelectElement).value);
          if (dc) p.onChange(dc);
        }}
      >
        {!known && (
          <option value="" disabled>
            {p.value === undefined ? 'Choose a device' : `A device that is gone (${String(p.value)})`}
          </option>
        )}
        {p.devices.map((d) => (
          <option key={d.serial_number} value={d.serial_number}>
            {d.name}
            {d.online ? '' : ' (offline)'}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The reference of a value on a row: its capability, name and field. */
export function refOf(v: ValueChoice): Row {
  return { capability: v.capability, ...(v.name !== undefined ? { name: v.name } : {}), field: v.field };
}

/** A choice among a device's values (Motion, Temperature, Power...). */
export function ValueRefField(p: {
  dc?: DeviceChoices;
  device?: Device;
  row: Row;
  onChange: (v: ValueChoice) => void;
}) {
  const current = choiceOf(p.dc, p.row);
  const values = p.dc?.values ?? [];
  return (
    <Field label="Value">
      <select
        value={current ? valueKey(current) : ''}
        onChange={(e) => {
          const v = values.find((x) => valueKey(x) === (e.target as HTMLSelectElement).value);
          if (v) p.onChange(v);
        }}
      >
        {!current && (
          <option value="" disabled>
            Choose a value
          </option>
        )}
        {values.map((v) => (
          <option key={valueKey(v)} value={valueKey(v)}>
            {valueLabel(p.device, v)}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The first value a field takes (a new row starts with it). */
export function firstValue(v: ValueChoice): unknown {
  if (v.values && v.values.length > 0) return v.values[0];
  if (v.type === 'number') return v.min ?? 0;
  return '';
}

/**
 * A number field that shows what is typed: bound to the number alone, each keystroke would write
 * the number back (`1.` as `1`, the caret sent to the start), and typing 1.5 gave 51. The number
 * from the row is shown again only when it changes otherwise (a unit or a row switched).
 */
export function NumberInput(p: {
  value: number | undefined;
  onChange: (n: number | undefined) => void;
  id?: string;
  class?: string;
  min?: number;
  max?: number;
  step?: number | 'any';
  required?: boolean;
  placeholder?: string;
}) {
  const { value, onChange, ...attrs } = p;
  const shown = value === undefined ? '' : String(value);
  const [text, setText] = useState(shown);
  useEffect(() => {
    if (text === '' ? value !== undefined : Number(text) !== value) setText(shown);
  }, [value]);
  return (
    <input
      {...attrs}
      type="number"
      inputMode="decimal"
      value={text}
      onInput={(e) => {
        const typed = (e.target as HTMLInputElement).value;
        setText(typed);
        onChange(typed === '' ? undefined : Number(typed));
      }}
    />
  );
}

/** An input for one value of a field: its values to choose from, or a number within its range. */
export function ValueInput(p: {
  choice: ValueChoice;
  device?: Device;
  value: unknown;
  onChange: (v: unknown) => void;
  label: string;
}) {
  const c = p.choice;
  if (c.values && c.values.length > 0) {
    const index = c.values.indexOf(p.value);
    const path = [c.capability, ...(c.name !== undefined ? [c.name] : []), c.field].join('/');
    const words = p.device?.layout.readings.find((r) => r.path.join('/') === path)?.words;
    const word = (v: unknown) =>
      typeof v === 'boolean' ? (words ? (v ? words[0] : words[1]) : v ? 'Yes' : 'No') : humanize(String(v));
    return (
      <Field label={p.label}>
        <select
          value={index === -1 ? '' : String(index)}
          onChange={(e) => p.onChange(c.values?.[Number((e.target as HTMLSelectElement).value)])}
        >
          {index === -1 && (
            <option value="" disabled>
              Choose
            </option>
          )}
          {c.values.map((v, i) => (
            <option key={String(v)} value={String(i)}>
              {word(v)}
            </option>
          ))}
        </select>
      </Field>
    );
  }
  if (c.type === 'number')
    return (
      <Field label={c.unit ? `${p.label} (${c.unit})` : p.label}>
        <NumberInput
          step="any"
          min={c.min}
          max={c.max}
          value={typeof p.value === 'number' ? p.value : undefined}
          onChange={p.onChange}
        />
      </Field>
    );
  return (
    <Field label={p.label}>
      <input
        value={typeof p.value === 'string' ? p.value : ''}
        onInput={(e) => p.onChange((e.target as HTMLInputElement).value)}
      />
    </Field>
  );
}

/** A comparison of a value: is, is above, is below (numbers), and the value compared with. */
export function Comparison(p: { choice: ValueChoice; device?: Device; row: Row; onChange: (row: Row) => void }) {
  const { equals: _e, above: _a, below: _b, ...rest } = p.row;
  // By the key, not its value: a value cleared while typing keeps the comparison chosen.
  const op = 'above' in p.row ? 'above' : 'below' in p.row ? 'below' : 'equals';
  const value = p.row[op];
  const numeric = p.choice.type === 'number';
  return (
    <>
      {numeric && (
        <Field label="Is">
          <select
            value={op}
            onChange={(e) =>
              p.onChange({ ...rest, [(e.target as HTMLSelectElement).value]: value ?? firstValue(p.choice) })
            }
          >
            <option value="equals">equal to</option>
            <option value="above">above</option>
            <option value="below">below</option>
          </select>
        </Field>
      )}
      <ValueInput
        choice={p.choice}
        device={p.device}
        label={numeric ? 'Value' : 'Is'}
        value={value}
        onChange={(v) => p.onChange({ ...rest, [op]: v })}
      />
    </>
  );
}

/** A time of day, `HH:MM` (24 h). */
export function TimeField(p: {
  label: string;
  value: unknown;
  onChange: (v: string | undefined) => void;
  optional?: boolean;
}) {
  return (
    <Field label={p.label}>
      <input
        type="time"
        value={typeof p.value === 'string' ? p.value.slice(0, 5) : ''}
        required={!p.optional}
        onInput={(e) => {
          const v = (e.target as HTMLInputElement).value;
          p.onChange(v === '' ? undefined : v);
        }}
      />
    </Field>
  );
}

/** Weekdays as check boxes (none chosen: every day). */
export function WeekdaysField(p: { value: unknown; onChange: (v: string[] | undefined) => void; required?: boolean }) {
  const chosen = new Set(Array.isArray(p.value) ? (p.value as string[]) : []);
  const id = useId();
  return (
    <fieldset class="weekdays" aria-labelledby={id}>
      <span class="weekdays-label" id={id}>
        {p.required ? 'Days' : 'Days (none: every day)'}
      </span>
      {WEEKDAYS.map((d) => (
        <label key={d} class="check">
          <input
            type="checkbox"
            checked={chosen.has(d)}
            onChange={(e) => {
              const next = new Set(chosen);
              if ((e.target as HTMLInputElement).checked) next.add(d);
              else next.delete(d);
              const list = WEEKDAYS.filter((x) => next.has(x));
              p.onChange(list.length === 0 ? undefined : list);
            }}
          />
          {humanize(d)}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * Sunrise or sunset, and how many minutes before or after it (kept as `offset_minutes`, negative
 * before): a number and a word, as a person says it, rather than a signed number. The direction is
 * remembered while the minutes are empty or 0 (the row then has no offset to carry it).
 */
export function SunFields(p: { row: Row; onChange: (row: Row) => void }) {
  const offset = typeof p.row.offset_minutes === 'number' ? p.row.offset_minutes : 0;
  const [direction, setDirection] = useState<'before' | 'after'>(offset < 0 ? 'before' : 'after');
  const side = offset < 0 ? 'before' : offset > 0 ? 'after' : direction;
  // What is typed stays (an out-of-range number included, for the browser to point at); a row
  // changed elsewhere (its type switched, a bound re-ticked) shows its own offset.
  const [text, setText] = useState(offset === 0 ? '' : String(Math.abs(offset)));
  useEffect(() => {
    if (Number(text || 0) !== Math.abs(offset)) setText(offset === 0 ? '' : String(Math.abs(offset)));
  }, [offset]);
  const withOffset = (minutes: number, dir: 'before' | 'after') => {
    const { offset_minutes: _o, ...rest } = p.row;
    const n = dir === 'before' ? -minutes : minutes;
    return n === 0 ? rest : { ...rest, offset_minutes: n };
  };
  return (
    <>
      <Field label="Sunrise or sunset">
        <select
          value={String(p.row.event ?? 'sunset')}
          onChange={(e) => p.onChange({ ...p.row, event: (e.target as HTMLSelectElement).value })}
        >
          <option value="sunrise">Sunrise</option>
          <option value="sunset">Sunset</option>
        </select>
      </Field>
      <Field label="Minutes">
        <input
          type="number"
          inputMode="numeric"
          step="1"
          min={0}
          max={720}
          placeholder="0"
          value={text}
          onInput={(e) => {
            const input = e.target as HTMLInputElement;
            setText(input.value);
            // Out of range or not whole: the browser says so beside the field; the row keeps its last good offset.
            const n = Number(input.value || 0);
            if (input.validity.valid && Number.isInteger(n)) p.onChange(withOffset(n, side));
          }}
        />
      </Field>
      <Field label="Before or after">
        <select
          value={side}
          onChange={(e) => {
            const dir = (e.target as HTMLSelectElement).value === 'before' ? 'before' : 'after';
            setDirection(dir);
            p.onChange(withOffset(Math.abs(offset), dir));
          }}
        >
          <option value="before">before</option>
          <option value="after">after</option>
        </select>
      </Field>
    </>
  );
}

const UNITS = [
  ['s', 1],
  ['min', 60],
  ['h', 3600],
] as const;

/** A duration: a number and its unit (seconds, minutes, hours), kept in seconds. */
export function DurationField(p: {
  label: string;
  value: unknown;
  onChange: (s: number | undefined) => void;
  optional?: boolean;
}) {
  const id = useId();
  const s = typeof p.value === 'number' ? p.value : undefined;
  // The unit stays as the person has it once they type or choose: derived from the value at each
  // keystroke, 1.5 min would turn into 90 s under their fingers (and a unit chosen next would
  // multiply the 90).
  const [chosen, setChosen] = useState<number | undefined>();
  const unit = chosen ?? (s === undefined || s === 0 ? 60 : s % 3600 === 0 ? 3600 : s % 60 === 0 ? 60 : 1);
  return (
    <div class="field">
      <label class="field-label" for={id}>
        {p.label}
      </label>
      <span class="duration">
        <NumberInput
          id={id}
          class="duration-number"
          min={0}
          step="any"
          required={!p.optional}
          value={s === undefined ? undefined : s / unit}
          placeholder={p.optional ? 'none' : ''}
          onChange={(n) => {
            setChosen(unit);
            p.onChange(n === undefined ? undefined : Math.round(n * unit));
          }}
        />
        <select
          aria-label={`${p.label}: unit`}
          value={String(unit)}
          onChange={(e) => {
            const next = Number((e.target as HTMLSelectElement).value);
            setChosen(next);
            if (s !== undefined) p.onChange(Math.round((s / unit) * next));
          }}
        >
          {UNITS.map(([word, n]) => (
            <option key={word} value={String(n)}>
              {word}
            </option>
          ))}
        </select>
      </span>
    </div>
  );
}

/** The devices' choices with their live devices (for labels), those with values, presses or controls. */
export function withValues(devices: readonly DeviceChoices[]): DeviceChoices[] {
  return devices.filter((d) => d.values.length > 0);
}

/** The live device of a choice (its layout names its values). */
export function liveDevice(devices: readonly Device[], serial: unknown): Device | undefined {
  return deviceNamed(devices, serial);
}
