/**
 * The rows of the IF/THEN editor: a list of triggers (WHEN, rule-trigger.tsx), of conditions (AND
 * IF, here: groups nest lists within), or of actions (THEN, rule-action.tsx), with its Add button.
 * Each row is the API's JSON object, edited field by field through rule-fields.tsx; switching its
 * type starts it afresh with valid defaults (the first device that offers what the type needs).
 */
import { useLayoutEffect, useRef } from 'preact/hooks';
import { ActionRow, newAction } from './rule-action.tsx';
import { Comparison, DeviceField, SunFields, TimeField, WeekdaysField } from './rule-fields.tsx';
import {
  ChoiceField,
  NoLocation,
  optional,
  type Row,
  type RowContext,
  type RowProps,
  RuleRow,
  rowValue,
  SecurityFields,
  ValueRef,
  valueRow,
  withDays,
} from './rule-parts.tsx';
import { newTrigger, TriggerRow } from './rule-trigger.tsx';

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

/** A new condition of a type. */
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

/** A condition (AND IF); a group holds conditions of its own. */
export function ConditionRow(p: RowProps & { depth: number }) {
  const { row, ctx } = p;
  const set = (patch: Row) => p.onChange({ ...row, ...patch });
  const { device, choice } = rowValue(ctx, row);
  const group = row.type === 'any' || row.type === 'not' || row.type === 'all';
  // Groups nest at most 4 deep (the gateway's limit): the deepest offers no group.
  const types = p.depth >= 4 ? CONDITIONS.filter(([t]) => !['any', 'not', 'all'].includes(t)) : CONDITIONS;
  return (
    <RuleRow {...p} label="If" types={types} retype={(t) => newCondition(ctx, t)} group={group}>
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
          <ChoiceField
            label="Is"
            options={[
              ['on', 'online'],
              ['off', 'offline'],
            ]}
            value={row.online ? 'on' : 'off'}
            onChange={(v) => set({ online: v === 'on' })}
          />
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
    </RuleRow>
  );
}

function SunBound(p: { label: string; row: Row; bound: 'after' | 'before'; onChange: (row: Row) => void }) {
  const b = p.row[p.bound] as Row | undefined;
  return (
    // A group named by its bound: both bounds have the same fields (Minutes, Before or after).
    <fieldset class="sun-bound" aria-label={p.label}>
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
      {b && <SunFields row={b} onChange={(next) => p.onChange({ ...p.row, [p.bound]: next })} />}
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
  // The keyboard's focus follows what the person did, once the list has rendered it (a layout
  // effect: before the next key can land on a button that now means another row): to a row added
  // (its first field, not the Add button below it), to the row after one removed (or the Add
  // button), to the same Move button of a row moved (rows are keyed by place: left where it was,
  // the focus would be on another row's button).
  const box = useRef<HTMLDivElement>(null);
  const focusNext = useRef<string | undefined>(undefined);
  useLayoutEffect(() => {
    const selector = focusNext.current;
    if (selector === undefined) return;
    focusNext.current = undefined;
    const list = box.current;
    (list?.querySelector<HTMLElement>(selector) ?? list?.querySelector<HTMLElement>(':scope > button.add'))?.focus();
  });
  const rowAt = (i: number) => `:scope > fieldset[data-path="${p.path}.${i}"]`;
  const replace = (i: number, row: Row | undefined) => {
    if (row === undefined) focusNext.current = `${rowAt(i)} select`;
    p.onChange(row === undefined ? rows.filter((_, j) => j !== i) : rows.map((r, j) => (j === i ? row : r)));
  };
  const move = (i: number, by: number) => {
    const next = [...rows];
    const [r] = next.splice(i, 1);
    next.splice(i + by, 0, r as Row);
    const to = i + by;
    const button = by < 0 ? 'Move up' : 'Move down';
    const stays = by < 0 ? to > 0 : to < rows.length - 1;
    focusNext.current = `${rowAt(to)} button[aria-label="${stays ? button : by < 0 ? 'Move down' : 'Move up'}"]`;
    p.onChange(next);
  };
  const add = () => {
    focusNext.current = `${rowAt(rows.length)} select`;
    p.onChange([
      ...rows,
      p.kind === 'trigger'
        ? newTrigger(p.ctx, 'state')
        : p.kind === 'condition'
          ? newCondition(p.ctx, 'time')
          : newAction(p.ctx, 'device'),
    ]);
  };
  // Inside a group its own button says so: a group's list and the part's end one above the other.
  const words =
    p.kind === 'trigger'
      ? 'Add a trigger'
      : p.kind === 'action'
        ? 'Add an action'
        : (p.depth ?? 1) > 1
          ? 'Add a condition to this group'
          : 'Add a condition';
  return (
    <div class="rows" ref={box}>
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
