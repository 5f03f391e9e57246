/**
 * The automation engine: it keeps the definitions (checked whole when saved), listens to the
 * event bus for device, security and alarm events, schedules time and sun triggers on the
 * injected clock, holds `for` durations in the store, guards against loops, and starts runs
 * (runs.ts). Nothing of it is lost to a restart: see docs/automations.md for the rules, and
 * start() for what a start resumes.
 */
import { randomBytes } from 'node:crypto';
import { type Actor, actorWords } from '../core/actor.ts';
import { mergeState } from '../core/devices/index.ts';
import type { BusEvent } from '../core/event-bus.ts';
import { Admission } from './admission.ts';
import { Causality } from './causality.ts';
import { evaluateAll } from './conditions.ts';
import type { Firing, TriggerHost, TriggerRef } from './firing.ts';
import { Holds } from './holds.ts';
import { automationLimits as L } from './limits.ts';
import { change, pressOf, stateEdge, wanted } from './matching.ts';
import { type Definition, type DefinitionInput, devicesOf, type Trigger } from './model.ts';
import { NOT_RUN_BATCH, NotRunBuffer, type NotRunOptions } from './not-run.ts';
import type { EnginePorts } from './ports.ts';
import { Runs } from './runs.ts';
import { isScheduled } from './schedule.ts';
import { Scheduler } from './scheduler.ts';
import { AutomationStore, UNREADABLE } from './store.ts';
import { type Location, parseLocation } from './sun.ts';
import {
  type Bucket,
  type Cause,
  type ConditionResult,
  iso,
  notRunTrace,
  type Trace,
  type TraceTrigger,
  triggerOf,
} from './trace.ts';
import { validateDefinition } from './validate.ts';
import type { DefinitionStatus, NextFiring } from './views.ts';

export type { DefinitionStatus };

import { resolveRef } from './values.ts';
import { machineZone, Zone } from './zone.ts';

export type Saved = { ok: true; definition: Definition } | { ok: false; errors: string[] };
export type Started = { ok: true; run_id: string } | { ok: false; message: string };

/**
 * What a start is told besides the store: it was restored from a backup taken at `taken_at`
 * (null: a store copied by hand); `done` runs in the transaction that ends what was in flight.
 */
export interface StartOptions {
  restoredFrom?: { taken_at: string | null; done?: () => void } | null;
}

export class AutomationEngine {
  private readonly store: AutomationStore;
  private readonly runs: Runs;
  private readonly defs = new Map<string, Definition>();
  /** Device triggers by serial number. */
  private readonly byDevice = new Map<string, TriggerRef[]>();
  private readonly byKind = new Map<string, TriggerRef[]>();
  /** The definitions (live or not) that name each device: checked again when it changes. */
  private readonly naming = new Map<string, Set<string>>();
  /** The last state and online flag seen of each device: edges are changes from these. */
  private readonly seen = new Map<string, { state: Record<string, unknown>; online: boolean }>();
  private readonly scheduler: Scheduler;
  private readonly holds: Holds;
  private admission = new Admission((id) => this.defs.get(id)?.name ?? id);
  private causality: Causality;
  private readonly notRuns: NotRunBuffer;
  private unsubscribe?: () => void;
  private running = false;
  readonly zone: Zone;
  readonly location: Location | null;

  /** `notRun`: how the traces of triggers not run are batched (tests shorten it). */
  constructor(
    private readonly ports: EnginePorts,
    notRun: NotRunOptions = NOT_RUN_BATCH,
  ) {
    this.store = new AutomationStore(ports.db);
    this.causality = new Causality(ports.clock);
    this.notRuns = new NotRunBuffer(this.store, ports.clock, notRun);
    this.zone = new Zone(ports.settings.timeZone || machineZone());
    this.location = parseLocation(ports.settings.location);
    this.runs = new Runs(
      { ...ports, store: this.store },
      {
        definition: (id) => this.defs.get(id),
        runScene: (id, cause) => this.runScene(id, cause),
        setEnabled: (id, enabled) => this.setEnabled(id, enabled).ok,
        within: (cause, serial, fn) => this.causality.within(cause, serial, fn),
      },
    );
    const host: TriggerHost = {
      definition: (id) => this.defs.get(id),
      live: (d) => this.live(d),
      fire: (ref, f) => this.fire(ref, f),
      notRun: (d, trigger, conditions, reason) => this.notRun(d, trigger, conditions, reason),
      traceTrigger: (ref, f) => this.traceTrigger(ref, f),
    };
    const { store, zone, location } = this;
    this.scheduler = new Scheduler(
      { store, clock: ports.clock, zone, location, graceSeconds: ports.settings.graceSeconds },
      host,
    );
    this.holds = new Holds({ store, clock: ports.clock, devices: ports.devices }, host);
  }

  // ---- life cycle ----

  /**
   * Loads the definitions and marks broken those naming what is gone, resumes every journalled
   * run (delays with the time left) and `for` hold, runs once each time or sun trigger that fell
   * while the gateway was down if it is within the grace (else records it missed), schedules the
   * next ones, and fires the `started` triggers. A start on a store restored from a backup first
   * ends what was in flight when the backup was taken (restored()). What the engine keeps in
   * memory starts afresh: a start after a stop is the start of a new engine on the same store.
   */
  start(opts: StartOptions = {}): void {
    if (this.running) return;
    this.running = true;
    this.defs.clear();
    this.seen.clear();
    this.admission = new Admission((id) => this.defs.get(id)?.name ?? id);
    this.causality = new Causality(this.ports.clock);
    for (const d of this.store.definitions()) this.defs.set(d.id, d);
    if (opts.restoredFrom) this.restored(opts.restoredFrom.taken_at, opts.restoredFrom.done);
    for (const d of this.ports.devices.list()) this.seen.set(d.serial_number, { state: d.state, online: d.online });
    for (const d of this.defs.values()) this.recheck(d);
    this.reindex();
    this.unsubscribe = this.ports.bus.subscribe((e) => this.onEvent(e));
    this.runs.open();
    for (const row of this.store.runs()) this.runs.resume(row);
    this.runs.drainQueues();
    this.holds.resume();
    const now = this.ports.clock.now();
    for (const d of this.defs.values()) if (this.live(d)) this.scheduler.catchUp(d, now);
    for (const ref of this.byKind.get('started') ?? [])
      this.fire(ref, { description: 'the gateway started', cause: null });
  }

  /**
   * Stops listening and every timer; runs halt where they are, their journal kept for the next
   * start; the traces of triggers not run that wait are written.
   */
  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.unsubscribe?.();
    this.runs.halt();
    this.scheduler.stop();
    this.holds.stop();
    this.notRuns.flush();
  }

  /**
   * The store was restored from a backup: the runs, holds and cursors in it are those of the
   * moment the backup was taken. Resuming them would do now what was due then (a light turned
   * off, a mode disarmed, hours or weeks late), and a time trigger would catch up on occurrences
   * that the gateway before the restore may already have run. So each journalled run ends
   * `stopped` with a trace saying why, the holds go, and every scheduled trigger counts from now.
   * The definitions, their switches and their traces stay as the backup has them.
   */
  private restored(takenAt: string | null, done?: () => void): void {
    const now = this.ports.clock.now();
    const when = takenAt === null ? '' : ` taken at ${takenAt}`;
    const why = `stopped: the store was restored from a backup${when}; this run was under way when it was taken`;
    this.store.transaction(() => {
      done?.();
      for (const row of this.store.runs()) {
        row.trace.result = 'stopped';
        row.trace.ended_at = iso(now);
        row.trace.reason = why;
        this.store.deleteRun(row.id);
        this.store.addTrace(row.trace, row.queued_at);
      }
      this.store.deleteAllHolds();
      for (const d of this.defs.values())
        for (const [i, t] of d.triggers.entries()) if (isScheduled(t)) this.store.setCursor(d.id, i, now);
    });
    this.ports.log.warn(
      { taken_at: takenAt },
      'automations: the store was restored from a backup; the runs under way when it was taken were stopped',
    );
  }

  /** Whether it runs (between start and stop). */
  get started(): boolean {
    return this.running;
  }

  // ---- definitions ----

  list(): Definition[] {
    return [...this.defs.values()];
  }

  get(id: string): Definition | undefined {
    return this.defs.get(id);
  }

  /**
   * Checks a whole definition and saves it (a new one without `id`, else the next version of that
   * one). Runs of the version before are stopped, with a trace entry; nothing is saved on errors.
   */
  save(input: unknown): Saved {
    const checked = validateDefinition(input, this.validation());
    if (!checked.ok) return checked;
    const def = checked.value;
    const old = def.id === undefined ? undefined : this.defs.get(def.id);
    if (def.id !== undefined && !old)
      return { ok: false, errors: [`id: no scene or automation has id ${JSON.stringify(def.id)}`] };
    if (old && old.kind !== def.kind)
      return { ok: false, errors: [`kind: ${old.id} is a ${old.kind}; it cannot become a ${def.kind}`] };
    if (!old && this.defs.size >= L.definitions)
      return {
        ok: false,
        errors: [`definition: ${L.definitions} scenes and automations is the most the gateway keeps`],
      };
    const id = def.id ?? randomBytes(6).toString('hex');
    const now = this.ports.clock.now();
    if (old) this.runs.cancelAll(id, 'stopped: the automation was changed');
    const saved = this.store.transaction(() => {
      const d = this.store.save(id, def, def.enabled ?? old?.enabled ?? true, (old?.version ?? 0) + 1, iso(now));
      this.store.deleteHolds(id);
      this.store.deleteCursors(id);
      // Scheduled triggers count from now: a new or changed automation does not catch up on the past.
      for (const [i, t] of d.triggers.entries()) if (isScheduled(t)) this.store.setCursor(id, i, now);
      return d;
    });
    this.scheduler.unschedule(id);
    this.defs.set(id, saved);
    this.reindex();
    if (this.running && this.live(saved)) this.scheduler.scheduleAll(saved, now);
    this.changed(id, 'saved', null);
    // Others may have named this id before it existed (or as a scene it no longer is).
    for (const d of this.defs.values()) if (d.id !== id) this.recheck(d);
    return { ok: true, definition: saved };
  }

  /** Removes a definition, stopping its runs; those that name it become broken. */
  remove(id: string): boolean {
    if (!this.defs.has(id)) return false;
    this.runs.cancelAll(id, 'stopped: the automation was removed');
    this.scheduler.unschedule(id);
    this.holds.cancel(id);
    this.store.remove(id);
    this.defs.delete(id);
    this.admission.forget(id);
    this.notRuns.forget(id);
    this.reindex();
    this.changed(id, 'removed', null);
    for (const d of this.defs.values()) this.recheck(d);
    return true;
  }

  /** Enables or disables; disabling stops its runs and holds, enabling schedules from now. */
  setEnabled(id: string, enabled: boolean): { ok: boolean } {
    const d = this.defs.get(id);
    if (!d) return { ok: false };
    if (d.enabled === enabled) return { ok: true };
    const now = this.ports.clock.now();
    if (!enabled) this.runs.cancelAll(id, 'stopped: the automation was disabled');
    this.store.transaction(() => {
      this.store.setEnabled(id, enabled, iso(now));
      this.store.deleteHolds(id);
      for (const [i, t] of d.triggers.entries()) if (isScheduled(t)) this.store.setCursor(id, i, now);
    });
    this.holds.cancel(id);
    this.scheduler.unschedule(id);
    d.enabled = enabled;
    this.reindex();
    if (this.running && this.live(d)) this.scheduler.scheduleAll(d, now);
    this.changed(id, enabled ? 'enabled' : 'disabled', d.broken);
    return { ok: true };
  }

  /**
   * Runs a scene or an automation by hand: its actions, its conditions skipped unless asked.
   * `by`: who asked (the trace says "run by Home Assistant"); a disabled one runs too (a person
   * asked for it), a broken one does not.
   */
  run(id: string, opts: { conditions?: boolean; by?: Actor } = {}): Started {
    const d = this.defs.get(id);
    if (!d) return { ok: false, message: `no scene or automation has id ${JSON.stringify(id)}` };
    if (d.broken) return { ok: false, message: `it is broken: ${d.broken.join('; ')}` };
    const at = iso(this.ports.clock.now());
    const description = opts.by ? `run by ${actorWords(opts.by)}` : 'run by hand';
    return this.startRun(d, { kind: 'manual', description, at, caused_by: null }, null, opts.conditions ?? false);
  }

  /** Stops every run of a definition (running, waiting or queued); how many there were. */
  stopRuns(id: string, by?: Actor): number {
    const n = this.runs.activeOf(id) + this.runs.queuedOf(id);
    this.runs.cancelAll(id, `stopped by ${by ? actorWords(by) : 'hand'}`);
    return n;
  }

  /** The kept traces of a definition, newest first (the triggers not run that wait to be written too). */
  traces(id: string, bucket?: Bucket): Trace[] {
    const stored = this.store.traces(id, bucket);
    if (bucket !== undefined && bucket !== 'not_run') return stored;
    const waiting = this.notRuns.of(id);
    if (waiting.length === 0) return stored;
    // Newer than anything stored of their bucket; the ring's bound as the store keeps it.
    const notRun = [...waiting, ...stored.filter((t) => t.result === 'not_run')].slice(0, L.traces);
    const all = bucket === 'not_run' ? notRun : [...notRun, ...stored.filter((t) => t.result !== 'not_run')];
    return all.sort((a, b) => traceTime(b) - traceTime(a));
  }

  /** The runs running, waiting or queued now. */
  active(): ReturnType<Runs['list']> {
    return this.runs.list();
  }

  /** How each definition is doing, by id. */
  statuses(): Map<string, DefinitionStatus> {
    const last = this.store.lastRuns();
    const running = new Map<string, number>();
    for (const r of this.runs.list()) running.set(r.automation_id, (running.get(r.automation_id) ?? 0) + 1);
    const now = this.ports.clock.now();
    const out = new Map<string, DefinitionStatus>();
    for (const d of this.defs.values()) {
      const next = this.live(d)
        ? this.scheduler
            .next(d, now, 1)
            .map((f) => f.at)
            .sort()[0]
        : undefined;
      out.set(d.id, { running: running.get(d.id) ?? 0, last_run: last.get(d.id) ?? null, next_firing: next ?? null });
    }
    return out;
  }

  /**
   * The next `count` firings of each scheduled trigger of a definition, soonest first, with the
   * wall time in the gateway's zone and what a DST change did to it (whether it is live or not:
   * an editor shows when a disabled one would fire).
   */
  nextFirings(id: string, count = 1): NextFiring[] {
    const d = this.defs.get(id);
    if (!d) return [];
    return this.scheduler.next(d, this.ports.clock.now(), count);
  }

  // ---- checks ----

  private validation() {
    return {
      device: (serial: string) => this.ports.devices.get(serial),
      definition: (id: string) => this.defs.get(id)?.kind,
      sids: () => this.ports.security.modes().map((m) => m.sid),
      hasLocation: this.location !== null,
    };
  }

  /** Checks a saved definition again (a device, scene or mode it names may be gone): broken or whole. */
  private recheck(d: Definition): void {
    // Nothing to check again in what could not be read: it stays broken until saved anew.
    if (d.broken?.[0] === UNREADABLE) return;
    const { version: _v, broken: _b, created_at: _c, updated_at: _u, max, ...input } = d;
    const counted = d.mode === 'queued' || d.mode === 'parallel';
    const r = validateDefinition({ ...input, ...(counted ? { max } : {}) }, this.validation());
    const broken = r.ok ? null : r.errors;
    if (JSON.stringify(broken) === JSON.stringify(d.broken)) return;
    d.broken = broken;
    this.store.setBroken(d.id, broken);
    if (broken) {
      this.runs.cancelAll(d.id, `stopped: the automation is broken: ${broken.join('; ')}`);
      this.holds.cancel(d.id);
      this.scheduler.unschedule(d.id);
      this.ports.log.warn({ automation_id: d.id, broken }, `automation ${d.name} is broken: ${broken.join('; ')}`);
    } else if (this.running && this.live(d)) this.scheduler.scheduleAll(d, this.ports.clock.now());
    this.reindex();
    this.changed(d.id, broken ? 'broken' : 'repaired', broken);
  }

  /** Tells of a definition removed without remove() (a factory reset cleared the store under a stopped engine). */
  tellRemoved(id: string): void {
    this.changed(id, 'removed', null);
  }

  private changed(
    id: string,
    change: 'saved' | 'removed' | 'enabled' | 'disabled' | 'broken' | 'repaired',
    broken: string[] | null,
  ): void {
    this.ports.bus.publish('automation#changed', { payload: { automation_id: id, change, broken } });
  }

  /** Enabled, whole automations are the ones whose triggers listen. */
  private live(d: Definition): boolean {
    return d.enabled && d.broken === null;
  }

  private reindex(): void {
    this.byDevice.clear();
    this.byKind.clear();
    this.naming.clear();
    for (const def of this.defs.values()) {
      for (const serial of devicesOf(def)) {
        const ids = this.naming.get(serial) ?? new Set<string>();
        ids.add(def.id);
        this.naming.set(serial, ids);
      }
      if (!this.live(def)) continue;
      def.triggers.forEach((t, index) => {
        const ref = { def, index };
        if ('device' in t) {
          const list = this.byDevice.get(t.device) ?? [];
          list.push(ref);
          this.byDevice.set(t.device, list);
        } else if (!isScheduled(t)) {
          const list = this.byKind.get(t.type) ?? [];
          list.push(ref);
          this.byKind.set(t.type, list);
        }
      });
    }
  }

  // ---- events ----

  private onEvent(e: BusEvent): void {
    switch (e.name) {
      case 'device#updateDeviceState':
        this.onState(e as BusEvent<'device#updateDeviceState'>);
        return;
      case 'device#updateDeviceOnline':
        this.onOnline(e as BusEvent<'device#updateDeviceOnline'>);
        return;
      case 'device#addDevice':
      case 'device#updateDeviceInfo':
      case 'device#deleteDevice': {
        const serial =
          e.name === 'device#addDevice'
            ? String((e.data as { payload: { serial_number?: unknown } }).payload.serial_number)
            : (e.data as { endpoint: { serial_number: string } }).endpoint.serial_number;
        const d = this.ports.devices.get(serial);
        if (d) this.seen.set(serial, { state: d.state, online: d.online });
        else this.seen.delete(serial);
        for (const def of [...this.defs.values()])
          if (def.broken || this.naming.get(serial)?.has(def.id)) this.recheck(def);
        return;
      }
      case 'security#updateArmState': {
        const { arm_state, detail } = (e as BusEvent<'security#updateArmState'>).data.payload;
        const state = arm_state === 'arming' ? 'armed' : 'disarmed';
        for (const ref of this.byKind.get('security') ?? []) {
          const t = ref.def.triggers[ref.index] as Extract<Trigger, { type: 'security' }>;
          if (t.state === state && (t.sid === undefined || t.sid === detail.sid))
            this.fire(ref, { description: `${detail.name} ${state}`, cause: this.causality.now() });
        }
        return;
      }
      case 'bridge#updateAlarmState': {
        const raised = (e as BusEvent<'bridge#updateAlarmState'>).data.payload.alarm_state === 'alarming';
        for (const ref of this.byKind.get('alarm') ?? []) {
          const t = ref.def.triggers[ref.index] as Extract<Trigger, { type: 'alarm' }>;
          if ((t.state === 'raised') === raised)
            this.fire(ref, {
              description: raised ? 'the alarm was raised' : 'the alarm ended',
              cause: this.causality.now(),
            });
        }
        return;
      }
      default:
        return;
    }
  }

  private onState(e: BusEvent<'device#updateDeviceState'>): void {
    const serial = e.data.endpoint.serial_number;
    const device = this.ports.devices.get(serial);
    const before = this.seen.get(serial);
    // The state this event leaves, from the state seen before it and its payload (the whole new
    // value of each capability that changed): the registry may already hold later events' changes.
    const state =
      device && mergeState(before?.state ?? {}, e.data.payload, device.capabilities, { repeatPresses: false }).state;
    if (device && state) this.seen.set(serial, { state, online: before?.online ?? device.online });
    const refs = this.byDevice.get(serial);
    if (device && refs) {
      const cause = this.causality.of(serial);
      for (const ref of refs) {
        const t = ref.def.triggers[ref.index] as Trigger;
        if (t.type === 'press') {
          const press = pressOf(e.data.payload, t.name);
          if (press === t.press) this.fire(ref, { description: `${device.name}: ${t.press}`, cause });
        } else if (t.type === 'state') {
          if (!(t.capability in e.data.payload)) continue;
          const r = resolveRef(device.capabilities, t, '', []);
          if (!r) continue;
          const [was, now] = change(before?.state, state as Record<string, unknown>, r);
          const description = `${device.name} ${r.field} changed from ${JSON.stringify(was) ?? 'unknown'} to ${JSON.stringify(now)}`;
          this.holds.edge(ref, t, stateEdge(t, was, now), wanted(t, now), { description, cause });
        }
      }
    }
    this.runs.deviceChanged(serial);
  }

  private onOnline(e: BusEvent<'device#updateDeviceOnline'>): void {
    const serial = e.data.endpoint.serial_number;
    const online = e.data.payload.online;
    const device = this.ports.devices.get(serial);
    const before = this.seen.get(serial);
    if (device) this.seen.set(serial, { state: before?.state ?? device.state, online });
    for (const ref of this.byDevice.get(serial) ?? []) {
      const t = ref.def.triggers[ref.index] as Trigger;
      if (t.type !== 'online') continue;
      const edge = online === t.online && before?.online !== online;
      const description = `${device?.name ?? serial} went ${online ? 'online' : 'offline'}`;
      this.holds.edge(ref, t, edge, online === t.online, { description, cause: this.causality.of(serial) });
    }
    this.runs.deviceChanged(serial);
  }

  // ---- starting runs ----

  private runScene(id: string, cause: Cause): Started {
    const d = this.defs.get(id);
    if (!d) return { ok: false, message: `no scene has id ${id}` };
    if (d.broken) return { ok: false, message: `scene ${d.name} is broken: ${d.broken.join('; ')}` };
    if (!d.enabled) return { ok: false, message: `scene ${d.name} is disabled` };
    const by = this.defs.get(cause.automation_id)?.name ?? 'a scene action';
    const at = iso(this.ports.clock.now());
    return this.startRun(d, { kind: 'scene', description: `run by ${by}`, at, caused_by: cause }, cause, false);
  }

  private traceTrigger(ref: TriggerRef, f: Firing): TraceTrigger {
    return triggerOf(ref.index, f, this.ports.clock.now());
  }

  /** A trigger fired: guards, conditions and the run mode decide whether (and how) it runs. */
  private fire(ref: TriggerRef, f: Firing): void {
    const d = this.defs.get(ref.def.id);
    if (!d || d.version !== ref.def.version || !this.live(d)) return;
    this.store.transaction(() => {
      if (f.claim && !f.claim()) return;
      this.startRun(d, this.traceTrigger(ref, f), f.cause, true);
    });
  }

  /**
   * Records a trigger that did not start a run, with why, in the store at once: the rare kinds the
   * scheduler and the holds tell of (occurrences missed while the gateway was down, a hold dropped
   * at a start), written with the cursor or hold they go with.
   */
  private notRun(d: Definition, trigger: TraceTrigger, conditions: ConditionResult[], reason: string): void {
    const now = this.ports.clock.now();
    this.store.addTrace(notRunTrace(d, trigger, conditions, reason, now), now);
  }

  private startRun(d: Definition, trigger: TraceTrigger, cause: Cause | null, checkConditions: boolean): Started {
    const now = this.ports.clock.now();
    const guard = this.admission.guard(d, cause, now);
    if (guard) return this.refuse(d, trigger, [], guard.reason, guard.tell);
    const conditions: ConditionResult[] = [];
    if (checkConditions) {
      const ctx = {
        now,
        zone: this.zone,
        location: this.location,
        devices: this.ports.devices,
        security: this.ports.security,
      };
      if (!evaluateAll(d.conditions, ctx, conditions)) {
        const failed = conditions.find((c) => !c.result && !c.path.includes('.conditions.'));
        const reason = `condition ${failed?.path ?? ''} (${failed?.type ?? ''}) did not hold`;
        return this.refuse(d, trigger, conditions, reason, false);
      }
    }
    const active = this.runs.activeOf(d.id);
    const full = this.admission.full(d, active, this.runs.queuedOf(d.id), this.runs.total);
    if (full) return this.refuse(d, trigger, conditions, full, false);
    if (d.mode === 'restart' && active > 0)
      this.runs.cancelActive(d.id, 'stopped: restarted by a new trigger (mode restart)');
    this.admission.started(d.id, now);
    const row = this.runs.newRun(d, trigger, cause, conditions);
    this.store.transaction(() => this.runs.begin(d, row, d.mode === 'queued' && active > 0));
    return { ok: true, run_id: row.id };
  }

  /** A trigger refused by a condition, the run mode or a loop guard: its trace waits for the next batch (not-run.ts). */
  private refuse(
    d: Definition,
    trigger: TraceTrigger,
    conditions: ConditionResult[],
    reason: string,
    tell: boolean,
  ): Started {
    const now = this.ports.clock.now();
    this.notRuns.add(notRunTrace(d, trigger, conditions, reason, now), now);
    if (tell) {
      this.ports.log.warn({ automation_id: d.id }, `${d.name}: ${reason}`);
      this.ports.bus.publish('automation#notify', {
        payload: { automation_id: d.id, run_id: null, name: d.name, message: reason },
      });
    }
    return { ok: false, message: reason };
  }
}

/** When a trace was recorded (it ended), the order the store keeps them in. */
function traceTime(t: Trace): number {
  return Date.parse(t.ended_at ?? t.started_at);
}

export type { DefinitionInput };
