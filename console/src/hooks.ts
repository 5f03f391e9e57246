/** Small hooks shared by the pages. */
import { useEffect, useState } from 'preact/hooks';

/** The time now, refreshed every second while `active`. */
export function useNow(active = true): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

/** The page's route from the address's hash: `#/devices/abc` -> ['devices', 'abc']. */
export function useRoute(): string[] {
  const read = () =>
    location.hash
      .replace(/^#\/?/, '')
      .split('/')
      .filter(Boolean)
      .map((p) => decodeURIComponent(p));
  const [route, setRoute] = useState(read());
  useEffect(() => {
    const on = () => {
      setRoute(read());
      // A new page starts at the top: the browser keeps the scroll of the page before (a device
      // opened from far down the list would show its bottom first).
      window.scrollTo(0, 0);
    };
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}
