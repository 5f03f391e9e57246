/**
 * A device's tags (spec 2.7) as a form: the names of its channels (`tags.toggle`), the temperature
 * unit apps show (`tags.temperature_unit`), and the other tags as name and value rows. Values an
 * app stored as a structure (a routing tag, a list) are shown in words and kept as they are: the
 * form changes only what the person edits, and the whole object is sent back (D4 replaces tags).
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { humanize } from '../format.ts';
import { act } from '../store.ts';
import type { Device } from '../types.ts';
import { FormFooter } from './form-footer.tsx';

type Kind = 'text' | 'number' | 'yes-no' | 'kept';

interface Row {
  key: string;
  kind: Kind;
  text: string;
  /** A structured value, sent back as it was. */
  kept?: unknown;
}

/** Keys with a meaning of their own (spec 2.7), edited by their own fields. */
const FIXED = new Set(['toggle', 'temperature_unit']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function rowOf(key: string, v: unknown): Row {
  if (typeof v === 'string') return { key, kind: 'text', text: v };
  if (typeof v === 'number') return { key, kind: 'number', text: String(v) };
  if (typeof v === 'boolean') return { key, kind: 'yes-no', text: v ? 'yes' : 'no' };
  return { key, kind: 'kept', text: '', kept: v };
}

/** A structure in words, one level deep: `room: kitchen, floor: 2`; deeper parts as `…`. */
function summary(v: unknown): string {
  if (Array.isArray(v)) return v.map((x) => (isRecord(x) || Array.isArray(x) ? '…' : String(x))).join(', ');
  if (isRecord(v))
    return Object.entries(v)
      .map(([k, x]) => `${k}: ${isRecord(x) || Array.isArray(x) ? '…' : String(x)}`)
      .join(', ');
  return String(v);
}

/** The channels whose names the form edits: the device's toggle channels. */
function channelsOf(d: Device): string[] {
  return d.capabilities.filter((c) => c.capability === 'toggle' && c.name !== undefined).map((c) => c.name as string);
}

function hasTemperature(d: Device): boolean {
  return d.capabilities.some((c) => c.capability === 'temperature' || c.capability === 'thermostat-target-setpoint');
}

export function TagsForm({ d }: { d: Device }) {
  const tags = isRecord(d.tags) ? d.tags : {};
  const toggle = isRecord(tags.toggle) ? tags.toggle : {};
  const channels = channelsOf(d);
  const initial = () => ({
    names: Object.fromEntries(channels.map((n) => [n, typeof toggle[n] === 'string' ? (toggle[n] as string) : ''])),
    unit: typeof tags.temperature_unit === 'string' ? tags.temperature_unit : '',
    rows: Object.entries(tags)
      .filter(([k]) => !FIXED.has(k))
      .map(([k, v]) => rowOf(k, v)),
  });
  const [form, setForm] = useState(initial);
  const [errors, setErrors] = useState<string[]>([]);
  const stored = JSON.stringify(d.tags ?? {});
  // Another console or an app changed them: show what is stored now.
  useEffect(() => setForm(initial()), [stored]);
  const setRow = (i: number, patch: Partial<Row>) =>
    setForm({ ...form, rows: form.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)) });

  const build = (): { tags: Record<string, unknown> } | { errors: string[] } => {
    const out: Record<string, unknown> = {};
    const problems: string[] = [];
    // Names of channels the device no longer has, or that an app put there, are kept.
    const names: Record<string, unknown> = { ...toggle };
    for (const [n, label] of Object.entries(form.names)) {
      if (label.trim() === '') delete names[n];
      else names[n] = label.trim();
    }
    if (Object.keys(names).length > 0) out.toggle = names;
    else if (tags.toggle !== undefined && !isRecord(tags.toggle)) out.toggle = tags.toggle;
    if (form.unit !== '') out.temperature_unit = form.unit;
    for (const [i, r] of form.rows.entries()) {
      const key = r.key.trim();
      const where = `Tag ${i + 1}`;
      if (key === '') problems.push(`${where}: give it a name`);
      else if (FIXED.has(key)) problems.push(`${where}: "${key}" is set above`);
      else if (key in out) problems.push(`${where}: "${key}" is there twice`);
      else if (r.kind === 'kept') out[key] = r.kept;
      else if (r.kind === 'yes-no') out[key] = r.text === 'yes';
      else if (r.kind === 'text') out[key] = r.text;
      else {
        const n = Number(r.text);
        if (r.text.trim() === '' || !Number.isFinite(n)) problems.push(`${where} (${key}): a number`);
        else out[key] = n;
      }
    }
    return problems.length > 0 ? { errors: problems } : { tags: out };
  };

  return (
    <form
      class="tags-form"
      onSubmit={async (e) => {
        e.preventDefault();
        const built = build();
        if ('errors' in built) {
          setErrors(built.errors);
          return;
        }
        setErrors([]);
        await act('Tags saved.', () =>
          api('PUT', `/devices/${encodeURIComponent(d.serial_number)}`, { tags: built.tags }),
        );
      }}
    >
      {channels.length > 0 && (
        <fieldset>
          <legend>Channel names</legend>
          {channels.map((n) => (
            <label key={n} class="row">
              <span>{/^\d+$/.test(n) ? `Channel ${n}` : humanize(n)}</span>
              <input
                name={`channel-${n}`}
                value={form.names[n] ?? ''}
                maxLength={64}
                placeholder="no name"
                onInput={(e) =>
                  setForm({ ...form, names: { ...form.names, [n]: (e.target as HTMLInputElement).value } })
                }
              />
            </label>
          ))}
        </fieldset>
      )}
      {hasTemperature(d) && (
        <label class="row">
          <span>Temperature unit in apps</span>
          <select value={form.unit} onChange={(e) => setForm({ ...form, unit: (e.target as HTMLSelectElement).value })}>
            <option value="">Not set</option>
            <option value="c">°C</option>
            <option value="f">°F</option>
          </select>
        </label>
      )}
      <fieldset>
        <legend>Other tags</legend>
        {form.rows.length === 0 && <p class="muted small">None.</p>}
        {form.rows.map((r, i) => (
          <div class="tag-row" key={i}>
            <input
              aria-label={`Tag ${i + 1} name`}
              placeholder="name"
              value={r.key}
              maxLength={128}
              onInput={(e) => setRow(i, { key: (e.target as HTMLInputElement).value })}
            />
            {r.kind === 'kept' ? (
              <span class="kept" title="Set by an app; kept as it is">
                {summary(r.kept)}
              </span>
            ) : r.kind === 'yes-no' ? (
              <select
                aria-label={`Tag ${i + 1} value`}
                value={r.text}
                onChange={(e) => setRow(i, { text: (e.target as HTMLSelectElement).value })}
              >
                <option value="yes">Yes</option>
                <option value="no">No</option>
              </select>
            ) : (
              <input
                aria-label={`Tag ${i + 1} value`}
                placeholder="value"
                inputMode={r.kind === 'number' ? 'decimal' : 'text'}
                value={r.text}
                onInput={(e) => setRow(i, { text: (e.target as HTMLInputElement).value })}
              />
            )}
            <button
              type="button"
              class="small"
              aria-label={`Remove tag ${i + 1}`}
              onClick={() => setForm({ ...form, rows: form.rows.filter((_, j) => j !== i) })}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          class="small"
          onClick={() => setForm({ ...form, rows: [...form.rows, { key: '', kind: 'text', text: '' }] })}
        >
          Add a tag
        </button>
      </fieldset>
      <FormFooter error={errors} label="Save tags" kind="plain" />
    </form>
  );
}
