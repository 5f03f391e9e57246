/**
 * A component whose code comes in a chunk of its own, imported the first time it is shown (the
 * history's charts and uPlot): the console's first load stays small, and a phone that never opens
 * a chart never downloads them.
 */
import type { ComponentType, FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export function lazy<P extends object>(load: () => Promise<ComponentType<P>>): FunctionComponent<P> {
  let loaded: ComponentType<P> | undefined;
  let pending: Promise<ComponentType<P>> | undefined;
  return (props: P) => {
    const [, setReady] = useState(loaded !== undefined);
    const [error, setError] = useState('');
    useEffect(() => {
      if (loaded) return;
      let alive = true;
      pending ??= load();
      pending.then(
        (c) => {
          loaded = c;
          if (alive) setReady(true);
        },
        () => {
          // Tried again when shown again (the gateway may have been restarting).
          pending = undefined;
          if (alive) setError('This part of the console could not be loaded: reload the page.');
        },
      );
      return () => {
        alive = false;
      };
    }, []);
    if (error) return <p class="error">{error}</p>;
    if (!loaded) return <p class="muted">Loading…</p>;
    const C = loaded;
    return <C {...props} />;
  };
}
