/**
 * One control per controllable field of a device, as the gateway's layout describes it (made
 * from the catalog): a switch, choices, a slider, a number, a colour, a yes/no, an action. Each
 * sends a control command exactly as D4 takes it, and says how it went.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { at, colourHex, humanize } from '../format.ts';
import { act } from '../store.ts';
import type { Control, Device } from '../types.ts';

function command(c: Control, value: unknown): Record<string, unknown> {
  const inner = c.kind === 'color' ? value : { [c.field]: value };
  return c.name === undefined ? { [c.capability]: inner } : { [c.capability]: { [c.name]: inner } };
}

/** A labelled on/off switch (its state in its text, e.g. On/Off or Yes/No). */
export function Toggle(p: { label: string; on: boolean; text: string; disabled?: boolean; onClick: () => void }) {
  return (
    <div class="control switch">
      <span class="label">{p.label}</span>
      <button
        type="button"
        class={p.on ? 'toggle on' : 'toggle'}
        role="switch"
        aria-checked={p.on}
        aria-label={p.label}
        disabled={p.disabled}
        onClick={p.onClick}
      >
        {p.text}
      </button>
    </div>
  );
}

async function send(d: Device, c: Control, value: unknown, words: string): Promise<void> {
  await act(`${d.name}: ${c.label} ${words}`, () =>
    api('PUT', `/devices/${encodeURIComponent(d.serial_number)}`, { state: command(c, value) }),
  );
}

function RangeControl({ d, c }: { d: Device; c: Control }) {
  const current = at(d.state, c.path);
  const [value, setValue] = useState<number | undefined>(typeof current === 'number' ? current : undefined);
  const [dragging, setDragging] = useState(false);
  // The live value follows the device, except while the person is moving the slider.
  useEffect(() => {
    if (!dragging && typeof current === 'number') setValue(current);
  }, [current, dragging]);
  const shown = value ?? c.min ?? 0;
  return (
    <label class="control range">
      <span class="label">{c.label}</span>
      <input
        type="range"
        min={c.min}
        max={c.max}
        step={c.step ?? 1}
        value={shown}
        aria-label={c.label}
        onInput={(e) => {
          setDragging(true);
          setValue(Number((e.target as HTMLInputElement).value));
        }}
        onChange={(e) => {
          setDragging(false);
          const v = Number((e.target as HTMLInputElement).value);
          void send(d, c, v, `set to ${v}${c.unit ? ` ${c.unit}` : ''}`);
        }}
      />
      <output>
        {value === undefined ? '–' : value}
        {c.unit ? ` ${c.unit}` : ''}
      </output>
      {c.ends && (
        <span class="ends" aria-hidden="true">
          <span>{c.ends[0]}</span>
          <span>{c.ends[1]}</span>
        </span>
      )}
    </label>
  );
}

function NumberControl({ d, c }: { d: Device; c: Control }) {
  const current = at(d.state, c.path);
  const [text, setText] = useState(typeof current === 'number' ? String(current) : '');
  return (
    <form
      class="control number"
      onSubmit={(e) => {
        e.preventDefault();
        const v = Number(text);
        if (text.trim() === '' || !Number.isFinite(v)) return;
        void send(d, c, v, `set to ${v}${c.unit ? ` ${c.unit}` : ''}`);
      }}
    >
      <span class="label">{c.label}</span>
      <input
        type="number"
        inputMode="decimal"
        min={c.min}
        max={c.max}
        step={c.step ?? 'any'}
        value={text}
        aria-label={c.unit ? `${c.label} (${c.unit})` : c.label}
        onInput={(e) => setText((e.target as HTMLInputElement).value)}
      />
      {c.unit && <span class="unit">{c.unit}</span>}
      <button type="submit">Set</button>
    </form>
  );
}

/** One control of a device. */
export function ControlView({ d, c }: { d: Device; c: Control }) {
  const current = at(d.state, c.path);
  const disabled = !d.online;
  switch (c.kind) {
    case 'switch': {
      const on = current === 'on';
      return (
        <Toggle
          label={c.label}
          on={on}
          text={on ? 'On' : current === 'off' ? 'Off' : '–'}
          disabled={disabled}
          onClick={() => void send(d, c, on ? 'off' : 'on', on ? 'turned off' : 'turned on')}
        />
      );
    }
    case 'bool': {
      const on = current === true;
      return (
        <Toggle
          label={c.label}
          on={on}
          text={on ? 'Yes' : 'No'}
          disabled={disabled}
          onClick={() => void send(d, c, !on, on ? 'turned off' : 'turned on')}
        />
      );
    }
    case 'choice': {
      const values = c.values ?? [];
      if (values.length <= 4)
        return (
          <div class="control choice">
            <span class="label">{c.label}</span>
            <fieldset class="segmented" aria-label={c.label}>
              {values.map((v) => (
                <button
                  type="button"
                  key={String(v)}
                  class={current === v ? 'chosen' : ''}
                  aria-pressed={current === v}
                  disabled={disabled}
                  onClick={() => void send(d, c, v, `set to ${humanize(String(v))}`)}
                >
                  {humanize(String(v))}
                </button>
              ))}
            </fieldset>
          </div>
        );
      return (
        <label class="control choice">
          <span class="label">{c.label}</span>
          <select
            value={current === undefined ? '' : String(current)}
            disabled={disabled}
            aria-label={c.label}
            onChange={(e) => {
              const raw = (e.target as HTMLSelectElement).value;
              const v = values.find((x) => String(x) === raw);
              if (v !== undefined) void send(d, c, v, `set to ${humanize(raw)}`);
            }}
          >
            {current === undefined && <option value="">–</option>}
            {values.map((v) => (
              <option key={String(v)} value={String(v)}>
                {humanize(String(v))}
              </option>
            ))}
          </select>
        </label>
      );
    }
    case 'range':
      return <RangeControl d={d} c={c} />;
    case 'number':
      return <NumberControl d={d} c={c} />;
    case 'color': {
      const value = colourHex(current);
      return (
        <label class="control color">
          <span class="label">{c.label}</span>
          <input
            type="color"
            value={value}
            disabled={disabled}
            aria-label={c.label}
            onChange={(e) => {
              const v = (e.target as HTMLInputElement).value;
              const n = (i: number) => Number.parseInt(v.slice(i, i + 2), 16);
              void send(d, c, { red: n(1), green: n(3), blue: n(5) }, `set to ${v}`);
            }}
          />
        </label>
      );
    }
    case 'action':
      return (
        <div class="control action">
          <button
            type="button"
            disabled={disabled}
            onClick={() => {
              if (confirm(`${c.label}: ${d.name}?`)) void send(d, c, c.values?.[0], 'sent');
            }}
          >
            {c.label}
          </button>
        </div>
      );
  }
}
