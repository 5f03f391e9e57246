/**
 * What the rows of the IF/THEN editor share: a row (the API's JSON object) and what it is edited
 * against, a new row's first device value, the type chooser, the device-and-value fields, the row's
 * buttons and the gateway's problems shown under it, weekdays, the security mode fields.
 */
import type { ComponentChildren } from 'preact';
import type { Choices, DeviceChoices } from '../automations.ts';
import { humanize } from '../format.ts';
import { plainProblem } from '../rule-problems.ts';
import type { Device } from '../types.ts';
import { DeviceField, Field, firstValue, liveDevice, refOf, ValueRefField, withValues } from './rule-fields.tsx';

export type Row = Record<string, unknown>;

export interface RowContext {
  choices: Choices;
  devices: readonly Device[];
  /** The id of the definition edited (a scene cannot run itself). */
  self?: string;
}

/** A state reference at the first value of the first device that has values. */
export function valueRow(ctx: RowContext, type: string, extra: (first: unknown) => Row): Row {
  const dc = withValues(ctx.choices.devices)[0];
  const v = dc?.values[0];
  return { type, ...(dc && v ? { device: dc.serial_number, ...refOf(v), ...extra(firstValue(v)) } : {}) };
}

/** A choice among fixed options (`[value, words]`), the value as the row keeps it in words the person reads. */
export function ChoiceField(p: {
  label: string;
  options: readonly (readonly [string, string])[];
  value: unknown;
  onChange: (value: string) => void;
}) {
  return (
    <Field label={p.label}>
      <select value={String(p.value)} onChange={(e) => p.onChange((e.target as HTMLSelectElement).value)}>
        {p.options.map(([v, words]) => (
          <option key={v} value={v}>
            {words}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The device and value fields of a row that reads a device value; `rest` keeps the row's other fields. */
export function ValueRef(p: { ctx: RowContext; row: Row; onChange: (row: Row) => void; reset: (v: unknown) => Row }) {
  const devices = withValues(p.ctx.choices.devices);
  const dc = devices.find((d) => d.serial_number === p.row.device);
  const device = liveDevice(p.ctx.devices, p.row.device);
  const pick = (d: DeviceChoices, v = d.values[0]) =>
    v && p.onChange({ type: p.row.type, device: d.serial_number, ...refOf(v), ...p.reset(firstValue(v)) });
  return (
    <>
      <DeviceField devices={devices} value={p.row.device} onChange={(d) => pick(d)} />
      {dc && <ValueRefField dc={dc} device={device} row={p.row} onChange={(v) => pick(dc, v)} />}
    </>
  );
}

/**
 * One row of the editor, whichever its kind: the chooser of its type (choosing another starts the
 * row afresh through `retype`), its own fields (the children), its buttons, and the save's
 * problems for its path.
 */
export function RuleRow(
  p: RowProps & {
    label: string;
    types: readonly (readonly [string, string])[];
    retype: (type: string) => Row;
    group?: boolean;
    children?: ComponentChildren;
  },
) {
  return (
    <fieldset class={p.group ? 'rule group' : 'rule'} data-path={p.path}>
      <ChoiceField label={p.label} options={p.types} value={p.row.type} onChange={(t) => p.onChange(p.retype(t))} />
      {p.children}
      <RowButtons onRemove={p.onRemove} onUp={p.onUp} onDown={p.onDown} />
      <Problems errors={p.errors(p.path)} path={p.path} />
    </fieldset>
  );
}

/** The device a row names (live) and, among what the choices offer of it, the value the row refers to. */
export function rowValue(ctx: RowContext, row: Row) {
  const dc = ctx.choices.devices.find((d) => d.serial_number === row.device);
  const device = liveDevice(ctx.devices, row.device);
  const choice = dc?.values.find(
    (v) => v.capability === row.capability && (v.name ?? undefined) === row.name && v.field === row.field,
  );
  return { device, choice };
}

function RowButtons(p: { onRemove: () => void; onUp?: () => void; onDown?: () => void }) {
  return (
    <div class="row-buttons">
      {p.onUp && (
        <button type="button" class="small" aria-label="Move up" onClick={p.onUp}>
          ↑
        </button>
      )}
      {p.onDown && (
        <button type="button" class="small" aria-label="Move down" onClick={p.onDown}>
          ↓
        </button>
      )}
      <button type="button" class="small" onClick={p.onRemove}>
        Remove
      </button>
    </div>
  );
}

/** The gateway's messages about the row at `path`, in the editor's words (the API's own as the title). */
function Problems({ errors, path }: { errors: string[]; path: string }) {
  if (errors.length === 0) return null;
  return (
    <ul class="problems">
      {errors.map((e) => (
        <li key={e} title={e}>
          {plainProblem(path, e)}
        </li>
      ))}
    </ul>
  );
}

/** Row props: the row, its change, its removal, its moves, its problems (the save's messages for its path). */
export interface RowProps {
  ctx: RowContext;
  row: Row;
  path: string;
  errors: (path: string) => string[];
  onChange: (row: Row) => void;
  onRemove: () => void;
  onUp?: () => void;
  onDown?: () => void;
}

export function withDays(row: Row, days: string[] | undefined): Row {
  const { weekdays: _w, ...rest } = row;
  return days ? { ...rest, weekdays: days } : rest;
}

export function NoLocation() {
  return (
    <p class="notice small">
      Sunrise and sunset need the gateway's location: set <code>location</code> (latitude,longitude) on the Gateway
      page's settings, or with <code>--location</code>.
    </p>
  );
}

export function SecurityFields(p: { ctx: RowContext; row: Row; onChange: (row: Row) => void; anyMode: boolean }) {
  const { sid: _s, ...rest } = p.row;
  return (
    <>
      <Field label="Mode">
        <select
          value={p.row.sid === undefined ? '' : String(p.row.sid)}
          onChange={(e) => {
            const v = (e.target as HTMLSelectElement).value;
            p.onChange(v === '' ? rest : { ...rest, sid: Number(v) });
          }}
        >
          <option value="">{p.anyMode ? 'Any mode' : 'Every mode'}</option>
          {p.ctx.choices.security_modes.map((m) => (
            <option key={m.sid} value={String(m.sid)}>
              {humanize(m.name)}
            </option>
          ))}
        </select>
      </Field>
      <ChoiceField
        label="Is"
        options={[
          ['armed', 'armed'],
          ['disarmed', 'disarmed'],
        ]}
        value={p.row.state}
        onChange={(state) => p.onChange({ ...p.row, state })}
      />
    </>
  );
}

export function optional(row: Row, key: string, v: unknown): Row {
  const { [key]: _drop, ...rest } = row;
  return v === undefined ? rest : { ...rest, [key]: v };
}
