/**
 * An action row of the IF/THEN editor (THEN): a device command from the device's own controls, a
 * scene, a mode, a sound, speech, a delay, a wait, an automation switched, a notification. A
 * device command the editor cannot edit control by control (several capabilities, made through
 * the API) is shown in words and kept as it is.
 */
import { actionWords } from '../automations.ts';
import { colourHex, humanize } from '../format.ts';
import type { Control, Device } from '../types.ts';
import { Comparison, DeviceField, DurationField, Field, liveDevice, NumberInput } from './rule-fields.tsx';
import {
  ChoiceField,
  optional,
  type Row,
  type RowContext,
  type RowProps,
  RuleRow,
  rowValue,
  ValueRef,
  valueRow,
} from './rule-parts.tsx';

export const ACTIONS: [string, string][] = [
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

/** A new action of a type. */
export function newAction(ctx: RowContext, type: string): Row {
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
      <NumberInput
        min={c.min}
        max={c.max}
        step={c.step ?? 'any'}
        value={typeof p.value === 'number' ? p.value : undefined}
        onChange={p.onChange}
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
  const { device, choice } = rowValue(ctx, row);
  const scenes = ctx.choices.definitions.filter((x) => x.kind === 'scene' && x.id !== ctx.self);
  const others = ctx.choices.definitions.filter((x) => x.id !== ctx.self);
  return (
    <RuleRow {...p} label="Then" types={ACTIONS} retype={(t) => newAction(ctx, t)}>
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
          <ChoiceField
            label="Do"
            options={[
              ['arm', 'Arm'],
              ['disarm', 'Disarm'],
            ]}
            value={row.action}
            onChange={(action) => set({ action })}
          />
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
            <NumberInput
              min={0}
              max={100}
              step={1}
              placeholder="100"
              value={typeof row.volume === 'number' ? row.volume : undefined}
              onChange={(n) => set({ volume: n === undefined ? undefined : Math.round(n) })}
            />
          </Field>
        </>
      )}
      {row.type === 'speak' && (
        <>
          <Field label="Text" wide>
            <input
              required
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
                <option value="">The default voice</option>
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
        <DurationField label="For" value={row.seconds} onChange={(s) => p.onChange(optional(row, 'seconds', s))} />
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
            onChange={(s) => p.onChange(optional(row, 'timeout_seconds', s))}
          />
          <ChoiceField
            label="At the time-out"
            options={[
              ['continue', 'go on'],
              ['stop', 'stop the run'],
            ]}
            value={row.on_timeout === 'stop' ? 'stop' : 'continue'}
            onChange={(v) => p.onChange(optional(row, 'on_timeout', v === 'stop' ? 'stop' : undefined))}
          />
        </>
      )}
      {row.type === 'automation' && (
        <>
          <ChoiceField
            label="Do"
            options={[
              ['enable', 'Enable'],
              ['disable', 'Disable'],
            ]}
            value={row.enabled ? 'enable' : 'disable'}
            onChange={(v) => set({ enabled: v === 'enable' })}
          />
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
            required
            maxLength={500}
            value={String(row.message ?? '')}
            onInput={(e) => set({ message: (e.target as HTMLInputElement).value })}
          />
        </Field>
      )}
    </RuleRow>
  );
}
