/**
 * Values that many devices hold alike, kept once: a home of 10,000 lights of a few models holds
 * a few capability lists, not 10,000 (and the catalog's validation index of a list, memoized by
 * the list, is built once per model too). A value is kept while some device holds it; the table
 * forgets it after that (weakly held). Kept values are frozen: they are shared, so changing one
 * in place would change every device that holds it (devices replace their lists, never change
 * them; a frozen one that is changed throws instead).
 */
import { deepFreeze } from '../../lib/object.ts';

export class Interned<T extends object> {
  private readonly byJson = new Map<string, WeakRef<T>>();
  /** The values kept, to know one at once (a state report passes its device's kept list again). */
  private readonly kept = new WeakSet<T>();
  private readonly forget = new FinalizationRegistry<string>((json) => {
    if (this.byJson.get(json)?.deref() === undefined) this.byJson.delete(json);
  });

  /** The kept value equal to `value` (same JSON), keeping a frozen copy of it when there is none. */
  of(value: T): T {
    if (this.kept.has(value)) return value;
    const json = JSON.stringify(value);
    const known = this.byJson.get(json)?.deref();
    if (known) return known;
    const kept = deepFreeze(structuredClone(value));
    this.byJson.set(json, new WeakRef(kept));
    this.kept.add(kept);
    this.forget.register(kept, json);
    return kept;
  }

  /** Distinct values kept now. */
  get size(): number {
    return this.byJson.size;
  }
}
