/** The console: the header with its pages, the access-request pop-up on every page, and the messages. */
import { useState } from 'preact/hooks';
import { api, wordsOf } from './api.ts';
import { Header } from './components/header.tsx';
import { lazy } from './components/lazy.tsx';
import { appLabel } from './format.ts';
import { useRoute } from './hooks.ts';
import { DashboardPage } from './pages/dashboard.tsx';
import { DevicePage } from './pages/device.tsx';
import { Devices } from './pages/devices.tsx';
import { GatewayPage } from './pages/gateway.tsx';
import { LogbookPage } from './pages/logbook.tsx';
import { Login } from './pages/login.tsx';
import { ScenePage } from './pages/scene.tsx';
import { ScenesPage } from './pages/scenes.tsx';
import { SecurityPage } from './pages/security.tsx';
import { ZigbeePage } from './pages/zigbee.tsx';
import { auth, dismiss, notify, toasts, waiting } from './store.ts';

const EnergyPage = lazy(() => import('./pages/energy.tsx').then((m) => m.EnergyPage));

/** Apps asking for a token: approve or deny each; the pop-up closes on every console once one decides. */
function AccessRequests() {
  const [busy, setBusy] = useState('');
  const apps = waiting.value;
  if (apps.length === 0) return null;
  const decide = async (app: string, approve: boolean) => {
    setBusy(app);
    try {
      await api('POST', approve ? '/link/approve' : '/link/deny', { app_name: app });
      notify(
        'ok',
        approve ? `${appLabel(app)} is allowed: it gets its token at its next try.` : `${appLabel(app)} is refused.`,
      );
    } catch (err) {
      notify('error', wordsOf(err));
    } finally {
      setBusy('');
    }
  };
  return (
    <div class="overlay">
      <div class="popup card" role="alertdialog" aria-modal="true" aria-labelledby="access-title">
        <h2 id="access-title">Access request</h2>
        {apps.map((app) => (
          <div class="request" key={app} data-app={app}>
            <p>
              <strong>{appLabel(app)}</strong> asks to control this gateway and its devices.
            </p>
            <div class="buttons">
              <button type="button" class="primary" disabled={busy === app} onClick={() => void decide(app, true)}>
                Allow
              </button>
              <button type="button" disabled={busy === app} onClick={() => void decide(app, false)}>
                Deny
              </button>
            </div>
          </div>
        ))}
      </div>
    </div>
  );
}

function Toasts() {
  return (
    <div class="toasts" aria-live="polite">
      {toasts.value.map((t) => (
        <div key={t.id} class={`toast ${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
          <span>{t.text}</span>
          <button type="button" class="close" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

export function App() {
  const route = useRoute();
  if (auth.value === 'loading') return <p class="boot">Loading the console…</p>;
  if (auth.value !== 'in')
    return (
      <>
        <Login />
        <Toasts />
      </>
    );
  const page = route[0] ?? 'devices';
  return (
    <>
      <Header page={page} />
      {page === 'devices' && route[1] ? (
        <DevicePage serial={route[1]} />
      ) : page === 'zigbee' ? (
        <ZigbeePage tab={route[1]} />
      ) : page === 'scenes' && route[1] ? (
        <ScenePage key={route[1]} id={route[1]} />
      ) : page === 'scenes' ? (
        <ScenesPage />
      ) : page === 'security' ? (
        <SecurityPage />
      ) : page === 'gateway' ? (
        <GatewayPage />
      ) : page === 'logbook' ? (
        <LogbookPage />
      ) : page === 'energy' ? (
        <EnergyPage />
      ) : page === 'dashboard' ? (
        <DashboardPage />
      ) : (
        <Devices />
      )}
      <AccessRequests />
      <Toasts />
    </>
  );
}
