/**
 * The console's header: one line at any width. On a wide screen every page is a link in the row;
 * on a narrow one (a phone) the row holds the gateway's name, the page shown, the alarm badge and
 * the live state, and a Menu button opens the list of every page and Log out (docs/console.md
 * says why a menu rather than a bottom tab bar). Which of the two shows is the stylesheet's choice
 * (one media query), so the markup is the same at both widths.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { alarming, checkAuth, gatewayName, live } from '../store.ts';
import { networks } from '../zigbee.ts';

/** Every page of the console in the header's order; `zigbee` only when a Zigbee network exists. */
function pages(): { to: string; label: string }[] {
  return [
    { to: 'devices', label: 'Devices' },
    { to: 'scenes', label: 'Scenes' },
    ...(networks.value.length > 0 ? [{ to: 'zigbee', label: 'Zigbee' }] : []),
    { to: 'security', label: 'Security' },
    { to: 'logbook', label: 'Logbook' },
    { to: 'energy', label: 'Energy' },
    { to: 'dashboard', label: 'Dashboard' },
    { to: 'gateway', label: 'Gateway' },
  ];
}

async function logOut(): Promise<void> {
  try {
    await api('POST', '/auth/logout');
  } catch {
    // already logged out
  }
  await checkAuth();
}

/** The menu's items that take focus, in order: the pages' links, then Log out. */
function items(menu: HTMLElement | null): HTMLElement[] {
  return menu ? [...menu.querySelectorAll<HTMLElement>('a, button')] : [];
}

export function Header({ page }: { page: string }) {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLElement>(null);
  const list = pages();
  const current = list.find((p) => p.to === page) ?? list[0];

  /** Closes the menu and puts focus back on its button (Escape, a page chosen): not lost on the page's top. */
  const close = () => {
    setOpen(false);
    toggle.current?.focus();
  };

  // Opened, focus goes to the page shown (then the arrows, Tab, Home and End move in the list),
  // as soon as the list is there.
  useLayoutEffect(() => {
    if (!open) return;
    const all = items(menu.current);
    (all.find((el) => el.getAttribute('aria-current') === 'page') ?? all[0])?.focus();
  }, [open]);

  // While open: any change of page closes it (a link in the menu, the alarm badge, the browser's
  // Back); so do Escape, a tap outside the list and focus leaving it (Tab past Log out); the
  // arrows, Home and End move in the list. Listening from the moment the list shows.
  useLayoutEffect(() => {
    if (!open) return;
    const inside = (target: EventTarget | null) =>
      target instanceof Node && (menu.current?.contains(target) || toggle.current?.contains(target));
    const onHash = () => setOpen(false);
    const onPointer = (e: PointerEvent) => {
      if (!inside(e.target)) setOpen(false);
    };
    const onFocus = (e: FocusEvent) => {
      if (!inside(e.target)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        close();
        return;
      }
      const all = items(menu.current);
      const at = all.indexOf(document.activeElement as HTMLElement);
      const to = { ArrowDown: at + 1, ArrowUp: at - 1 + all.length, Home: 0, End: all.length - 1 }[e.key];
      if (to === undefined || at < 0) return;
      e.preventDefault();
      all[to % all.length]?.focus();
    };
    addEventListener('hashchange', onHash);
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('focusin', onFocus);
    document.addEventListener('keydown', onKey);
    return () => {
      removeEventListener('hashchange', onHash);
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('focusin', onFocus);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  return (
    <header class={`top${open ? ' open' : ''}`}>
      <button
        ref={toggle}
        type="button"
        class="menu-toggle"
        aria-label="Menu"
        aria-expanded={open}
        aria-controls="pages"
        onClick={() => setOpen(!open)}
      >
        <svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true">
          <path d="M3 5h14M3 10h14M3 15h14" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
        </svg>
      </button>
      <span class="brand">{gatewayName.value}</span>
      <span class="here">{current?.label}</span>
      <nav id="pages" ref={menu} aria-label="Pages">
        {list.map(({ to, label }) => (
          <a
            key={to}
            href={`#/${to}`}
            class={page === to ? 'current' : ''}
            aria-current={page === to ? 'page' : undefined}
            onClick={() => open && close()}
          >
            {label}
          </a>
        ))}
        <button type="button" class="menu-only" onClick={() => void logOut()}>
          Log out
        </button>
      </nav>
      {alarming.value && (
        <a href="#/security" class="badge alarm">
          Alarm
        </a>
      )}
      <span class={`live ${live.value}`} title="Live updates">
        <span class="live-word">
          {live.value === 'live' ? 'live' : live.value === 'lost' ? 'reconnecting' : 'connecting'}
        </span>
      </span>
      <button type="button" class="small wide-only" onClick={() => void logOut()}>
        Log out
      </button>
      {/* Dims the page under the open menu and takes the tap that closes it, so that tap changes nothing there. */}
      {open && <div class="menu-backdrop" aria-hidden="true" />}
    </header>
  );
}
