/**
 * A camera on its device's page: its picture (a snapshot, or the live view) and its stream as a
 * form: the address, the user name and a password field that is always empty (the page never
 * has the password; left empty, the camera keeps its own). Saving probes the camera first, as D4
 * does, and says in words what is wrong.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, wordsOf } from '../api.ts';
import { notify } from '../store.ts';
import type { CameraView, Device } from '../types.ts';
import { FormFooter } from './form-footer.tsx';

function Picture({ d }: { d: Device }) {
  const [stamp, setStamp] = useState(Date.now());
  const [liveView, setLiveView] = useState(false);
  const base = `/console/api/cameras/${encodeURIComponent(d.serial_number)}`;
  return (
    <section>
      <h2>Picture</h2>
      {liveView ? (
        <img class="camera" src={`${base}/live`} alt={`Live view of ${d.name}`} />
      ) : (
        <img class="camera" src={`${base}/snapshot?t=${stamp}`} alt={`Snapshot of ${d.name}`} />
      )}
      <div class="buttons">
        <button type="button" onClick={() => setStamp(Date.now())} disabled={liveView}>
          New snapshot
        </button>
        <button type="button" onClick={() => setLiveView(!liveView)}>
          {liveView ? 'Stop live view' : 'Live view'}
        </button>
      </div>
    </section>
  );
}

function StreamForm({ d, cam }: { d: Device; cam: CameraView }) {
  const [url, setUrl] = useState(cam.stream_url);
  const [username, setUsername] = useState(cam.username);
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // What the camera has now (after a save here or elsewhere).
  useEffect(() => {
    setUrl(cam.stream_url);
    setUsername(cam.username);
  }, [cam.stream_url, cam.username]);
  return (
    <form
      class="form stream-form"
      onSubmit={async (e) => {
        e.preventDefault();
        setError('');
        setBusy(true);
        try {
          await api('PUT', `/cameras/${encodeURIComponent(d.serial_number)}`, {
            stream_url: url,
            username,
            ...(password !== '' ? { password } : {}),
          });
          setPassword('');
          notify('ok', `${d.name}: stream saved.`);
        } catch (err) {
          setError(wordsOf(err));
        } finally {
          setBusy(false);
        }
      }}
    >
      <label>
        Stream address
        <input name="stream_url" value={url} required onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        User name
        <input
          name="username"
          autocomplete="off"
          value={username}
          onInput={(e) => setUsername((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Password
        <input
          type="password"
          name="password"
          autocomplete="new-password"
          value={password}
          placeholder={cam.has_password ? 'unchanged (leave empty to keep it)' : 'none'}
          onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
        />
      </label>
      <FormFooter error={error} label="Save stream" kind="plain" busy={busy} busyLabel="Checking the camera…" />
    </form>
  );
}

/** The camera parts of a device's page. */
export function CameraSections({ d, cam }: { d: Device; cam: CameraView }) {
  return (
    <>
      <Picture d={d} />
      <section>
        <h2>Stream</h2>
        <p class="muted">{cam.protocol === 'ESP32-CAM' ? 'ESP32-CAM board' : 'RTSP camera'}</p>
        {cam.facts.length > 0 && (
          <dl class="readings wide">
            {cam.facts.map((f) => (
              <div key={f.label}>
                <dt>{f.label}</dt>
                <dd>{f.text}</dd>
              </div>
            ))}
          </dl>
        )}
        <StreamForm d={d} cam={cam} />
      </section>
    </>
  );
}
