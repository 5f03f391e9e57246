/**
 * Time and sun triggers on the clock. Each occurrence is an instant claimed once in the store
 * (the trigger's cursor, moved in the transaction that starts the run), so no occurrence runs
 * twice across any number of restarts. At start, the occurrences that fell while the gateway was
 * down are caught up: the last one runs if it is at most the grace late, the others (and it, if
 * later) are recorded as missed in one trace.
 */
import type { Clock } from '../lib/clock.ts';
import { ofDefinition, type TriggerHost, triggerKey } from './firing.ts';
import type { Definition, Trigger } from './model.ts';
import { isScheduled, nextOccurrence, type Occurrence, occurrencesBetween } from './schedule.ts';
import type { AutomationStore } from './store.ts';
import type { Location } from './sun.ts';
import { iso } from './trace.ts';
import type { NextFiring } from './views.ts';
import { localIso, type Zone } from './zone.ts';

export interface SchedulerDeps {
  store: AutomationStore;
  clock: Clock;
  zone: Zone;
  location: Location | null;
  graceSeconds: number;
}

export class Scheduler {
  private readonly timers = new Map<string, () => void>();

  constructor(
    private readonly deps: SchedulerDeps,
    private readonly host: TriggerHost,
  ) {}

  scheduleAll(d: Definition, after: number): void {
    for (const [i, t] of d.triggers.entries()) if (isScheduled(t)) this.schedule(d, i, after);
  }

  private schedule(d: Definition, index: number, after: number): void {
    const t = d.triggers[index];
    if (!t || !isScheduled(t)) return;
    const o = nextOccurrence(t, after, this.deps.zone, this.deps.location);
    if (!o) return;
    const k = triggerKey(d.id, index);
    this.timers.get(k)?.();
    const cancel = this.deps.clock.setTimer(o.at - this.deps.clock.now(), () => {
      this.timers.delete(k);
      const now = this.deps.clock.now();
      const current = this.host.definition(d.id);
      if (!current || current.version !== d.version || !this.host.live(current)) return;
      // The real clock can fire a long timer early (a clock set back): wait for the instant itself.
      if (now < o.at) {
        this.schedule(current, index, after);
        return;
      }
      this.occur(current, index, o, now);
      this.schedule(current, index, o.at);
    });
    this.timers.set(k, cancel);
  }

  unschedule(id: string): void {
    for (const [k, cancel] of [...this.timers]) {
      if (!ofDefinition(k, id)) continue;
      cancel();
      this.timers.delete(k);
    }
  }

  /** One occurrence: runs if at most the grace late, else recorded missed; its instant is claimed once. */
  private occur(
    d: Definition,
    index: number,
    o: Occurrence,
    now: number,
    missed: Occurrence[] = [],
    more = false,
  ): void {
    const t = d.triggers[index] as Trigger;
    const what =
      t.type === 'time'
        ? `time ${t.at}`
        : t.type === 'sun'
          ? `${t.event}${t.offset_minutes ? ` ${t.offset_minutes > 0 ? '+' : ''}${t.offset_minutes} min` : ''}`
          : t.type;
    const ref = { def: d, index };
    const late = now - o.at;
    const gap =
      o.resolution === 'gap' ? ' (that time did not exist today: clocks went forward; run at the change)' : '';
    const claim = () => {
      const cursor = this.deps.store.cursor(d.id, index);
      if (cursor !== undefined && cursor >= o.at) return false;
      this.deps.store.setCursor(d.id, index, o.at);
      return true;
    };
    this.deps.store.transaction(() => {
      if (missed.length > 0 || late > this.deps.graceSeconds * 1000) {
        const all = late > this.deps.graceSeconds * 1000 ? [...missed, o] : missed;
        const first = all[0] as Occurrence;
        const last = all[all.length - 1] as Occurrence;
        const count = `${more ? 'more than ' : ''}${all.length}`;
        this.host.notRun(
          d,
          this.host.traceTrigger(ref, { description: what, cause: null, scheduled: last }),
          [],
          `missed: ${count} occurrence${all.length === 1 && !more ? '' : 's'} of ${what} (${iso(first.at)}${all.length > 1 ? ` to ${iso(last.at)}` : ''}) fell while the gateway was down, more than the grace of ${this.deps.graceSeconds} s ago`,
        );
        if (last.at > (this.deps.store.cursor(d.id, index) ?? 0)) this.deps.store.setCursor(d.id, index, last.at);
        if (all.includes(o)) return;
      }
      this.host.fire(ref, { description: `${what}${gap}`, cause: null, scheduled: o, claim });
    });
  }

  /** At start: the occurrences of each scheduled trigger since its cursor: the last runs if within the grace. */
  catchUp(d: Definition, now: number): void {
    d.triggers.forEach((t, index) => {
      if (!isScheduled(t)) return;
      const cursor = this.deps.store.cursor(d.id, index);
      if (cursor === undefined) {
        this.deps.store.setCursor(d.id, index, now);
      } else {
        const { list, more } = occurrencesBetween(t, cursor, now, this.deps.zone, this.deps.location);
        const last = list.pop();
        if (last) this.occur(d, index, last, now, list, more);
      }
      this.schedule(d, index, now);
    });
  }

  /** Every timer stops (the cursors stay in the store). */
  stop(): void {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }

  /** The next `count` firings of each scheduled trigger of a definition, soonest first. */
  next(d: Definition, after: number, count: number): NextFiring[] {
    const out: NextFiring[] = [];
    const { zone, location } = this.deps;
    d.triggers.forEach((t, trigger) => {
      if (!isScheduled(t)) return;
      let from = after;
      for (let n = 0; n < count; n++) {
        const o = nextOccurrence(t, from, zone, location);
        if (!o) break;
        const resolution = o.resolution && o.resolution !== 'exact' ? { resolution: o.resolution } : {};
        out.push({ trigger, at: iso(o.at), local: localIso(zone, o.at), ...resolution });
        from = o.at;
      }
    });
    // ISO instants sort as text; not localeCompare, whose first use loads ICU's collation data
    // (2.7 MB of node's binary kept by the process ever after; docs/benchmarks.md).
    return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.trigger - b.trigger));
  }
}
