/**
 * How a scene or automation has run and will run: the next firings of its time and sun triggers
 * on the wall of the gateway's zone (a DST change said), and its traces, filtered by bucket, each
 * opening to why it stopped, each condition with what it saw and each action with its outcome.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, wordsOf } from '../api.ts';
import {
  actionWords,
  type DefinitionView,
  type Names,
  type NextFiring,
  RESULT_WORDS,
  type Trace,
  triggerWords,
} from '../automations.ts';
import { timeOf } from '../format.ts';
import { automationsVersion, notify } from '../store.ts';

/** A local ISO time with its offset (`2025-03-30T03:00:00+02:00`) as the gateway's wall shows it. */
function wall(local: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?([+-]\d{2}:\d{2})$/.exec(local);
  if (!m) return local;
  const day = new Date(`${m[1]}T12:00:00Z`).toLocaleDateString(undefined, { weekday: 'short', timeZone: 'UTC' });
  return `${day} ${m[1]} ${m[2]}${m[3] && m[3] !== ':00' ? m[3] : ''} (UTC${m[4]})`;
}

export function NextFirings({ d, names, zone }: { d: DefinitionView; names: Names; zone: string }) {
  const [firings, setFirings] = useState<NextFiring[] | undefined>();
  const version = automationsVersion.value;
  useEffect(() => {
    let current = true;
    api<{ firings: NextFiring[] }>('GET', `/automations/${d.id}/next?count=5`)
      .then((r) => current && setFirings(r.firings))
      .catch(() => current && setFirings([]));
    return () => {
      current = false;
    };
  }, [d.id, d.version, version]);
  if (!firings || firings.length === 0) return null;
  return (
    <section class="card">
      <h2>Next firings</h2>
      <p class="muted small">
        In the gateway's time zone ({zone}){!d.enabled || d.broken ? ': none will run while it is off or broken' : ''}.
      </p>
      <ul class="firings">
        {firings.slice(0, 8).map((f) => (
          <li key={`${f.trigger}-${f.at}`}>
            <strong>{wall(f.local)}</strong>{' '}
            {triggerWords(names, d.triggers[f.trigger] as unknown as Record<string, unknown>)}
            {f.resolution === 'gap' && (
              <span class="muted"> — that time does not exist that day (clocks go forward): it runs at the change</span>
            )}
            {f.resolution === 'overlap' && (
              <span class="muted"> — that time happens twice that day (clocks go back): it runs at the first</span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

const BUCKETS: [string, string][] = [
  ['', 'All'],
  ['run', 'Runs'],
  ['failed', 'Failed'],
  ['not_run', 'Not run'],
];

function TraceView({ t, d, names }: { t: Trace; d: DefinitionView; names: Names }) {
  const started = Date.parse(t.started_at);
  const ended = t.ended_at ? Date.parse(t.ended_at) : undefined;
  return (
    <details class={`trace ${t.result}`}>
      <summary>
        <span class={`badge result ${t.result}`}>{RESULT_WORDS[t.result] ?? t.result}</span> {timeOf(t.started_at)}:{' '}
        {t.trigger.description}
      </summary>
      {t.reason && <p class={t.result === 'failed' || t.result === 'stopped' ? 'error small' : 'small'}>{t.reason}</p>}
      {t.trigger.scheduled && (
        <p class="small muted">
          Scheduled for {timeOf(t.trigger.scheduled)}
          {t.trigger.late_seconds ? `, ran ${t.trigger.late_seconds} s late` : ''}
        </p>
      )}
      {t.trigger.caused_by && (
        <p class="small muted">
          Set off by a run of{' '}
          {names.choices?.definitions.find((x) => x.id === t.trigger.caused_by?.automation_id)?.name ??
            'another automation'}
          {` (${t.trigger.caused_by.depth} deep)`}
        </p>
      )}
      {t.conditions.length > 0 && (
        <>
          <h3>Conditions</h3>
          <ul class="checks">
            {t.conditions.map((c) => (
              <li key={c.path} class={c.result ? 'ok' : 'bad'}>
                {c.result ? '✓' : '✗'} <code>{c.path}</code> {c.type}
                {c.detail ? `: ${c.detail}` : ''}
              </li>
            ))}
          </ul>
        </>
      )}
      {t.steps.length > 0 && (
        <>
          <h3>Actions</h3>
          <ol class="steps">
            {t.steps.map((s, i) => {
              // The action in words from the definition, when the run was of the version shown; a
              // device command done is then fully said (the gateway's detail repeats it).
              const action = t.version === d.version ? d.actions[s.index] : undefined;
              const said = action !== undefined && s.type === 'device' && s.outcome === 'done';
              return (
                <li key={`${s.index}-${i}`} class={s.outcome}>
                  <span class="muted">{timeOf(s.at)}</span>{' '}
                  {action
                    ? actionWords(names, action as unknown as Record<string, unknown>)
                    : `Action ${s.index + 1} (${s.type})`}
                  : <strong>{s.outcome.replace('_', ' ')}</strong>
                  {s.detail && !said ? ` (${s.detail})` : ''}
                </li>
              );
            })}
          </ol>
        </>
      )}
      {ended !== undefined && ended > started && (
        <p class="small muted">Took {Math.round((ended - started) / 1000)} s.</p>
      )}
    </details>
  );
}

export function Traces({ d, names }: { d: DefinitionView; names: Names }) {
  const [bucket, setBucket] = useState('');
  const [traces, setTraces] = useState<Trace[] | undefined>();
  const version = automationsVersion.value;
  useEffect(() => {
    let current = true;
    api<{ traces: Trace[] }>('GET', `/automations/${d.id}/traces${bucket ? `?bucket=${bucket}` : ''}`)
      .then((r) => current && setTraces(r.traces))
      .catch((err) => current && notify('error', wordsOf(err)));
    return () => {
      current = false;
    };
  }, [d.id, bucket, version]);
  return (
    <section class="card traces">
      <div class="toolbar">
        <h2>Traces</h2>
        <fieldset class="segmented trace-filter">
          <legend class="sr">Which traces</legend>
          {BUCKETS.map(([b, words]) => (
            <button
              key={b}
              type="button"
              class={b === bucket ? 'chosen' : ''}
              aria-pressed={b === bucket}
              onClick={() => setBucket(b)}
            >
              {words}
            </button>
          ))}
        </fieldset>
      </div>
      <p class="muted small">
        The last 10 of each: runs, failed runs, and triggers that did not start a run (with why).
      </p>
      {traces === undefined ? (
        <p class="muted">Loading…</p>
      ) : traces.length === 0 ? (
        <p class="muted">Nothing yet.</p>
      ) : (
        traces.map((t) => <TraceView key={t.run_id} t={t} d={d} names={names} />)
      )}
    </section>
  );
}
