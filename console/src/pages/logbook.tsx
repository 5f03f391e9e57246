/**
 * The Logbook: what happened, newest first, with its time: state changes, presses, devices going
 * offline, added, renamed or removed, security modes, alarms, automation runs. Searchable by
 * device and kind, from a day on; a page at a time (More), and the same selection as CSV.
 */
import { useEffect, useState } from 'preact/hooks';
import type { LogEntry as Entry } from '../../../src/history/logbook.ts';
import { api, wordsOf } from '../api.ts';
import type { HistoryDevice } from '../components/history-chart.tsx';
import { humanize } from '../format.ts';

const KINDS: readonly [string, string][] = [
  ['state', 'State changes'],
  ['press', 'Presses'],
  ['online', 'Online / offline'],
  ['added', 'Added'],
  ['renamed', 'Renamed'],
  ['removed', 'Removed'],
  ['security', 'Security modes'],
  ['alarm', 'Alarm'],
  ['automation', 'Automations'],
  ['notify', 'Notifications'],
];

const PAGE = 50;

/** What an entry says, in words. */
export function entryText(e: Entry): string {
  const v = e.value;
  const word = (x: unknown) =>
    x === true ? 'on' : x === false ? 'off' : typeof x === 'string' ? humanize(x) : JSON.stringify(x);
  switch (e.kind) {
    case 'state': {
      const what = [humanize(e.capability ?? ''), e.name].filter(Boolean).join(' ');
      const yes = typeof v === 'boolean' && /contact/.test(e.capability ?? '') ? (v ? 'open' : 'closed') : word(v);
      return `${what}: ${yes}`;
    }
    case 'press':
      return `pressed: ${word(v)}`;
    case 'online':
      return v ? 'came online' : 'went offline';
    case 'added':
      return 'was added';
    case 'removed':
      return 'was removed';
    case 'renamed': {
      const r = v as { from?: string; to?: string } | null;
      return `renamed from ${r?.from ?? '?'} to ${r?.to ?? '?'}`;
    }
    case 'security': {
      const s = v as { arm_state?: string; name?: string } | null;
      return `security ${s?.arm_state === 'arm' ? 'armed' : 'disarmed'}${s?.name ? `: ${s.name}` : ''}`;
    }
    case 'alarm':
      return `alarm: ${word(v)}`;
    case 'automation':
    case 'notify': {
      const a = (v ?? {}) as Record<string, unknown>;
      const parts = [a.name, a.trigger, a.result, a.reason, a.message].filter((x) => typeof x === 'string');
      return `${e.kind === 'notify' ? 'notification' : 'automation'}: ${parts.join(' · ')}`;
    }
    default:
      return `${humanize(e.kind)}${v === null || v === undefined ? '' : `: ${word(v)}`}`;
  }
}

export function LogbookPage() {
  const [devices, setDevices] = useState<HistoryDevice[]>([]);
  const [device, setDevice] = useState('');
  const [kind, setKind] = useState('');
  const [day, setDay] = useState('');
  const [entries, setEntries] = useState<Entry[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    api<{ devices: HistoryDevice[] }>('GET', '/history/devices')
      .then((r) => setDevices(r.devices.slice().sort((a, b) => a.name.localeCompare(b.name))))
      .catch((err) => setError(wordsOf(err)));
  }, []);

  const query = (): URLSearchParams => {
    const q = new URLSearchParams();
    if (device) q.set('serial_number', device);
    if (kind) q.set('kind', kind);
    // The day picked is the browser's: entries up to the end of it, newest first.
    const end = new Date(`${day}T00:00:00`).getTime() + 86_400_000;
    if (day && Number.isFinite(end)) q.set('to', new Date(end).toISOString());
    return q;
  };

  const load = async (before: string | null) => {
    setLoading(true);
    try {
      const q = query();
      q.set('limit', String(PAGE));
      if (before) q.set('before', before);
      const r = await api<{ entries: Entry[]; next: string | null }>('GET', `/history/logbook?${q}`);
      setEntries((list) => (before ? [...list, ...r.entries] : r.entries));
      setNext(r.next);
      setError('');
    } catch (err) {
      setError(wordsOf(err));
    } finally {
      setLoading(false);
    }
  };

  useEffect(() => {
    void load(null);
  }, [device, kind, day]);

  return (
    <main class="logbook-page">
      <h1>Logbook</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Device
          <select name="device" value={device} onChange={(e) => setDevice((e.target as HTMLSelectElement).value)}>
            <option value="">All devices</option>
            {devices.map((d) => (
              <option key={d.serial_number} value={d.serial_number}>
                {d.name}
                {d.removed_at ? ' (removed)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label>
          What
          <select name="kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
            <option value="">Everything</option>
            {KINDS.map(([k, words]) => (
              <option key={k} value={k}>
                {words}
              </option>
            ))}
          </select>
        </label>
        <label>
          Up to
          <input type="date" name="day" value={day} onInput={(e) => setDay((e.target as HTMLInputElement).value)} />
        </label>
        <a class="button" href={`/console/api/history/logbook/csv?${query()}`} download>
          CSV
        </a>
      </form>
      {error && <p class="error">{error}</p>}
      {entries.length === 0 && !loading && !error ? (
        <p class="empty">Nothing recorded{device || kind || day ? ' for this search' : ' yet'}.</p>
      ) : (
        <ol class="entries">
          {entries.map((e) => (
            <li key={e.id} data-kind={e.kind}>
              <time dateTime={new Date(e.t).toISOString()}>{stamp(e.t)}</time>
              <span class="who">
                {e.serial_number ? (
                  <a href={`#/devices/${encodeURIComponent(e.serial_number)}`}>{e.device_name}</a>
                ) : (
                  'Gateway'
                )}
              </span>
              <span class="what">{entryText(e)}</span>
            </li>
          ))}
        </ol>
      )}
      {next && (
        <button type="button" disabled={loading} onClick={() => void load(next)}>
          More
        </button>
      )}
    </main>
  );
}

/** Today's times as times, other days' with their date. */
function stamp(t: number): string {
  const d = new Date(t);
  return d.toDateString() === new Date().toDateString()
    ? d.toLocaleTimeString()
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}
