/**
 * The rows of the IF/THEN editor: a trigger (WHEN), a condition (AND IF, groups nested within), an
 * action (THEN). Each row is the API's JSON object, edited field by field through rule-fields.tsx;
 * switching its type starts it afresh with valid defaults (the first device that offers what the
 * type needs). A row the editor cannot edit field by field (a device command of several
 * capabilities made through the API) is shown in words and kept as it is.
 */
import { actionWords, type Choices, type DeviceChoices } from '../automations.ts';
import { colourHex, humanize } from '../format.ts';
import type { Control, Device } from '../types.ts';
import {
  Comparison,
  DeviceField,
  DurationField,
  Field,
  firstValue,
  liveDevice,
  refOf,
  SunFields,
  TimeField,
  ValueInput,
  ValueRefField,
  WeekdaysField,
  withValues,
} from './rule-fields.tsx';

type Row = Record<string, unknown>;

export interface RowContext {
  choices: Choices;
  devices: readonly Device[];
  /** The id of the definition edited (a scene cannot run itself). */
  self?: string;
}

const TRIGGERS: [string, string][] = [
  ['state', 'A device value changes'],
  ['press', 'A button is pressed'],
  ['online', 'A device goes offline or comes back'],
  ['time', 'A time of day'],
  ['sun', 'Sunrise or sunset'],
  ['security', 'A security mode is armed or disarmed'],
  ['alarm', 'The alarm sounds or ends'],
  ['started', 'The gateway starts'],
];

const CONDITIONS: [string, string][] = [
  ['time', 'A time window'],
  ['weekday', 'Days of the week'],
  ['sun', 'Before or after sunrise or sunset'],
  ['state', 'A device value'],
  ['online', 'A device is online or offline'],
  ['security', 'A security mode is armed or disarmed'],
  ['any', 'Any of these'],
  ['not', 'Not all of these'],
  ['all', 'All of these'],
];

const ACTIONS: [string, string][] = [
  ['device', 'Control a device'],
  ['scene', 'Run a scene'],
  ['security', 'Arm or disarm'],
  ['sound', 'Play a sound'],
  ['speak', 'Say something'],
  ['delay', 'Wait a while'],
  ['wait', 'Wait until a device value'],
  ['automation', 'Enable or disable an automation'],
  ['notify', 'Send a notification'],
];

/** A state reference at the first value of the first device that has values. */
function valueRow(ctx: RowContext, type: string, extra: (first: unknown) => Row): Row {
  const dc = withValues(ctx.choices.devices)[0];
  const v = dc?.values[0];
  return { type, ...(dc && v ? { device: dc.serial_number, ...refOf(v), ...extra(firstValue(v)) } : {}) };
}

/** A new trigger of a type. */
function newTrigger(ctx: RowContext, type: string): Row {
  const any = ctx.choices.devices[0]?.serial_number;
  switch (type) {
    case 'state':
      return valueRow(ctx, 'state', (v) => (typeof v === 'number' ? { above: v } : { to: v }));
    case 'press': {
      const dc = ctx.choices.devices.find((d) => d.presses.length > 0);
      const p = dc?.presses[0];
      return {
        type,
        ...(dc && p ? { device: dc.serial_number, ...(p.name ? { name: p.name } : {}), press: p.presses[0] } : {}),
      };
    }
    case 'online':
      return { type, ...(any ? { device: any } : {}), online: false };
    case 'time':
      return { type, at: '07:00' };
    case 'sun':
      return { type, event: 'sunset' };
    case 'security':
      return { type, state: 'armed' };
    case 'alarm':
      return { type, state: 'raised' };
    default:
      return { type };
  }
}

function newCondition(ctx: RowContext, type: string): Row {
  const any = ctx.choices.devices[0]?.serial_number;
  switch (type) {
    case 'time':
      return { type, after: '22:00', before: '06:00' };
    case 'weekday':
      return { type, weekdays: ['sat', 'sun'] };
    case 'sun':
      return { type, after: { event: 'sunset' } };
    case 'state':
      return valueRow(ctx, 'state', (v) => ({ equals: v }));
    case 'online':
      return { type, ...(any ? { device: any } : {}), online: true };
    case 'security':
      return { type, state: 'armed' };
    default:
      return { type, conditions: [{ type: 'weekday', weekdays: ['sat', 'sun'] }] };
  }
}

function newAction(ctx: RowContext, type: string): Row {
  switch (type) {
    case 'device': {
      const d = ctx.devices.find((x) => x.layout.controls.length > 0);
      const c = d?.layout.controls[0];
      return { type, ...(d && c ? { device: d.serial_number, state: controlCommand(c, controlDefault(c)) } : {}) };
    }
    case 'scene': {
      const s = ctx.choices.definitions.find((x) => x.kind === 'scene' && x.id !== ctx.self);
      return { type, ...(s ? { scene: s.id } : {}) };
    }
    case 'security':
      return { type, action: 'arm' };
    case 'sound':
      return { type, sound: ctx.choices.sounds[0] ?? 'doorbell1' };
    case 'speak':
      return { type, text: '' };
    case 'delay':
      return { type, seconds: 60 };
    case 'wait':
      return valueRow(ctx, 'wait', (v) => ({ equals: v, timeout_seconds: 300 }));
    case 'automation': {
      const s = ctx.choices.definitions.find((x) => x.id !== ctx.self);
      return { type, ...(s ? { automation: s.id } : {}), enabled: false };
    }
    default:
      return { type, message: '' };
  }
}

function TypeField(p: { label: string; types: [string, string][]; value: unknown; onChange: (type: string) => void }) {
  return (
    <Field label={p.label}>
      <select value={String(p.value)} onChange={(e) => p.onChange((e.target as HTMLSelectElement).value)}>
        {p.types.map(([t, words]) => (
          <option key={t} value={t}>
            {words}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The device and value fields of a row that reads a device value; `rest` keeps the row's other fields. */
function ValueRef(p: { ctx: RowContext; row: Row; onChange: (row: Row) => void; reset: (v: unknown) => Row }) {
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

function Problems({ errors }: { errors: string[] }) {
  if (errors.length === 0) return null;
  return (
    <ul class="problems">
      {errors.map((e) => (
        <li key={e}>{e}</li>
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

/** A trigger (WHEN). */
export function TriggerRow(p: RowProps) {
  const { row, ctx } = p;
  const set = (patch: Row) => p.onChange({ ...row, ...patch });
  const dc = ctx.choices.devices.find((d) => d.serial_number === row.device);
  const device = liveDevice(ctx.devices, row.device);
  const choice = dc?.values.find(
    (v) => v.capability === row.capability && (v.name ?? undefined) === row.name && v.field === row.field,
  );
  return (
    <fieldset class="rule" data-path={p.path}>
      <TypeField label="When" types={TRIGGERS} value={row.type} onChange={(t) => p.onChange(newTrigger(ctx, t))} />
      {row.type === 'state' && (
        <ValueRef
          ctx={ctx}
          row={row}
          onChange={p.onChange}
          reset={(v) => (typeof v === 'number' ? { above: v } : { to: v })}
        />
      )}
      {row.type === 'state' && choice && choice.type === 'number' && (
        <>
          <Field label="Crosses">
            <select
              value={row.below !== undefined ? 'below' : 'above'}
              onChange={(e) => {
                const { above: _a, below: _b, ...rest } = row;
                p.onChange({
                  ...rest,
                  [(e.target as HTMLSelectElement).value]: row.above ?? row.below ?? firstValue(choice),
                });
              }}
            >
              <option value="above">rising above</option>
              <option value="below">falling below</option>
            </select>
          </Field>
          <ValueInput
            choice={choice}
            device={device}
            label="Value"
            value={row.above ?? row.below}
            onChange={(v) => set(row.below !== undefined ? { below: v } : { above: v })}
          />
        </>
      )}
      {row.type === 'state' && choice && choice.type !== 'number' && (
        <ValueInput choice={choice} device={device} label="Becomes" value={row.to} onChange={(v) => set({ to: v })} />
      )}
      {row.type === 'press' && <PressFields ctx={ctx} row={row} onChange={p.onChange} />}
      {row.type === 'online' && (
        <>
          <DeviceField
            devices={ctx.choices.devices}
            value={row.device}
            onChange={(d) => set({ device: d.serial_number })}
          />
          <Field label="It">
            <select
              value={row.online ? 'on' : 'off'}
              onChange={(e) => set({ online: (e.target as HTMLSelectElement).value === 'on' })}
            >
              <option value="off">goes offline</option>
              <option value="on">comes back online</option>
            </select>
          </Field>
        </>
      )}
      {(row.type === 'state' || row.type === 'online') && (
        <DurationField
          label="Held for"
          optional
          value={row.for_seconds}
          onChange={(s) => {
            const { for_seconds: _f, ...rest } = row;
            p.onChange(s ? { ...rest, for_seconds: s } : rest);
          }}
        />
      )}
      {row.type === 'time' && (
        <>
          <TimeField label="At" value={row.at} onChange={(v) => v && set({ at: v })} />
          <WeekdaysField value={row.weekdays} onChange={(w) => p.onChange(withDays(row, w))} />
        </>
      )}
      {row.type === 'sun' && (
        <>
          {!ctx.choices.location && <NoLocation />}
          <SunFields row={row} onChange={p.onChange} />
          <WeekdaysField value={row.weekdays} onChange={(w) => p.onChange(withDays(row, w))} />
        </>
      )}
      {row.type === 'security' && <SecurityFields ctx={ctx} row={row} onChange={p.onChange} anyMode />}
      {row.type === 'alarm' && (
        <Field label="The alarm">
          <select value={String(row.state)} onChange={(e) => set({ state: (e.target as HTMLSelectElement).value })}>
            <option value="raised">sounds</option>
            <option value="cancelled">ends</option>
          </select>
        </Field>
      )}
      <RowButtons onRemove={p.onRemove} />
      <Problems errors={p.errors(p.path)} />
    </fieldset>
  );
}

function withDays(row: Row, days: string[] | undefined): Row {
  const { weekdays: _w, ...rest } = row;
  return days ? { ...rest, weekdays: days } : rest;
}

function NoLocation() {
  return (
    <p class="notice small">
      Sunrise and sunset need the gateway's location: set <code>location</code> (latitude,longitude) on the Gateway
      page's settings, or with <code>--location</code>.
    </p>
  );
}

function PressFields(p: { ctx: RowContext; row: Row; onChange: (row: Row) => void }) {
  const buttons = p.ctx.choices.devices.filter((d) => d.presses.length > 0);
  const dc = buttons.find((d) => d.serial_number === p.row.device);
  const group = dc?.presses.find((x) => (x.name ?? undefined) === p.row.name) ?? dc?.presses[0];
  const pick = (d: DeviceChoices, name?: string) => {
    const g = d.presses.find((x) => (x.name ?? undefined) === name) ?? d.presses[0];
    if (g)
      p.onChange({ type: 'press', device: d.serial_number, ...(g.name ? { name: g.name } : {}), press: g.presses[0] });
  };
  return (
    <>
      <DeviceField devices={buttons} value={p.row.device} label="Button" onChange={(d) => pick(d)} />
      {dc && dc.presses.length > 1 && (
        <Field label="Which">
          <select value={String(p.row.name ?? '')} onChange={(e) => pick(dc, (e.target as HTMLSelectElement).value)}>
            {dc.presses.map((g) => (
              <option key={g.name ?? ''} value={g.name ?? ''}>
                {g.name === undefined ? 'The button' : `Button ${g.name}`}
              </option>
            ))}
          </select>
        </Field>
      )}
      {group && (
        <Field label="Press">
          <select
            value={String(p.row.press)}
            onChange={(e) => p.onChange({ ...p.row, press: (e.target as HTMLSelectElement).value })}
          >
            {group.presses.map((x) => (
              <option key={x} value={x}>
                {humanize(x)}
              </option>
            ))}
          </select>
        </Field>
      )}
    </>
  );
}

function SecurityFields(p: { ctx: RowContext; row: Row; onChange: (row: Row) => void; anyMode: boolean }) {
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
      <Field label="Is">
        <select
          value={String(p.row.state)}
          onChange={(e) => p.onChange({ ...p.row, state: (e.target as HTMLSelectElement).value })}
        >
          <option value="armed">armed</option>
          <option value="disarmed">disarmed</option>
        </select>
      </Field>
    </>
  );
}

/** A condition (AND IF); a group holds conditions of its own. */
export function ConditionRow(p: RowProps & { depth: number }) {
  const { row, ctx } = p;
  const set = (patch: Row) => p.onChange({ ...row, ...patch });
  const dc = ctx.choices.devices.find((d) => d.serial_number === row.device);
  const device = liveDevice(ctx.devices, row.device);
  const choice = dc?.values.find(
    (v) => v.capability === row.capability && (v.name ?? undefined) === row.name && v.field === row.field,
  );
  const group = row.type === 'any' || row.type === 'not' || row.type === 'all';
  // Groups nest at most 4 deep (the gateway's limit): the deepest offers no group.
  const types = p.depth >= 4 ? CONDITIONS.filter(([t]) => !['any', 'not', 'all'].includes(t)) : CONDITIONS;
  return (
    <fieldset class={group ? 'rule group' : 'rule'} data-path={p.path}>
      <TypeField label="If" types={types} value={row.type} onChange={(t) => p.onChange(newCondition(ctx, t))} />
      {row.type === 'time' && (
        <>
          <TimeField label="After" optional value={row.after} onChange={(v) => p.onChange(optional(row, 'after', v))} />
          <TimeField
            label="Before"
            optional
            value={row.before}
            onChange={(v) => p.onChange(optional(row, 'before', v))}
          />
          <WeekdaysField value={row.weekdays} onChange={(w) => p.onChange(withDays(row, w))} />
        </>
      )}
      {row.type === 'weekday' && (
        <WeekdaysField required value={row.weekdays} onChange={(w) => w && set({ weekdays: w })} />
      )}
      {row.type === 'sun' && (
        <>
          {!ctx.choices.location && <NoLocation />}
          <SunBound label="After" row={row} bound="after" onChange={p.onChange} />
          <SunBound label="Before" row={row} bound="before" onChange={p.onChange} />
        </>
      )}
      {row.type === 'state' && (
        <>
          <ValueRef ctx={ctx} row={row} onChange={p.onChange} reset={(v) => ({ equals: v })} />
          {choice && <Comparison choice={choice} device={device} row={row} onChange={p.onChange} />}
        </>
      )}
      {row.type === 'online' && (
        <>
          <DeviceField
            devices={ctx.choices.devices}
            value={row.device}
            onChange={(d) => set({ device: d.serial_number })}
          />
          <Field label="Is">
            <select
              value={row.online ? 'on' : 'off'}
              onChange={(e) => set({ online: (e.target as HTMLSelectElement).value === 'on' })}
            >
              <option value="on">online</option>
              <option value="off">offline</option>
            </select>
          </Field>
        </>
      )}
      {row.type === 'security' && <SecurityFields ctx={ctx} row={row} onChange={p.onChange} anyMode />}
      {group && (
        <RowList
          kind="condition"
          ctx={ctx}
          rows={(row.conditions as Row[]) ?? []}
          path={`${p.path}.conditions`}
          errors={p.errors}
          depth={p.depth + 1}
          onChange={(conditions) => set({ conditions })}
        />
      )}
      <RowButtons onRemove={p.onRemove} />
      <Problems errors={p.errors(p.path)} />
    </fieldset>
  );
}

function optional(row: Row, key: string, v: unknown): Row {
  const { [key]: _drop, ...rest } = row;
  return v === undefined ? rest : { ...rest, [key]: v };
}

function SunBound(p: { label: string; row: Row; bound: 'after' | 'before'; onChange: (row: Row) => void }) {
  const b = p.row[p.bound] as Row | undefined;
  return (
    <div class="sun-bound">
      <label class="check">
        <input
          type="checkbox"
          checked={b !== undefined}
          onChange={(e) =>
            p.onChange(
              optional(p.row, p.bound, (e.target as HTMLInputElement).checked ? { event: 'sunset' } : undefined),
            )
          }
        />
        {p.label}
      </label>
      {b && <SunFields row={b} label={p.label} onChange={(next) => p.onChange({ ...p.row, [p.bound]: next })} />}
    </div>
  );
}

/** The command of one control (console/src/components/controls.tsx sends the same). */
export function controlCommand(c: Control, value: unknown): Row {
  const inner = c.kind === 'color' ? value : { [c.field]: value };
  return c.name === undefined ? { [c.capability]: inner } : { [c.capability]: { [c.name]: inner } };
}

function controlDefault(c: Control): unknown {
  if (c.kind === 'color') return { red: 255, green: 180, blue: 90 };
  if (c.kind === 'bool') return true;
  if (c.values && c.values.length > 0) return c.kind === 'switch' && c.values.includes('on') ? 'on' : c.values[0];
  return c.min ?? 0;
}

/** The one control a device command sets, and its value, when the command is one control's. */
function controlOf(d: Device | undefined, state: unknown): [Control, unknown] | undefined {
  if (!d || typeof state !== 'object' || state === null) return undefined;
  for (const c of d.layout.controls) {
    const body = (state as Row)[c.capability];
    if (Object.keys(state).length !== 1 || typeof body !== 'object' || body === null) continue;
    const inner = c.name === undefined ? body : (body as Row)[c.name];
    if (c.name !== undefined && Object.keys(body).length !== 1) continue;
    if (typeof inner !== 'object' || inner === null) continue;
    if (c.kind === 'color') {
      if (['red', 'green', 'blue'].every((k) => k in inner) && Object.keys(inner).length === 3) return [c, inner];
      continue;
    }
    if (Object.keys(inner).length === 1 && c.field in inner) return [c, (inner as Row)[c.field]];
  }
  return undefined;
}

function ControlValue(p: { c: Control; value: unknown; onChange: (v: unknown) => void }) {
  const { c } = p;
  if (c.kind === 'color') {
    const hex = colourHex(p.value);
    return (
      <Field label={c.label}>
        <input
          type="color"
          value={hex}
          onInput={(e) => {
            const v = (e.target as HTMLInputElement).value;
            p.onChange({
              red: parseInt(v.slice(1, 3), 16),
              green: parseInt(v.slice(3, 5), 16),
              blue: parseInt(v.slice(5, 7), 16),
            });
          }}
        />
      </Field>
    );
  }
  if (c.kind === 'bool')
    return (
      <Field label={c.label}>
        <select
          value={p.value ? 'yes' : 'no'}
          onChange={(e) => p.onChange((e.target as HTMLSelectElement).value === 'yes')}
        >
          <option value="yes">Yes</option>
          <option value="no">No</option>
        </select>
      </Field>
    );
  if (c.values && c.values.length > 0)
    return (
      <Field label={c.label}>
        <select
          value={String(c.values.indexOf(p.value as string | number | boolean))}
          onChange={(e) => p.onChange(c.values?.[Number((e.target as HTMLSelectElement).value)])}
        >
          {c.values.map((v, i) => (
            <option key={String(v)} value={String(i)}>
              {humanize(String(v))}
            </option>
          ))}
        </select>
      </Field>
    );
  return (
    <Field label={c.unit ? `${c.label} (${c.unit})` : c.label}>
      <input
        type="number"
        inputMode="decimal"
        min={c.min}
        max={c.max}
        step={c.step ?? 'any'}
        value={typeof p.value === 'number' ? p.value : ''}
        onInput={(e) => {
          const text = (e.target as HTMLInputElement).value;
          p.onChange(text === '' ? undefined : Number(text));
        }}
      />
    </Field>
  );
}

function DeviceAction(p: { ctx: RowContext; row: Row; onChange: (row: Row) => void }) {
  const controllable = p.ctx.devices.filter((d) => d.layout.controls.length > 0);
  const d = liveDevice(p.ctx.devices, p.row.device);
  const current = controlOf(d, p.row.state);
  const pick = (device: Device, c = device.layout.controls[0]) =>
    c && p.onChange({ type: 'device', device: device.serial_number, state: controlCommand(c, controlDefault(c)) });
  const choices = controllable.map((x) => ({
    serial_number: x.serial_number,
    name: x.name,
    online: x.online,
    values: [],
    presses: [],
    controllable: true,
  }));
  return (
    <>
      <DeviceField
        devices={choices}
        value={p.row.device}
        onChange={(dc) => {
          const device = liveDevice(p.ctx.devices, dc.serial_number);
          if (device) pick(device);
        }}
      />
      {d && current && (
        <>
          <Field label="Set">
            <select
              value={current[0].id}
              onChange={(e) =>
                pick(
                  d,
                  d.layout.controls.find((c) => c.id === (e.target as HTMLSelectElement).value),
                )
              }
            >
              {d.layout.controls.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.label}
                </option>
              ))}
            </select>
          </Field>
          <ControlValue
            c={current[0]}
            value={current[1]}
            onChange={(v) => p.onChange({ ...p.row, state: controlCommand(current[0], v) })}
          />
        </>
      )}
      {d && !current && (
        <p class="kept">
          {actionWords({ devices: p.ctx.devices, choices: p.ctx.choices }, p.row)}{' '}
          <button type="button" class="small" onClick={() => pick(d)}>
            Change
          </button>
        </p>
      )}
    </>
  );
}

/** An action (THEN). */
export function ActionRow(p: RowProps) {
  const { row, ctx } = p;
  const set = (patch: Row) => p.onChange({ ...row, ...patch });
  const dc = ctx.choices.devices.find((d) => d.serial_number === row.device);
  const device = liveDevice(ctx.devices, row.device);
  const choice = dc?.values.find(
    (v) => v.capability === row.capability && (v.name ?? undefined) === row.name && v.field === row.field,
  );
  const scenes = ctx.choices.definitions.filter((x) => x.kind === 'scene' && x.id !== ctx.self);
  const others = ctx.choices.definitions.filter((x) => x.id !== ctx.self);
  return (
    <fieldset class="rule" data-path={p.path}>
      <TypeField label="Then" types={ACTIONS} value={row.type} onChange={(t) => p.onChange(newAction(ctx, t))} />
      {row.type === 'device' && <DeviceAction ctx={ctx} row={row} onChange={p.onChange} />}
      {row.type === 'scene' && (
        <Field label="Scene">
          <select
            value={String(row.scene ?? '')}
            onChange={(e) => set({ scene: (e.target as HTMLSelectElement).value })}
          >
            {!scenes.some((s) => s.id === row.scene) && (
              <option value="" disabled>
                Choose a scene
              </option>
            )}
            {scenes.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </Field>
      )}
      {row.type === 'security' && (
        <>
          <Field label="Do">
            <select value={String(row.action)} onChange={(e) => set({ action: (e.target as HTMLSelectElement).value })}>
              <option value="arm">Arm</option>
              <option value="disarm">Disarm</option>
            </select>
          </Field>
          <Field label="Mode">
            <select
              value={row.sid === undefined ? '' : String(row.sid)}
              onChange={(e) =>
                p.onChange(
                  optional(
                    row,
                    'sid',
                    (e.target as HTMLSelectElement).value === ''
                      ? undefined
                      : Number((e.target as HTMLSelectElement).value),
                  ),
                )
              }
            >
              <option value="">{row.action === 'arm' ? 'The default mode' : 'Every mode'}</option>
              {ctx.choices.security_modes.map((m) => (
                <option key={m.sid} value={String(m.sid)}>
                  {humanize(m.name)}
                </option>
              ))}
            </select>
          </Field>
        </>
      )}
      {row.type === 'sound' && (
        <>
          <Field label="Sound">
            <select value={String(row.sound)} onChange={(e) => set({ sound: (e.target as HTMLSelectElement).value })}>
              {ctx.choices.sounds.map((s) => (
                <option key={s} value={s}>
                  {humanize(s)}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Volume (%)">
            <input
              type="number"
              min={0}
              max={100}
              value={typeof row.volume === 'number' ? row.volume : 100}
              onInput={(e) => set({ volume: Math.round(Number((e.target as HTMLInputElement).value)) })}
            />
          </Field>
        </>
      )}
      {row.type === 'speak' && (
        <>
          <Field label="Text" wide>
            <input
              maxLength={500}
              value={String(row.text ?? '')}
              onInput={(e) => set({ text: (e.target as HTMLInputElement).value })}
            />
          </Field>
          {ctx.choices.tts_engines.length > 1 && (
            <Field label="Voice">
              <select
                value={String(row.engine ?? '')}
                onChange={(e) =>
                  p.onChange(optional(row, 'engine', (e.target as HTMLSelectElement).value || undefined))
                }
              >
                <option value="">The default</option>
                {ctx.choices.tts_engines.map((e) => (
                  <option key={e.id} value={e.id}>
                    {e.name}
                  </option>
                ))}
              </select>
            </Field>
          )}
          {ctx.choices.tts_engines.length === 0 && (
            <p class="notice small">No TTS engine is available: this action would fail.</p>
          )}
        </>
      )}
      {row.type === 'delay' && (
        <DurationField label="For" value={row.seconds} onChange={(s) => set({ seconds: s ?? 0 })} />
      )}
      {row.type === 'wait' && (
        <>
          <ValueRef
            ctx={ctx}
            row={row}
            onChange={(r) => p.onChange({ ...r, timeout_seconds: row.timeout_seconds ?? 300 })}
            reset={(v) => ({ equals: v })}
          />
          {choice && <Comparison choice={choice} device={device} row={row} onChange={p.onChange} />}
          <DurationField
            label="At most"
            value={row.timeout_seconds}
            onChange={(s) => set({ timeout_seconds: s ?? 1 })}
          />
          <Field label="Then">
            <select
              value={row.on_timeout === 'stop' ? 'stop' : 'continue'}
              onChange={(e) =>
                p.onChange(
                  optional(row, 'on_timeout', (e.target as HTMLSelectElement).value === 'stop' ? 'stop' : undefined),
                )
              }
            >
              <option value="continue">go on at the time-out</option>
              <option value="stop">stop the run at the time-out</option>
            </select>
          </Field>
        </>
      )}
      {row.type === 'automation' && (
        <>
          <Field label="Do">
            <select
              value={row.enabled ? 'enable' : 'disable'}
              onChange={(e) => set({ enabled: (e.target as HTMLSelectElement).value === 'enable' })}
            >
              <option value="enable">Enable</option>
              <option value="disable">Disable</option>
            </select>
          </Field>
          <Field label="Which">
            <select
              value={String(row.automation ?? '')}
              onChange={(e) => set({ automation: (e.target as HTMLSelectElement).value })}
            >
              {!others.some((s) => s.id === row.automation) && (
                <option value="" disabled>
                  Choose one
                </option>
              )}
              {others.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </Field>
        </>
      )}
      {row.type === 'notify' && (
        <Field label="Message" wide>
          <input
            maxLength={500}
            value={String(row.message ?? '')}
            onInput={(e) => set({ message: (e.target as HTMLInputElement).value })}
          />
        </Field>
      )}
      <RowButtons onRemove={p.onRemove} onUp={p.onUp} onDown={p.onDown} />
      <Problems errors={p.errors(p.path)} />
    </fieldset>
  );
}

/** A list of rows of one kind, with its "Add" button. */
export function RowList(p: {
  kind: 'trigger' | 'condition' | 'action';
  ctx: RowContext;
  rows: Row[];
  path: string;
  errors: (path: string) => string[];
  onChange: (rows: Row[]) => void;
  depth?: number;
}) {
  const { rows } = p;
  const replace = (i: number, row: Row | undefined) =>
    p.onChange(row === undefined ? rows.filter((_, j) => j !== i) : rows.map((r, j) => (j === i ? row : r)));
  const move = (i: number, by: number) => {
    const next = [...rows];
    const [r] = next.splice(i, 1);
    next.splice(i + by, 0, r as Row);
    p.onChange(next);
  };
  const add = () =>
    p.onChange([
      ...rows,
      p.kind === 'trigger'
        ? newTrigger(p.ctx, 'state')
        : p.kind === 'condition'
          ? newCondition(p.ctx, 'time')
          : newAction(p.ctx, 'device'),
    ]);
  const words = p.kind === 'trigger' ? 'Add a trigger' : p.kind === 'condition' ? 'Add a condition' : 'Add an action';
  return (
    <div class="rows">
      {rows.map((row, i) => {
        const common = {
          ctx: p.ctx,
          row,
          path: `${p.path}.${i}`,
          errors: p.errors,
          onChange: (r: Row) => replace(i, r),
          onRemove: () => replace(i, undefined),
        };
        const key = `${p.path}.${i}`;
        if (p.kind === 'trigger') return <TriggerRow key={key} {...common} />;
        if (p.kind === 'condition') return <ConditionRow key={key} {...common} depth={p.depth ?? 1} />;
        return (
          <ActionRow
            key={key}
            {...common}
            onUp={i > 0 ? () => move(i, -1) : undefined}
            onDown={i < rows.length - 1 ? () => move(i, 1) : undefined}
          />
        );
      })}
      <button type="button" class="small add" onClick={add}>
        {words}
      </button>
    </div>
  );
}
