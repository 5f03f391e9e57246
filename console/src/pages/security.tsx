/** Security: the alarm live, arming and disarming the modes, each mode's delays, sound and trigger devices. */
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

function ModeForm({
  sid,
  config,
  sounds,
  sensors,
  saved,
}: {
  sid: number;
  config: ModeConfig;
  sounds: string[];
  sensors: Security['sensors'];
  saved: (s: Security) => void;
}) {
  const [c, setC] = useState(config);
  useEffect(() => setC(config), [config]);
  const all = c.devices === 'all';
  const chosen = new Set(all ? [] : c.devices);
  const num = (k: keyof ModeConfig) => (e: Event) => setC({ ...c, [k]: Number((e.target as HTMLInputElement).value) });
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
        <legend>Trigger devices</legend>
        <label class="check">
          <input
            type="checkbox"
            checked={all}
            onChange={(e) => setC({ ...c, devices: (e.target as HTMLInputElement).checked ? 'all' : [] })}
          />
          Every sensor
        </label>
        {!all &&
          sensors.map((s) => (
            <label class="check" key={s.serial_number}>
              <input
                type="checkbox"
                checked={chosen.has(s.serial_number)}
                onChange={(e) => {
                  const next = new Set(chosen);
                  if ((e.target as HTMLInputElement).checked) next.add(s.serial_number);
                  else next.delete(s.serial_number);
                  setC({ ...c, devices: [...next] });
                }}
              />
              {s.name}
            </label>
          ))}
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
            Set off by {triggerName} ({humanize(status.trigger.capability)})
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
                Exit {m.config.exit_delay} s · entry {m.config.entry_delay} s ·{' '}
                {m.config.devices === 'all' ? 'every sensor' : `${m.config.devices.length} sensors`}
              </p>
            )}
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
              <ModeForm sid={m.sid} config={m.config} sounds={data.sounds} sensors={data.sensors} saved={setData} />
            )}
          </article>
        ))}
      </div>
    </main>
  );
}
