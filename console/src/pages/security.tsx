/**
 * Security: the alarm live, arming and disarming the modes, each mode's delays, sound and the
 * sensors that set it off (by name on its card: what arming it means), and the detectors that
 * ring in every mode.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, wordsOf } from '../api.ts';
import { countdown, humanize } from '../format.ts';
import { useNow } from '../hooks.ts';
import { act, alarm, devices, securityVersion } from '../store.ts';
import type { ModeConfig, Security } from '../types.ts';

const STAGES: Record<string, string> = {
  disarmed: 'Disarmed',
  exit_delay: 'Arming (exit delay)',
  armed: 'Armed',
  entry_delay: 'Intrusion detected (entry delay)',
  alarming: 'ALARM',
};

/** The kinds of intrusion sensor in words (a mode watches doors and windows, motion, tamper). */
const KINDS: Record<string, { plural: string; one: string }> = {
  contact: { plural: 'Doors and windows', one: 'door or window' },
  motion: { plural: 'Motion', one: 'motion' },
  'tamper-alert': { plural: 'Tamper', one: 'tamper' },
  // What sets off an alarm in every mode, as the alarm's status names it.
  smoke: { plural: 'Smoke', one: 'smoke' },
  gas: { plural: 'Gas', one: 'gas' },
  'water-leak': { plural: 'Water leaks', one: 'water leak' },
};

function kindWord(k: string): string {
  return KINDS[k]?.one ?? humanize(k).toLowerCase();
}

/** How many watched sensors a mode's card names; the rest are counted. */
const NAMED = 6;

/** The sensors a mode watches, by name, each with what it is watched for. */
function Watching({ m }: { m: Security['modes'][number] }) {
  if (m.watching.length === 0) return <p class="watching">Watches no sensor: only smoke, gas and leaks ring.</p>;
  const more = m.watching.length - NAMED;
  return (
    <div class="watching">
      <p>Set off by:</p>
      <ul>
        {m.watching.slice(0, NAMED).map((w) => (
          <li key={w.serial_number}>
            {w.name} <span class="muted">{w.kinds.map(kindWord).join(', ')}</span>
          </li>
        ))}
        {more > 0 && <li class="muted">and {more} more (Settings)</li>}
      </ul>
    </div>
  );
}

function ModeForm({
  sid,
  config,
  sounds,
  kinds,
  sensors,
  watching,
  saved,
}: {
  sid: number;
  config: ModeConfig;
  sounds: string[];
  kinds: string[];
  sensors: Security['sensors'];
  watching: string[];
  saved: (s: Security) => void;
}) {
  const [c, setC] = useState(config);
  useEffect(() => setC(config), [config]);
  const listed = Array.isArray(c.devices);
  const chosenKinds = c.devices === 'all' ? kinds : Array.isArray(c.devices) ? [] : c.devices.kinds;
  const chosen = new Set(Array.isArray(c.devices) ? c.devices : []);
  const num = (k: keyof ModeConfig) => (e: Event) => setC({ ...c, [k]: Number((e.target as HTMLInputElement).value) });
  // Every kind chosen is "every sensor": the API's "all".
  const byKinds = (list: string[]) => setC({ ...c, devices: list.length === kinds.length ? 'all' : { kinds: list } });
  return (
    <form
      class="mode-form"
      onSubmit={async (e) => {
        e.preventDefault();
        const { exit_delay, entry_delay, alarm_sound, alarm_duration, devices } = c;
        const body = { exit_delay, entry_delay, alarm_sound, alarm_duration, devices };
        const r = await act('Mode settings saved.', () => api<Security>('PUT', `/security/${sid}/config`, body));
        if (r) saved(r);
      }}
    >
      <label>
        Exit delay (s)
        <input type="number" min={0} max={3600} value={c.exit_delay} onInput={num('exit_delay')} />
      </label>
      <label>
        Entry delay (s)
        <input type="number" min={0} max={3600} value={c.entry_delay} onInput={num('entry_delay')} />
      </label>
      <label>
        Alarm sound
        <select
          value={c.alarm_sound}
          onChange={(e) => setC({ ...c, alarm_sound: (e.target as HTMLSelectElement).value })}
        >
          {sounds.map((s) => (
            <option key={s} value={s}>
              {humanize(s)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Rings for (s, -1 until cancelled)
        <input type="number" min={-1} max={3600} value={c.alarm_duration} onInput={num('alarm_duration')} />
      </label>
      <fieldset>
        <legend>Sensors that set it off</legend>
        <label class="check">
          <input
            type="radio"
            name={`watch-${sid}`}
            checked={!listed}
            onChange={() => byKinds(chosenKinds.length > 0 ? chosenKinds : kinds)}
          />
          Every sensor of these kinds, and those added later:
        </label>
        <div class="indent">
          {kinds.map((k) => (
            <label class="check" key={k}>
              <input
                type="checkbox"
                disabled={listed}
                checked={!listed && chosenKinds.includes(k)}
                onChange={(e) =>
                  byKinds(
                    (e.target as HTMLInputElement).checked
                      ? kinds.filter((x) => x === k || chosenKinds.includes(x))
                      : chosenKinds.filter((x) => x !== k),
                  )
                }
              />
              {KINDS[k]?.plural ?? humanize(k)}
            </label>
          ))}
        </div>
        <label class="check">
          <input
            type="radio"
            name={`watch-${sid}`}
            checked={listed}
            // Starts from the sensors it watches now.
            onChange={() => setC({ ...c, devices: [...watching] })}
          />
          Only these sensors:
        </label>
        <div class="indent">
          {/* Smoke, gas and leak detectors ring in every mode: a list does not choose them. */}
          {sensors
            .filter((s) => s.kinds.length > 0)
            .map((s) => (
              <label class="check" key={s.serial_number}>
                <input
                  type="checkbox"
                  disabled={!listed}
                  checked={chosen.has(s.serial_number)}
                  onChange={(e) => {
                    const next = new Set(chosen);
                    if ((e.target as HTMLInputElement).checked) next.add(s.serial_number);
                    else next.delete(s.serial_number);
                    setC({ ...c, devices: [...next] });
                  }}
                />
                <span>
                  {s.name} <span class="muted">{s.kinds.map(kindWord).join(', ')}</span>
                </span>
              </label>
            ))}
        </div>
      </fieldset>
      <button type="submit">Save settings</button>
    </form>
  );
}

export function SecurityPage() {
  const [data, setData] = useState<Security | undefined>();
  const [error, setError] = useState('');
  const [open, setOpen] = useState<number | undefined>();
  const version = securityVersion.value;
  useEffect(() => {
    // A newer read replaces this one: its answer, if it comes later, is older than what is shown.
    let current = true;
    api<Security>('GET', '/security')
      .then((r) => {
        if (!current) return;
        setData(r);
        setError('');
      })
      .catch((err) => current && setError(wordsOf(err)));
    return () => {
      current = false;
    };
  }, [version]);
  const status = alarm.value ?? data?.alarm;
  const running = status?.ends_at !== null && status?.ends_at !== undefined;
  const now = useNow(running);
  // The exit delay ends without an event of its own: read again when it should be over.
  useEffect(() => {
    if (!status?.ends_at) return;
    const t = setTimeout(() => securityVersion.value++, Math.max(0, Date.parse(status.ends_at) - Date.now()) + 300);
    return () => clearTimeout(t);
  }, [status?.ends_at]);
  if (!data || !status) return <main>{error ? <p class="error">{error}</p> : <p class="muted">Loading…</p>}</main>;
  const triggerName = status.trigger
    ? (devices.value.find((d) => d.serial_number === status.trigger?.serial_number)?.name ??
      status.trigger.serial_number)
    : '';
  const apply = (r: Security | undefined) => r && setData(r);
  return (
    <main>
      <h1>Security</h1>
      <section class={`card alarm-status stage-${status.stage}`} role="status" aria-live="polite">
        <h2>{STAGES[status.stage] ?? status.stage}</h2>
        {status.mode && <p>Mode: {humanize(status.mode.name)}</p>}
        {status.trigger && (
          <p>
            Set off by {triggerName} ({kindWord(status.trigger.capability)})
            {status.trigger.device_offline && ', which showed offline as it reported'}
          </p>
        )}
        {running && <p>{countdown(status.ends_at, now)} left</p>}
        <div class="buttons">
          {(status.stage === 'alarming' || status.stage === 'entry_delay') && (
            <button
              type="button"
              class="danger"
              onClick={async () => apply(await act('Alarm cancelled.', () => api<Security>('POST', '/alarm/cancel')))}
            >
              Cancel alarm
            </button>
          )}
          {status.stage !== 'disarmed' && (
            <button
              type="button"
              onClick={async () => apply(await act('Disarmed.', () => api<Security>('POST', '/security/disarm')))}
            >
              Disarm
            </button>
          )}
        </div>
      </section>
      <div class="grid">
        {data.modes.map((m) => (
          <article class="card mode" key={m.sid}>
            <header>
              <h2>{humanize(m.name)}</h2>
              <span class={m.enable ? 'badge armed' : 'badge'}>{m.enable ? 'armed' : 'off'}</span>
            </header>
            {m.config && (
              <p class="muted">
                Delays: exit {m.config.exit_delay} s, entry {m.config.entry_delay} s
              </p>
            )}
            <Watching m={m} />
            <div class="buttons">
              {m.enable ? (
                <button
                  type="button"
                  onClick={async () =>
                    apply(
                      await act(`${humanize(m.name)} disarmed.`, () =>
                        api<Security>('POST', `/security/${m.sid}/disarm`),
                      ),
                    )
                  }
                >
                  Disarm
                </button>
              ) : (
                <button
                  type="button"
                  class="primary"
                  onClick={async () =>
                    apply(
                      await act(`${humanize(m.name)} armed.`, () => api<Security>('POST', `/security/${m.sid}/arm`)),
                    )
                  }
                >
                  Arm
                </button>
              )}
              <button type="button" onClick={() => setOpen(open === m.sid ? undefined : m.sid)}>
                {open === m.sid ? 'Close settings' : 'Settings'}
              </button>
            </div>
            {open === m.sid && m.config && (
              <ModeForm
                sid={m.sid}
                config={m.config}
                sounds={data.sounds}
                kinds={data.kinds}
                sensors={data.sensors}
                watching={m.watching.map((w) => w.serial_number)}
                saved={setData}
              />
            )}
          </article>
        ))}
      </div>
      {data.always.length > 0 && (
        <p class="muted">
          In every mode, armed or not, these ring at once: {data.always.map((d) => d.name).join(', ')} (smoke, gas and
          water leaks).
        </p>
      )}
    </main>
  );
}
