/**
 * One scene or automation: run it, stop it, switch it on or off, remove it; its IF/THEN editor
 * (rule-rows.tsx), which offers only what a save takes and shows each of the gateway's messages
 * under the row it is about; when its time and sun triggers fire next, in the gateway's zone (a
 * DST change shown) and its traces (both in components/scene-runs.tsx).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, wordsOf } from '../api.ts';
import { blank, type Choices, type DefinitionView, type Draft, draftOf, type Names } from '../automations.ts';
import { Toggle } from '../components/controls.tsx';
import { FormFooter } from '../components/form-footer.tsx';
import { Field, NumberInput } from '../components/rule-fields.tsx';
import { RowList } from '../components/rule-rows.tsx';
import { NextFirings, Traces } from '../components/scene-runs.tsx';
import { plainProblem, problemField } from '../rule-problems.ts';
import { act, automationsVersion, devices, notify } from '../store.ts';
import { statusWords } from './scenes.tsx';

/** The messages of a save that are about the row at `path` (not about rows nested in it). */
function errorsOf(all: readonly string[], path: string): string[] {
  return all.filter((m) => {
    const at = m.split(': ')[0] ?? '';
    if (at !== path && !at.startsWith(`${path}.`)) return false;
    return !/^\.conditions\.\d+/.test(at.slice(path.length));
  });
}

/** The messages about no row: the name, the mode, the lists as a whole. */
function generalErrors(all: readonly string[]): string[] {
  return all.filter((m) => !/^(triggers|conditions|actions)\.\d+/.test(m));
}

/** The body a save sends: the draft, its mode's `max` only when it takes one. */
function bodyOf(d: Draft): Record<string, unknown> {
  const counted = d.mode === 'queued' || d.mode === 'parallel';
  const { id: _id, max, ...rest } = d;
  return {
    ...rest,
    ...(counted && max !== undefined ? { max } : {}),
    ...(d.kind === 'scene' ? { triggers: [], conditions: [] } : {}),
  };
}

function Editor(p: {
  draft: Draft;
  choices: Choices;
  onChange: (d: Draft) => void;
  errors: string[];
  onSave: () => void;
  busy: boolean;
}) {
  const { draft } = p;
  const ctx = { choices: p.choices, devices: devices.value, ...(draft.id ? { self: draft.id } : {}) };
  const errors = (path: string) => errorsOf(p.errors, path);
  const general = generalErrors(p.errors);
  const set = (patch: Partial<Draft>) => p.onChange({ ...draft, ...patch });
  return (
    <form
      class="card editor"
      onSubmit={(e) => {
        e.preventDefault();
        p.onSave();
      }}
    >
      {general.length > 0 && (
        <ul class="problems" role="alert">
          {general.map((m) => (
            <li key={m} title={m}>
              {plainProblem('', m)}
            </li>
          ))}
        </ul>
      )}
      <div class="rule-head">
        <Field label="Name" wide>
          <input
            required
            maxLength={100}
            value={draft.name}
            onInput={(e) => set({ name: (e.target as HTMLInputElement).value })}
          />
        </Field>
        {draft.kind === 'automation' && (
          <>
            <Field label="When it is set off while running">
              <select
                value={draft.mode ?? 'single'}
                onChange={(e) => set({ mode: (e.target as HTMLSelectElement).value })}
              >
                <option value="single">ignore the new trigger (single)</option>
                <option value="restart">start over (restart)</option>
                <option value="queued">run after the one going on (queued)</option>
                <option value="parallel">run beside it (parallel)</option>
              </select>
            </Field>
            {(draft.mode === 'queued' || draft.mode === 'parallel') && (
              <Field label="At most (runs)">
                <NumberInput
                  min={1}
                  max={10}
                  step={1}
                  placeholder="10"
                  value={draft.max}
                  onChange={(n) => set({ max: n === undefined ? undefined : Math.round(n) })}
                />
              </Field>
            )}
          </>
        )}
      </div>
      {draft.kind === 'automation' && (
        <section>
          <h2 class="part">When</h2>
          <p class="muted small hint">Any one of these sets it off.</p>
          <RowList
            kind="trigger"
            ctx={ctx}
            rows={draft.triggers}
            path="triggers"
            errors={errors}
            onChange={(triggers) => set({ triggers })}
          />
          <h2 class="part">And if</h2>
          <p class="muted small hint">All of these must hold (none: always).</p>
          <RowList
            kind="condition"
            ctx={ctx}
            rows={draft.conditions}
            path="conditions"
            errors={errors}
            onChange={(conditions) => set({ conditions })}
          />
        </section>
      )}
      <section>
        <h2 class="part">Then</h2>
        <p class="muted small hint">One after the other.</p>
        <RowList
          kind="action"
          ctx={ctx}
          rows={draft.actions}
          path="actions"
          errors={errors}
          onChange={(actions) => set({ actions })}
        />
      </section>
      <FormFooter label="Save" busy={p.busy} ownRow />
    </form>
  );
}

/** Marks the field of `scope` a message is about (the label it names, of this row, not of one nested in it). */
function markField(scope: HTMLElement | null, row: HTMLElement | null, message: string): HTMLElement | undefined {
  const f = problemField(row?.dataset.path ?? '', message);
  if (!scope || !f.label) return undefined;
  const within = f.bound ? scope.querySelector<HTMLElement>(`fieldset.sun-bound[aria-label="${f.bound}"]`) : scope;
  const label = [...(within?.querySelectorAll<HTMLLabelElement>('label.field-label') ?? [])].find(
    (l) => l.textContent === f.label && l.closest('fieldset.rule') === row,
  );
  const control = label ? document.getElementById(label.htmlFor) : null;
  control?.setAttribute('aria-invalid', 'true');
  return control ?? undefined;
}

export function ScenePage({ id }: { id: string }) {
  const fresh = id === 'new-scene' ? 'scene' : id === 'new-automation' ? 'automation' : undefined;
  const [def, setDef] = useState<DefinitionView | undefined>();
  const [choices, setChoices] = useState<Choices | undefined>();
  const [draft, setDraft] = useState<Draft | undefined>(fresh ? blank(fresh) : undefined);
  const [dirty, setDirty] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [loadError, setLoadError] = useState('');
  const [busy, setBusy] = useState(false);
  const version = automationsVersion.value;
  const deviceCount = devices.value.length;
  useEffect(() => {
    let current = true;
    api<Choices>('GET', '/automations/choices')
      .then((r) => current && setChoices(r))
      .catch((err) => current && setLoadError(wordsOf(err)));
    return () => {
      current = false;
    };
  }, [version, deviceCount]);
  useEffect(() => {
    if (fresh) return;
    let current = true;
    api<{ definition: DefinitionView }>('GET', `/automations/${encodeURIComponent(id)}`)
      .then((r) => {
        if (!current) return;
        setDef(r.definition);
        setLoadError('');
      })
      .catch((err) => current && setLoadError(wordsOf(err)));
    return () => {
      current = false;
    };
  }, [id, version]);
  // The editor follows the saved definition until the person changes something.
  useEffect(() => {
    if (def && !dirty) setDraft(draftOf(def));
  }, [def?.id, def?.version, dirty]);
  // A refused save shows where: each field a message names is marked (aria-invalid, outlined), the
  // first problem is brought into view (on a phone it may be a screen away from the Save button)
  // and its field, or its row's first, takes the focus.
  useEffect(() => {
    const editor = document.querySelector<HTMLElement>('.editor');
    if (!editor) return;
    for (const el of editor.querySelectorAll('[aria-invalid="true"]')) el.removeAttribute('aria-invalid');
    let first: HTMLElement | undefined;
    for (const line of editor.querySelectorAll<HTMLElement>('.problems li[title]')) {
      const row = line.closest<HTMLElement>('fieldset.rule');
      const field = markField(row ?? editor.querySelector<HTMLElement>('.rule-head'), row, line.title);
      first ??= field ?? row?.querySelector<HTMLElement>('select, input') ?? undefined;
    }
    const problem = editor.querySelector<HTMLElement>('.problems');
    if (!problem) return;
    problem.scrollIntoView({ block: 'center' });
    first?.focus({ preventScroll: true });
  }, [errors]);
  const names: Names = useMemo(() => ({ devices: devices.value, choices }), [devices.value, choices]);

  const save = async () => {
    if (!draft) return;
    setBusy(true);
    try {
      const r = draft.id
        ? await api<{ definition: DefinitionView }>('PUT', `/automations/${draft.id}`, bodyOf(draft))
        : await api<{ definition: DefinitionView }>('POST', '/automations', bodyOf(draft));
      setErrors([]);
      setDirty(false);
      setDef(r.definition);
      notify('ok', `${r.definition.name} saved.`);
      if (!draft.id) location.hash = `#/scenes/${r.definition.id}`;
    } catch (err) {
      // A refusal lists every problem, `path: rule`, separated by "; ".
      setErrors(
        wordsOf(err)
          .split('; ')
          .map((m, i) => (i === 0 ? m.charAt(0).toLowerCase() + m.slice(1) : m)),
      );
      notify('error', 'Not saved: see the problems shown.');
    } finally {
      setBusy(false);
    }
  };

  if (loadError && !def && !fresh)
    return (
      <main>
        <a href="#/scenes" class="back">
          ‹ Scenes and automations
        </a>
        <p class="error">{loadError}</p>
      </main>
    );
  if (!draft || !choices || (!fresh && !def))
    return <main>{loadError ? <p class="error">{loadError}</p> : <p class="muted">Loading…</p>}</main>;
  const kindWord = draft.kind === 'scene' ? 'scene' : 'automation';
  return (
    <main class="scene-page">
      <a href="#/scenes" class="back">
        ‹ Scenes and automations
      </a>
      <div class="toolbar">
        <h1>{def?.name ?? `New ${kindWord}`}</h1>
        {def && (
          <>
            <button
              type="button"
              class="primary"
              disabled={def.broken !== null}
              onClick={() => void act(`${def.name} started.`, () => api('POST', `/automations/${def.id}/run`, {}))}
            >
              Run now
            </button>
            {def.status.running > 0 && (
              <button
                type="button"
                onClick={() => void act(`${def.name} stopped.`, () => api('POST', `/automations/${def.id}/stop`))}
              >
                Stop
              </button>
            )}
          </>
        )}
      </div>
      {def && (
        <div class="scene-status">
          <p>{statusWords(def)}</p>
          <Toggle
            label="Enabled"
            on={def.enabled}
            text={def.enabled ? 'On' : 'Off'}
            onClick={() =>
              void act(`${def.name} ${def.enabled ? 'disabled' : 'enabled'}.`, async () => {
                const r = await api<{ definition: DefinitionView }>(
                  'POST',
                  `/automations/${def.id}/${def.enabled ? 'disable' : 'enable'}`,
                );
                setDef(r.definition);
              })
            }
          />
        </div>
      )}
      {def?.broken && (
        <div class="notice" role="alert">
          <p>
            <strong>Broken:</strong> it is skipped until what it names is back (a device paired again) or it is saved
            anew.
          </p>
          <ul>
            {def.broken.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
        </div>
      )}
      <Editor
        draft={draft}
        choices={choices}
        errors={errors}
        busy={busy}
        onSave={() => void save()}
        onChange={(d) => {
          setDraft(d);
          setDirty(true);
        }}
      />
      {def && def.kind === 'automation' && <NextFirings d={def} names={names} zone={choices.time_zone} />}
      {def && <Traces d={def} names={names} />}
      {def && (
        <div class="buttons">
          <button
            type="button"
            class="danger"
            onClick={async () => {
              if (!confirm(`Remove ${def.name}? Automations that run it become broken.`)) return;
              const r = await act(`${def.name} removed.`, () => api('DELETE', `/automations/${def.id}`));
              if (r) location.hash = '#/scenes';
            }}
          >
            Remove this {kindWord}
          </button>
        </div>
      )}
    </main>
  );
}
