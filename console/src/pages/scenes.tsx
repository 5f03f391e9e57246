/**
 * Scenes and automations: every scene with its Run button, every automation with its switch, each
 * with what it does in words, its last run, its runs under way and when it fires next; a broken one
 * says why. Live: the gateway's automation events read the list again.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, wordsOf } from '../api.ts';
import { type DefinitionView, type Names, RESULT_WORDS, triggerWords } from '../automations.ts';
import { Toggle } from '../components/controls.tsx';
import { when } from '../format.ts';
import { act, automationsVersion, devices } from '../store.ts';

/** Reads the definitions, again whenever an automation event comes. */
export function useDefinitions(): { list: DefinitionView[] | undefined; error: string; reload: () => void } {
  const [list, setList] = useState<DefinitionView[] | undefined>();
  const [error, setError] = useState('');
  const [asked, setAsked] = useState(0);
  const version = automationsVersion.value;
  useEffect(() => {
    // A newer read replaces this one: its answer, if it comes later, is older than what is shown.
    let current = true;
    api<{ definitions: DefinitionView[] }>('GET', '/automations')
      .then((r) => {
        if (!current) return;
        setList(r.definitions);
        setError('');
      })
      .catch((err) => current && setError(wordsOf(err)));
    return () => {
      current = false;
    };
  }, [version, asked]);
  return { list, error, reload: () => setAsked((n) => n + 1) };
}

/** The last run, or the runs under way, in words. */
export function statusWords(d: DefinitionView): string {
  if (d.status.running > 0) return d.status.running === 1 ? 'Running now' : `${d.status.running} runs now`;
  const last = d.status.last_run;
  if (!last) return 'Never run';
  return `Last run ${when(last.ended_at ?? last.started_at)}: ${RESULT_WORDS[last.result]?.toLowerCase() ?? last.result}`;
}

function Card({ d, names, reload }: { d: DefinitionView; names: Names; reload: () => void }) {
  const href = `#/scenes/${encodeURIComponent(d.id)}`;
  const summary =
    d.kind === 'scene'
      ? `${d.actions.length} action${d.actions.length === 1 ? '' : 's'}`
      : d.triggers.map((t) => triggerWords(names, t as unknown as Record<string, unknown>)).join(' or ');
  const run = () => act(`${d.name} started.`, () => api('POST', `/automations/${d.id}/run`, {}));
  return (
    <article class={`card scene${d.broken ? ' broken' : ''}${d.enabled ? '' : ' off'}`} data-id={d.id}>
      <header>
        <a href={href} class="name">
          {d.name}
        </a>
        {d.broken ? (
          <span class="badge bad">Broken</span>
        ) : d.status.running > 0 ? (
          <span class="badge armed">Running</span>
        ) : null}
      </header>
      <p class="muted small">
        {d.kind === 'automation'
          ? `When ${/^(At|The) /.test(summary) ? summary.charAt(0).toLowerCase() + summary.slice(1) : summary}`
          : summary}
      </p>
      {d.broken && <p class="error small line">{d.broken[0]}</p>}
      <p class="small line">{statusWords(d)}</p>
      {d.status.next_firing && <p class="small muted line">Next: {when(d.status.next_firing)}</p>}
      <div class="buttons">
        <button type="button" class="primary" disabled={d.broken !== null} onClick={() => void run()}>
          Run
        </button>
        <a class="button" href={href}>
          Open
        </a>
      </div>
      {d.kind === 'automation' && (
        <Toggle
          label="Enabled"
          on={d.enabled}
          text={d.enabled ? 'On' : 'Off'}
          onClick={async () => {
            await act(`${d.name} ${d.enabled ? 'disabled' : 'enabled'}.`, () =>
              api('POST', `/automations/${d.id}/${d.enabled ? 'disable' : 'enable'}`),
            );
            reload();
          }}
        />
      )}
    </article>
  );
}

export function ScenesPage() {
  const { list, error, reload } = useDefinitions();
  const names: Names = { devices: devices.value };
  if (!list) return <main>{error ? <p class="error">{error}</p> : <p class="muted">Loading…</p>}</main>;
  const scenes = list.filter((d) => d.kind === 'scene');
  const automations = list.filter((d) => d.kind === 'automation');
  return (
    <main class="scenes-page">
      <div class="toolbar">
        <h1>Scenes and automations</h1>
        <a class="button" href="#/scenes/new-scene">
          New scene
        </a>
        <a class="button" href="#/scenes/new-automation">
          New automation
        </a>
      </div>
      {error && <p class="error">{error}</p>}
      <h2 class="section">Scenes</h2>
      {scenes.length === 0 ? (
        <p class="muted">
          No scenes yet. A scene is a list of actions you run with one tap (here, from Home Assistant, or by an
          automation).
        </p>
      ) : (
        <div class="grid">
          {scenes.map((d) => (
            <Card key={d.id} d={d} names={names} reload={reload} />
          ))}
        </div>
      )}
      <h2 class="section">Automations</h2>
      {automations.length === 0 ? (
        <p class="muted">
          No automations yet. An automation runs its actions by itself: when something happens, if its conditions hold.
        </p>
      ) : (
        <div class="grid">
          {automations.map((d) => (
            <Card key={d.id} d={d} names={names} reload={reload} />
          ))}
        </div>
      )}
    </main>
  );
}
