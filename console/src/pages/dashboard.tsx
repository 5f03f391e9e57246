/**
 * The dashboard: the cards add-ons registered (`ui/cards`), each a frame of the add-on's own page
 * at one of its sizes (columns × rows of the grid), with its larger page (the drawer) a click away.
 * Frames of another origin run sandboxed without this page's cookies; a card served from the
 * gateway's own origin also loses its origin (it must not act as the console).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, wordsOf } from '../api.ts';
import { act } from '../store.ts';

interface CardSettings {
  default: string;
  dimensions: { size: string; src: string }[];
  drawer_component?: { src: string };
}

interface UiCard {
  id: string;
  label?: string;
  web_settings: CardSettings;
  app_name?: string;
}

/** `2×1` as columns and rows. */
function span(size: string): { columns: number; rows: number } {
  const [c, r] = size.split('\u00d7').map(Number);
  return { columns: c && c > 0 ? c : 1, rows: r && r > 0 ? r : 1 };
}

/** What a frame may do: scripts and forms, and its own origin only when it is not the console's. */
function sandboxFor(src: string): string {
  let own = true;
  try {
    own = new URL(src, location.href).origin === location.origin;
  } catch {
    // an address the browser cannot read keeps the strictest sandbox
  }
  return own ? 'allow-scripts allow-forms' : 'allow-scripts allow-forms allow-popups allow-same-origin';
}

const SIZE_KEY = 'opencube.card-sizes';

function savedSizes(): Record<string, string> {
  try {
    return JSON.parse(localStorage.getItem(SIZE_KEY) ?? '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

function Card({ card, remove }: { card: UiCard; remove: () => void }) {
  const web = card.web_settings;
  const [size, setSize] = useState(() => {
    const saved = savedSizes()[card.id];
    return web.dimensions.some((d) => d.size === saved) ? (saved as string) : web.default;
  });
  const [drawer, setDrawer] = useState(false);
  const shown = web.dimensions.find((d) => d.size === size) ?? web.dimensions[0];
  const { columns, rows } = span(size);
  const title = card.label ?? card.app_name ?? 'A card';
  const choose = (next: string) => {
    setSize(next);
    localStorage.setItem(SIZE_KEY, JSON.stringify({ ...savedSizes(), [card.id]: next }));
  };
  return (
    <article
      class="ui-card card"
      data-card={card.id}
      style={{ '--columns': String(columns), '--rows': String(rows) }}
      aria-label={title}
    >
      <header>
        <h2>{title}</h2>
        {web.dimensions.length > 1 && (
          <select aria-label="Size" value={size} onChange={(e) => choose((e.target as HTMLSelectElement).value)}>
            {web.dimensions.map((d) => (
              <option key={d.size}>{d.size}</option>
            ))}
          </select>
        )}
        {web.drawer_component && (
          <button type="button" class="small" onClick={() => setDrawer(true)}>
            Open
          </button>
        )}
        <button type="button" class="small" onClick={remove}>
          Remove
        </button>
      </header>
      {shown && <iframe title={title} src={shown.src} sandbox={sandboxFor(shown.src)} loading="lazy" />}
      {drawer && web.drawer_component && (
        <div class="overlay">
          <div class="popup card drawer" role="dialog" aria-modal="true" aria-label={title}>
            <header>
              <h2>{title}</h2>
              <button type="button" class="small" onClick={() => setDrawer(false)}>
                Close
              </button>
            </header>
            <iframe
              title={`${title} (open)`}
              src={web.drawer_component.src}
              sandbox={sandboxFor(web.drawer_component.src)}
            />
          </div>
        </div>
      )}
    </article>
  );
}

export function DashboardPage() {
  const [cards, setCards] = useState<UiCard[] | undefined>();
  const [error, setError] = useState('');
  const load = () =>
    api<{ cards: UiCard[] }>('GET', '/cards')
      .then((r) => {
        setCards(r.cards);
        setError('');
      })
      .catch((err) => setError(wordsOf(err)));
  useEffect(() => {
    void load();
  }, []);
  const remove = async (card: UiCard) => {
    const title = card.label ?? 'this card';
    if (!confirm(`Remove ${title} from the dashboard? The add-on may register it again.`)) return;
    await act(`${title} removed.`, () => api('DELETE', `/cards/${encodeURIComponent(card.id)}`));
    await load();
  };
  return (
    <main>
      <div class="toolbar">
        <h1>Dashboard</h1>
        <button type="button" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      {error && <p class="error">{error}</p>}
      {cards === undefined ? (
        !error && <p class="muted">Loading…</p>
      ) : cards.length === 0 ? (
        <p class="muted">
          No cards yet. Add-ons put their cards here through the Open API (<code>POST ui/cards</code>).
        </p>
      ) : (
        <div class="ui-cards">
          {cards.map((c) => (
            <Card key={c.id} card={c} remove={() => void remove(c)} />
          ))}
        </div>
      )}
    </main>
  );
}
