/** A trigger row of the IF/THEN editor (WHEN): a device value, a press, online, a time, the sun, a mode, the alarm, the start. */
import { type DeviceChoices, type ValueChoice, valueWords } from '../automations.ts';
import { humanize } from '../format.ts';
import type { Device } from '../types.ts';
import {
  DeviceField,
  DurationField,
  Field,
  firstValue,
  SunFields,
  TimeField,
  ValueInput,
  WeekdaysField,
} from './rule-fields.tsx';
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

export const TRIGGERS: [string, string][] = [
  ['state', 'A device value changes'],
  ['press', 'A button is pressed'],
  ['online', 'A device goes offline or comes back'],
  ['time', 'A time of day'],
  ['sun', 'Sunrise or sunset'],
  ['security', 'A security mode is armed or disarmed'],
  ['alarm', 'The alarm sounds or ends'],
  ['started', 'The gateway starts'],
];

/** A new trigger of a type. */
export function newTrigger(ctx: RowContext, type: string): Row {
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

/** A trigger (WHEN). */
export function TriggerRow(p: RowProps) {
  const { row, ctx } = p;
  const set = (patch: Row) => p.onChange({ ...row, ...patch });
  const { device, choice } = rowValue(ctx, row);
  return (
    <RuleRow {...p} label="When" types={TRIGGERS} retype={(t) => newTrigger(ctx, t)}>
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
              value={'below' in row ? 'below' : 'above'}
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
            // By the key, not its value: a value cleared while typing keeps "falling below".
            onChange={(v) => set('below' in row ? { below: v } : { above: v })}
          />
        </>
      )}
      {row.type === 'state' && choice && choice.type !== 'number' && (
        <ValueInput choice={choice} device={device} label="Becomes" value={row.to} onChange={(v) => set({ to: v })} />
      )}
      {row.type === 'state' && choice && choice.type !== 'number' && (choice.values?.length ?? 0) > 2 && (
        <FromField choice={choice} device={device} row={row} onChange={p.onChange} />
      )}
      {row.type === 'press' && <PressFields ctx={ctx} row={row} onChange={p.onChange} />}
      {row.type === 'online' && (
        <>
          <DeviceField
            devices={ctx.choices.devices}
            value={row.device}
            onChange={(d) => set({ device: d.serial_number })}
          />
          <ChoiceField
            label="Change"
            options={[
              ['off', 'goes offline'],
              ['on', 'comes back online'],
            ]}
            value={row.online ? 'on' : 'off'}
            onChange={(v) => set({ online: v === 'on' })}
          />
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
        <ChoiceField
          label="The alarm"
          options={[
            ['raised', 'sounds'],
            ['cancelled', 'ends'],
          ]}
          value={row.state}
          onChange={(state) => set({ state })}
        />
      )}
    </RuleRow>
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

/**
 * What the value was before (`from`), for a value of more than two values (a curtain's *open*,
 * *close*, *stop*): *any value* leaves it out. Of two values, the other one is the only "from".
 */
function FromField(p: { choice: ValueChoice; device?: Device; row: Row; onChange: (row: Row) => void }) {
  const values = p.choice.values ?? [];
  const index = values.indexOf(p.row.from);
  return (
    <Field label="From">
      <select
        value={index === -1 ? '' : String(index)}
        onChange={(e) => {
          const i = (e.target as HTMLSelectElement).value;
          p.onChange(optional(p.row, 'from', i === '' ? undefined : values[Number(i)]));
        }}
      >
        <option value="">any value</option>
        {values.map((v, i) => (
          <option key={String(v)} value={String(i)}>
            {valueWords(p.device, p.choice, v)}
          </option>
        ))}
      </select>
    </Field>
  );
}
