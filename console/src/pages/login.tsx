/** Logging in, and the first run: the setup code from the gateway's log sets the password. */
import { useState } from 'preact/hooks';
import { api, wordsOf } from '../api.ts';
import { FormFooter } from '../components/form-footer.tsx';
import { when } from '../format.ts';
import { auth, checkAuth, gatewayName, passwdCommand, restoredAt } from '../store.ts';

export function Login() {
  const setup = auth.value === 'setup';
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    if (setup && password !== again) {
      setError('The two passwords differ.');
      return;
    }
    setBusy(true);
    try {
      if (setup) await api('POST', '/auth/setup', { code, password });
      else await api('POST', '/auth/login', { password });
      setPassword('');
      await checkAuth();
    } catch (err) {
      setError(wordsOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login">
      <form class="card" onSubmit={submit}>
        <h1>{gatewayName.value}</h1>
        {setup ? (
          <>
            <p>
              Welcome. Choose the password of this console. To prove you run this gateway, enter the setup code it
              printed in its log (or set the password with <code>{passwdCommand.value}</code> on its machine).
            </p>
            <label>
              Setup code
              <input
                name="code"
                autocomplete="one-time-code"
                value={code}
                onInput={(e) => setCode((e.target as HTMLInputElement).value)}
                required
              />
            </label>
          </>
        ) : (
          <p>Log in to the console of this gateway.</p>
        )}
        {restoredAt.value && !setup && (
          <p class="notice" role="status">
            This gateway was restored from a backup on {when(restoredAt.value)}. Its console password is now the one it
            had when that backup was made.
          </p>
        )}
        <label>
          {setup ? 'New password (8 characters or more)' : 'Password'}
          <input
            type="password"
            name="password"
            autocomplete={setup ? 'new-password' : 'current-password'}
            value={password}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
            required
          />
        </label>
        {setup && (
          <label>
            The same password again
            <input
              type="password"
              name="again"
              autocomplete="new-password"
              value={again}
              onInput={(e) => setAgain((e.target as HTMLInputElement).value)}
              required
            />
          </label>
        )}
        <FormFooter error={error} label={setup ? 'Set password and log in' : 'Log in'} busy={busy} />
      </form>
    </main>
  );
}
