/**
 * The gateway: who it is, its runtime readings (refreshing), the speaker, speech, the link button
 * and the Open API's tokens, the console's sessions and password, backup, restore, restart, and
 * the Matter bridge, the settings that change at once (name, beeps) and the ones read at start.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, upload, wordsOf } from '../api.ts';
import { Toggle } from '../components/controls.tsx';
import { humanize, when } from '../format.ts';
import { act, checkAuth, gatewayName, linkWindow, notify, tokensVersion } from '../store.ts';
import { MatterCard } from './matter-card.tsx';

interface Runtime {
  ram_used: number;
  cpu_used: number;
  /** When the host started (G2). */
  power_up_time: string;
  /** When the gateway started: what "Running since" means here. */
  started_at: string;
  cpu_temp: number;
  cpu_temp_unit: string;
  cpu_temp_sensor?: boolean;
}

interface Speaker {
  volume: number;
  muted: boolean;
  playing: { kind: string; name: string } | null;
}

interface GatewayData {
  info: { ip: string; mac: string; name: string; domain?: string; fw_version: string };
  version: string;
  runtime: Runtime;
  speaker: Speaker;
  sounds: string[];
  beeps: string[];
  engines: { id: string; name: string }[];
  settings: SettingRow[];
  log_level: string;
  log_levels: string[];
}

interface SettingRow {
  key: string;
  value: unknown;
  description: string;
  live: boolean;
  set_in_console: boolean;
}

interface TokenInfo {
  id: string;
  app_name: string | null;
  created_at: string;
  last_used_at: string | null;
}

interface SessionInfo {
  id: string;
  created_at: string;
  last_seen_at: string;
  address: string;
  user_agent: string;
  current: boolean;
}

function browserOf(agent: string): string {
  const m = /(Firefox|Edg|Chrome|Chromium|Safari)\/[\d.]+/.exec(agent);
  const os = /(Android|iPhone|iPad|Windows|Mac OS X|Linux)/.exec(agent)?.[1];
  return [m?.[1] === 'Edg' ? 'Edge' : m?.[1], os].filter(Boolean).join(' on ') || 'a browser';
}

function RuntimeView({ initial }: { initial: Runtime }) {
  const [r, setR] = useState(initial);
  useEffect(() => {
    const t = setInterval(() => {
      api<Runtime>('GET', '/runtime')
        .then(setR)
        .catch(() => {});
    }, 5000);
    return () => clearInterval(t);
  }, []);
  return (
    <dl class="readings wide" aria-label="Runtime">
      <div>
        <dt>Memory used</dt>
        <dd>{r.ram_used} %</dd>
      </div>
      <div>
        <dt>CPU used</dt>
        <dd>{r.cpu_used} %</dd>
      </div>
      <div>
        <dt>CPU temperature</dt>
        <dd>{r.cpu_temp_sensor === false ? 'no sensor' : `${r.cpu_temp} °${r.cpu_temp_unit.toUpperCase()}`}</dd>
      </div>
      <div>
        <dt>Running since</dt>
        <dd>{when(r.started_at)}</dd>
      </div>
      <div>
        <dt>Host up since</dt>
        <dd>{when(r.power_up_time)}</dd>
      </div>
    </dl>
  );
}

/** A choice of sound (or beep), the button that plays it, and what else the row holds; `done` gets the speaker as it then is. */
function PlayRow(p: {
  label: string;
  options: string[];
  button: string;
  play: (name: string) => Promise<Speaker | undefined>;
  done: (s: Speaker) => void;
  children?: ComponentChildren;
}) {
  const [name, setName] = useState(p.options[0] ?? '');
  return (
    <div class="row">
      <select aria-label={p.label} value={name} onChange={(e) => setName((e.target as HTMLSelectElement).value)}>
        {p.options.map((x) => (
          <option key={x}>{x}</option>
        ))}
      </select>
      <button
        type="button"
        onClick={async () => {
          const r = await p.play(name);
          if (r) p.done(r);
        }}
      >
        {p.button}
      </button>
      {p.children}
    </div>
  );
}

function SpeakerView({ data }: { data: GatewayData }) {
  const [s, setS] = useState(data.speaker);
  const [text, setText] = useState('');
  const [engine, setEngine] = useState(data.engines[0]?.id ?? '');
  const put = async (body: object, words: string) => {
    const r = await act(words, () => api<Speaker>('PUT', '/speaker', body));
    if (r) setS(r);
  };
  return (
    <>
      <div class="control range">
        <span class="label">Volume</span>
        <input
          type="range"
          min={0}
          max={100}
          value={s.volume}
          aria-label="Volume"
          onChange={(e) => {
            const v = Number((e.target as HTMLInputElement).value);
            void put({ volume: v }, `Volume set to ${v} %.`);
          }}
        />
        <output>{s.volume} %</output>
      </div>
      <Toggle
        label="Muted"
        on={s.muted}
        text={s.muted ? 'Yes' : 'No'}
        onClick={() => void put({ muted: !s.muted }, s.muted ? 'Speaker unmuted.' : 'Speaker muted.')}
      />
      <PlayRow
        label="Sound"
        options={data.sounds}
        button="Play sound"
        play={(name) =>
          act(`Playing ${name} for 5 s.`, () =>
            api<Speaker>('POST', '/speaker/play', { type: 'sound', name, countdown: 5 }),
          )
        }
        done={setS}
      />
      <PlayRow
        label="Beep"
        options={data.beeps}
        button="Beep"
        play={(name) => act(`Beep ${name}.`, () => api<Speaker>('POST', '/speaker/play', { type: 'beep', name }))}
        done={setS}
      >
        <button
          type="button"
          onClick={async () => {
            const r = await act('Speaker stopped.', () => api<Speaker>('POST', '/speaker/stop'));
            if (r) setS(r);
          }}
        >
          Stop
        </button>
      </PlayRow>
      {data.engines.length > 0 ? (
        <form
          class="row"
          onSubmit={async (e) => {
            e.preventDefault();
            await act('Spoken.', () => api('POST', '/tts/speak', { text, engine }));
          }}
        >
          <input
            aria-label="Text to speak"
            placeholder="Text to speak"
            value={text}
            maxLength={1000}
            onInput={(e) => setText((e.target as HTMLInputElement).value)}
            required
          />
          <select
            aria-label="Speech engine"
            value={engine}
            onChange={(e) => setEngine((e.target as HTMLSelectElement).value)}
          >
            {data.engines.map((x) => (
              <option key={x.id} value={x.id}>
                {x.name}
              </option>
            ))}
          </select>
          <button type="submit">Speak</button>
        </form>
      ) : (
        <p class="muted">No text-to-speech engine is available.</p>
      )}
    </>
  );
}

/** Presses the link button and names the apps the press let in (docs/security.md). */
async function pressLink(): Promise<void> {
  const r = await act('Link window open for 5 minutes.', () => api<{ waiting_apps: string[] }>('POST', '/link/press'));
  if (r && r.waiting_apps.length > 0)
    notify('ok', `Approved: ${r.waiting_apps.map((a) => a || '(an app without a name)').join(', ')}.`);
}

function Tokens() {
  const [tokens, setTokens] = useState<TokenInfo[]>([]);
  const version = tokensVersion.value;
  useEffect(() => {
    api<{ tokens: TokenInfo[] }>('GET', '/tokens')
      .then((r) => setTokens(r.tokens))
      .catch((err) => notify('error', wordsOf(err)));
  }, [version]);
  const w = linkWindow.value;
  return (
    <>
      <p>
        {w.open
          ? `The link window is open until ${when(w.until)}: it lets in the apps that were asking when it opened, or, if none was, the first app that asks.`
          : 'Apps that ask for access show as a pop-up here. You may also press the link button: it lets in the apps asking now, or, if none is, the next app that asks.'}
      </p>
      {!w.open && (
        <button type="button" onClick={() => void pressLink()}>
          Press the link button
        </button>
      )}
      {tokens.length === 0 ? (
        <p class="muted">No app has a token.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>App</th>
                <th>Created</th>
                <th>Last used</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <tr key={t.id}>
                  <td>{t.app_name ?? '(no name)'}</td>
                  <td>{when(t.created_at)}</td>
                  <td>{when(t.last_used_at)}</td>
                  <td>
                    <button
                      type="button"
                      class="small"
                      onClick={async () => {
                        if (!confirm(`Revoke the token of ${t.app_name ?? 'this app'}? It stops working at once.`))
                          return;
                        const r = await act('Token revoked.', () =>
                          api<{ tokens: TokenInfo[] }>('DELETE', `/tokens/${t.id}`),
                        );
                        if (r) setTokens(r.tokens);
                      }}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function Sessions() {
  const [sessions, setSessions] = useState<SessionInfo[]>([]);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const load = () =>
    api<{ sessions: SessionInfo[] }>('GET', '/sessions')
      .then((r) => setSessions(r.sessions))
      .catch(() => {});
  useEffect(() => void load(), []);
  return (
    <>
      <div class="table-wrap">
        <table>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id}>
                <td>
                  {browserOf(s.user_agent)} from {s.address || 'unknown'}
                  {s.current ? ' (this one)' : ''}
                </td>
                <td>since {when(s.created_at)}</td>
                <td>
                  {!s.current && (
                    <button
                      type="button"
                      class="small"
                      onClick={async () => {
                        if (await act('Session ended.', () => api('DELETE', `/sessions/${s.id}`))) void load();
                      }}
                    >
                      End
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form
        class="row"
        onSubmit={async (e) => {
          e.preventDefault();
          if (
            await act('Password changed: every other session ended.', () =>
              api('PUT', '/auth/password', { current, password: next }),
            )
          ) {
            setCurrent('');
            setNext('');
            void load();
          }
        }}
      >
        <input
          type="password"
          autocomplete="current-password"
          aria-label="Current password"
          placeholder="Current password"
          value={current}
          onInput={(e) => setCurrent((e.target as HTMLInputElement).value)}
          required
        />
        <input
          type="password"
          autocomplete="new-password"
          aria-label="New password"
          placeholder="New password"
          value={next}
          onInput={(e) => setNext((e.target as HTMLInputElement).value)}
          required
        />
        <button type="submit">Change password</button>
      </form>
    </>
  );
}

/** The log level until the next start (as `opencube log-level`). */
function LogLevel({ data }: { data: GatewayData }) {
  const [level, setLevel] = useState(data.log_level);
  return (
    <div class="row">
      <label>
        Log level{' '}
        <select
          value={level}
          onChange={async (e) => {
            const next = (e.target as HTMLSelectElement).value;
            const r = await act(`Log level ${next} until the next start.`, () =>
              api<{ log_level: string }>('PUT', '/log-level', { level: next }),
            );
            if (r) setLevel(r.log_level);
          }}
        >
          {data.log_levels.map((x) => (
            <option key={x}>{x}</option>
          ))}
        </select>
      </label>
    </div>
  );
}

/** Sets a live setting; resolves with the value kept, or undefined (the toast says why not). */
function saveSetting(key: string, value: unknown, words: string): Promise<{ value: unknown } | undefined> {
  return act(words, () => api<{ value: unknown }>('PUT', `/settings/${encodeURIComponent(key)}`, { value }));
}

/** One setting that changes at once: a text with Save, a switch, or a number with Save. */
function LiveSetting({ row, renamed }: { row: SettingRow; renamed: (name: string) => void }) {
  const [value, setValue] = useState(row.value);
  const [draft, setDraft] = useState(String(row.value));
  const label =
    row.key === 'name' ? 'Gateway name' : humanize(row.key.replace(/^audio\.(beeps\.)?/, '').replace(/\./g, ' '));
  if (typeof value === 'boolean')
    return (
      <Toggle
        label={`Beep: ${label}`}
        on={value}
        text={value ? 'On' : 'Off'}
        onClick={async () => {
          const r = await saveSetting(row.key, !value, `Beep ${label.toLowerCase()} ${value ? 'off' : 'on'}.`);
          if (r) setValue(r.value);
        }}
      />
    );
  const numeric = typeof value === 'number';
  return (
    <form
      class="row"
      onSubmit={async (e) => {
        e.preventDefault();
        const next = numeric ? Number(draft) : draft;
        const r = await saveSetting(row.key, next, `${label} saved.`);
        if (!r) return;
        setValue(r.value);
        setDraft(String(r.value));
        if (row.key === 'name') renamed(String(r.value));
      }}
    >
      <label>
        {label}
        {/* The one number setting of the console is a volume. */}
        {numeric && row.key.endsWith('volume') ? ' (%)' : ''}
        {/* One text input: a number keypad on phones for numbers (type="number" would widen its props' type). */}
        <input
          type="text"
          inputMode={numeric ? 'numeric' : 'text'}
          name={row.key}
          value={draft}
          onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit" disabled={draft === String(value)}>
        Save
      </button>
    </form>
  );
}

function SettingsView({ rows, renamed }: { rows: SettingRow[]; renamed: (name: string) => void }) {
  const live = rows.filter((r) => r.live);
  const atStart = rows.filter((r) => !r.live);
  return (
    <>
      <p class="muted">These change at once and are kept across restarts (over their flags).</p>
      {live.map((r) => (
        <LiveSetting key={r.key} row={r} renamed={renamed} />
      ))}
      <p class="muted">
        The others are read at start: set them with their command-line flag or environment variable (see README), then
        restart the gateway.
      </p>
      <details>
        <summary>Show the {atStart.length} settings read at start</summary>
        <div class="table-wrap">
          <table class="settings">
            <tbody>
              {atStart.map((s) => (
                <tr key={s.key} title={s.description}>
                  <th>{humanize(s.key.replace(/\./g, ' '))}</th>
                  <td>{Array.isArray(s.value) ? s.value.join(', ') : String(s.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}

/** What a restore replaces, said before it is done: the console's password is the backup's after it. */
export const RESTORE_WARNING =
  'Restore this backup? Everything stored now is replaced by what the backup holds, and the gateway restarts.\n\n' +
  "The console's password and sessions become the backup's: you log in with the password the gateway had when " +
  'the backup was made, and consoles logged in since then (this one too) are logged out.';

function Maintenance({ data }: { data: GatewayData }) {
  const [file, setFile] = useState<File | undefined>();
  const restartSoon = () => setTimeout(() => void checkAuth(), 3000);
  return (
    <>
      <div class="row">
        <a class="button" href="/console/api/backup" download>
          Download a backup
        </a>
        <button
          type="button"
          onClick={async () => {
            if (!confirm('Restart the gateway? Apps lose their connection for a few seconds.')) return;
            if (await act('The gateway is restarting…', () => api('POST', '/restart'))) restartSoon();
          }}
        >
          Restart the gateway
        </button>
      </div>
      <form
        class="row"
        onSubmit={async (e) => {
          e.preventDefault();
          if (!file) return;
          if (!confirm(RESTORE_WARNING)) return;
          const r = await act('Backup accepted: the gateway restarts with it…', () =>
            upload<{ backup_created_at: string | null }>('/restore', file),
          );
          if (!r) return;
          notify(
            'info',
            `After the restart, log in with the console password this gateway had ${
              r.backup_created_at
                ? `on ${when(r.backup_created_at)}, when the backup was made`
                : 'when the backup was made'
            }.`,
          );
          restartSoon();
        }}
      >
        <input
          type="file"
          aria-label="Backup file"
          accept=".db,application/vnd.sqlite3,application/octet-stream"
          onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0])}
        />
        <button type="submit" disabled={!file}>
          Restore
        </button>
      </form>
      <LogLevel data={data} />
    </>
  );
}

export function GatewayPage() {
  const [data, setData] = useState<GatewayData | undefined>();
  const [error, setError] = useState('');
  useEffect(() => {
    api<GatewayData>('GET', '/gateway')
      .then(setData)
      .catch((err) => setError(wordsOf(err)));
  }, []);
  if (!data) return <main>{error ? <p class="error">{error}</p> : <p class="muted">Loading…</p>}</main>;
  const renamed = (name: string) => {
    gatewayName.value = name;
    setData({ ...data, info: { ...data.info, name } });
  };
  return (
    <main>
      <h1>Gateway</h1>
      <div class="grid wide">
        <section class="card">
          <h2>{data.info.name}</h2>
          <table>
            <tbody>
              <tr>
                <th>Address</th>
                <td>{data.info.ip}</td>
              </tr>
              <tr>
                <th>MAC</th>
                <td>{data.info.mac}</td>
              </tr>
              {data.info.domain && (
                <tr>
                  <th>Domain</th>
                  <td>{data.info.domain}</td>
                </tr>
              )}
              <tr>
                <th>Version</th>
                <td>{data.version}</td>
              </tr>
            </tbody>
          </table>
          <RuntimeView initial={data.runtime} />
        </section>
        <section class="card">
          <h2>Speaker</h2>
          <SpeakerView data={data} />
        </section>
        <section class="card">
          <h2>Apps and tokens</h2>
          <Tokens />
        </section>
        <section class="card">
          <h2>Console sessions</h2>
          <Sessions />
        </section>
        <section class="card">
          <h2>Matter</h2>
          <MatterCard />
        </section>
        <section class="card">
          <h2>Maintenance</h2>
          <Maintenance data={data} />
        </section>
        <section class="card">
          <h2>Settings</h2>
          <SettingsView rows={data.settings} renamed={renamed} />
        </section>
      </div>
    </main>
  );
}
