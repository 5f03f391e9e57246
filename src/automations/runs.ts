/**
 * Runs: the actions of a scene or automation, one after the other, journalled so that nothing
 * of a run is lost to a restart or a kill. The step a run is at is in the store before the step
 * runs; a delay or a wait is in the store with its absolute deadline before it starts. On start
 * the engine hands every journalled run back here: a delay resumes with the time that remains
 * (or ends at once if it ran out while the gateway was down), a wait looks at the device again,
 * and a step that was cut off midway runs again (a device command is a state to reach, so doing
 * it twice is harmless). A failed action is recorded and the run goes on with the next one; the
 * run then ends `failed`.
 */
import { randomBytes } from 'node:crypto';
import type { Actor } from '../core/actor.ts';
import type { Action, Definition } from './model.ts';
import type { Done, EnginePorts } from './ports.ts';
import type { AutomationStore, RunRow } from './store.ts';
import { type Cause, iso, type StepResult, type Trace, type TraceResult, type TraceTrigger } from './trace.ts';
import { compare, readValue, resolveRef } from './values.ts';

/** What a run asks of the engine around it. */
export interface RunHost {
  definition(id: string): Definition | undefined;
  /** Starts a scene from a `scene` action; the words of why not when it cannot. */
  runScene(id: string, cause: Cause): { ok: true; run_id: string } | { ok: false; message: string };
  setEnabled(id: string, enabled: boolean): boolean;
  /** Attributes what happens while `fn` runs (and a device's next reports) to the run. */
  within<T>(cause: Cause, serial: string | null, fn: () => T): T;
}

/** The ports a run uses, and the automations' store. */
export type RunDeps = Omit<EnginePorts, 'db' | 'settings'> & { store: AutomationStore };

interface Active {
  row: RunRow;
  def: Definition;
  /** Ends the delay or wait the run is in (with why). */
  interrupt?: (why: 'halted' | 'cancelled') => void;
  /** The run goes no further here: it was stopped (its trace kept), or the engine halted (its journal kept). */
  cancelled: boolean;
  /** The first step after a restart: its delay or wait keeps the deadline in the journal. */
  resuming: boolean;
}

type Wake = 'elapsed' | 'met' | 'halted' | 'cancelled';

/** Attempts of a device command, and the time between them. */
const DEVICE_ATTEMPTS = 3;
const DEVICE_RETRY_MS = 2000;

/** A device value a `wait` watches for. */
interface Waiter {
  serial: string;
  check(): void;
}

export class Runs {
  private readonly active = new Map<string, Active>();
  private readonly queues = new Map<string, RunRow[]>();
  private readonly waiters = new Set<Waiter>();
  private halted = false;

  constructor(
    private readonly deps: RunDeps,
    private readonly host: RunHost,
  ) {}

  /** Runs of an automation running or waiting now (queued ones not counted). */
  activeOf(id: string): number {
    let n = 0;
    for (const a of this.active.values()) if (a.row.automation_id === id) n++;
    return n;
  }

  queuedOf(id: string): number {
    return this.queues.get(id)?.length ?? 0;
  }

  /** Runs of every automation, queued ones included. */
  get total(): number {
    let n = this.active.size;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  /** What runs now (for the API): run id, automation, step, deadline. */
  list(): { run_id: string; automation_id: string; status: string; step: number; deadline: string | null }[] {
    const rows = [...this.active.values()].map((a) => a.row);
    for (const q of this.queues.values()) rows.push(...q);
    return rows.map((r) => ({
      run_id: r.id,
      automation_id: r.automation_id,
      status: r.status,
      step: r.step,
      deadline: r.deadline === null ? null : iso(r.deadline),
    }));
  }

  /** A new run's journal row and trace (not stored yet). */
  newRun(def: Definition, trigger: TraceTrigger, cause: Cause | null, conditions: Trace['conditions']): RunRow {
    const now = this.deps.clock.now();
    const id = randomBytes(8).toString('hex');
    return {
      id,
      automation_id: def.id,
      version: def.version,
      status: 'running',
      step: 0,
      deadline: null,
      cause,
      queued_at: now,
      trace: {
        run_id: id,
        automation_id: def.id,
        version: def.version,
        trigger,
        conditions,
        steps: [],
        started_at: iso(now),
        result: 'running',
      },
    };
  }

  /** Journals and starts a run (`queue`: it waits for the runs before it). Call inside the trigger's transaction. */
  begin(def: Definition, row: RunRow, queue: boolean): void {
    row.status = queue ? 'queued' : 'running';
    this.deps.store.putRun(row);
    if (queue) {
      const q = this.queues.get(def.id) ?? [];
      q.push(row);
      this.queues.set(def.id, q);
      return;
    }
    this.launch(def, row, false);
  }

  /** Takes back a journalled run at start. */
  resume(row: RunRow): void {
    const def = this.host.definition(row.automation_id);
    if (!def || def.version !== row.version || def.broken) {
      const why = def?.broken
        ? `the automation is broken: ${def.broken.join('; ')}`
        : 'the automation was changed or removed while the gateway was down';
      this.end({ row, def: def as Definition, cancelled: true, resuming: false }, 'stopped', why);
      return;
    }
    if (row.status === 'queued') {
      const q = this.queues.get(def.id) ?? [];
      q.push(row);
      this.queues.set(def.id, q);
      return;
    }
    this.launch(def, row, true);
  }

  /** Starts the queued runs whose automations have none running (after resuming at start). */
  drainQueues(): void {
    for (const id of [...this.queues.keys()]) if (this.activeOf(id) === 0) this.next(id);
  }

  /** Stops every run of an automation, queued ones too, each trace saying why. */
  cancelAll(id: string, reason: string): void {
    for (const a of [...this.active.values()]) if (a.row.automation_id === id) this.cancel(a, reason);
    const q = this.queues.get(id) ?? [];
    this.queues.delete(id);
    for (const row of q) {
      const def = this.host.definition(id);
      this.end({ row, def: def as Definition, cancelled: true, resuming: false }, 'stopped', reason);
    }
  }

  /** Stops the runs running now of an automation (restart mode), leaving its queue. */
  cancelActive(id: string, reason: string): void {
    for (const a of [...this.active.values()]) if (a.row.automation_id === id) this.cancel(a, reason);
  }

  /** The engine starts (again): what ran before a stop is in the store, to be resumed from there. */
  open(): void {
    this.halted = false;
    this.active.clear();
    this.queues.clear();
    this.waiters.clear();
  }

  /** The engine stops: every run halts where it is; the journal keeps it for the next start. */
  halt(): void {
    this.halted = true;
    for (const a of this.active.values()) {
      // The run goes no further in this engine, even if it starts again before the run's next turn.
      a.cancelled = true;
      a.interrupt?.('halted');
    }
    this.waiters.clear();
  }

  /** A device changed: the waits on it look again. */
  deviceChanged(serial: string): void {
    for (const w of [...this.waiters]) if (w.serial === serial) w.check();
  }

  private cancel(a: Active, reason: string): void {
    if (a.cancelled) return;
    a.cancelled = true;
    a.interrupt?.('cancelled');
    this.end(a, 'stopped', reason);
  }

  private launch(def: Definition, row: RunRow, resuming: boolean): void {
    // A resumed run keeps `waiting` until its delay or wait takes the deadline from the journal.
    if (!resuming) row.status = 'running';
    const a: Active = { row, def, cancelled: false, resuming };
    this.active.set(row.id, a);
    if (!resuming)
      this.deps.bus.publish('automation#runStarted', {
        payload: { automation_id: def.id, run_id: row.id, name: def.name, trigger: row.trace.trigger.description },
      });
    this.execute(a).catch((err) => {
      this.deps.log.error({ err, automation_id: def.id, run_id: row.id }, 'automation run failed');
      if (!a.cancelled && !this.halted) this.end(a, 'failed', `fault: ${(err as Error).message}`);
    });
  }

  private async execute(a: Active): Promise<void> {
    const { row, def } = a;
    while (row.step < def.actions.length) {
      const action = def.actions[row.step] as Action;
      const outcome = await this.perform(a, action, row.step);
      if (a.cancelled || this.halted) return;
      a.resuming = false;
      if (outcome === 'stop') return this.end(a, 'stopped', `the wait of action ${row.step} timed out`);
      row.step++;
      row.status = 'running';
      row.deadline = null;
      // The next step is in the store before it runs.
      if (row.step < def.actions.length) this.deps.store.putRun(row);
    }
    // From the trace, which a restart keeps: a step that failed before the restart counts too.
    const failed = row.trace.steps.some((x) => x.outcome === 'failed');
    this.end(a, failed ? 'failed' : 'finished');
  }

  private step(a: Active, index: number, type: string, outcome: StepResult['outcome'], detail?: string): void {
    a.row.trace.steps.push({ index, type, at: iso(this.deps.clock.now()), outcome, ...(detail ? { detail } : {}) });
  }

  private cause(a: Active): Cause {
    const parent = a.row.cause;
    return {
      automation_id: a.def.id,
      run_id: a.row.id,
      depth: (parent?.depth ?? 0) + 1,
      chain: [...(parent?.chain ?? []), a.def.id].slice(-10),
    };
  }

  /** One action: 'next' (done, or failed and recorded: the run goes on), 'stop' (a wait timed out with on_timeout stop). */
  private async perform(a: Active, action: Action, index: number): Promise<'next' | 'stop'> {
    const { deps } = this;
    const by: Actor = { kind: 'automation', id: a.def.id, name: a.def.name };
    const result = (r: { ok: true } | { ok: false; message: string }, done: string) => {
      this.step(a, index, action.type, r.ok ? 'done' : 'failed', r.ok ? done : r.message);
      return 'next' as const;
    };
    if (a.resuming && a.row.status !== 'waiting' && action.type !== 'delay' && action.type !== 'wait')
      this.step(a, index, action.type, 'resumed', 'the gateway restarted during this step: it runs again');
    switch (action.type) {
      case 'device': {
        const device = deps.devices.get(action.device);
        if (!device) return result({ ok: false, message: `device ${action.device} is gone` }, '');
        const r = await this.control(a, index, action.device, action.state, by);
        return result(r, `${device.name}: ${JSON.stringify(action.state)}`);
      }
      case 'scene': {
        const r = this.host.runScene(action.scene, this.cause(a));
        return result(r, r.ok ? `scene run ${r.run_id} started` : '');
      }
      case 'security': {
        const r = this.host.within(this.cause(a), null, () =>
          action.action === 'arm' ? deps.security.arm(action.sid, by) : deps.security.disarm(action.sid, by),
        );
        return result(r, `${action.action}${action.sid === undefined ? '' : ` mode ${action.sid}`}`);
      }
      case 'sound':
        return result(
          deps.speaker.play(action.sound, action.volume ?? 100, action.countdown ?? 0),
          `played ${action.sound}`,
        );
      case 'speak': {
        if (!deps.speech) return result({ ok: false, message: 'no TTS engine is available' }, '');
        const r = await deps.speech.speak({ text: action.text, engine: action.engine, volume: action.volume });
        return result(r, `spoke ${JSON.stringify(action.text.slice(0, 60))}`);
      }
      case 'automation': {
        const ok = this.host.setEnabled(action.automation, action.enabled);
        return result(
          ok ? { ok: true } : { ok: false, message: `no automation has id ${action.automation}` },
          `${action.enabled ? 'enabled' : 'disabled'} ${action.automation}`,
        );
      }
      case 'notify': {
        deps.bus.publish('automation#notify', {
          payload: { automation_id: a.def.id, run_id: a.row.id, name: a.def.name, message: action.message },
        });
        deps.log.info({ automation_id: a.def.id, run_id: a.row.id }, `${a.def.name}: ${action.message}`);
        return result({ ok: true }, action.message);
      }
      case 'delay': {
        const wake = await this.waitUntil(a, index, action.seconds * 1000, null);
        if (wake === 'halted' || wake === 'cancelled') return 'next';
        this.step(a, index, 'delay', 'done', this.lateness(a));
        return 'next';
      }
      case 'wait': {
        const errors: string[] = [];
        const device = deps.devices.get(action.device);
        const ref = device && resolveRef(device.capabilities, action, `actions.${index}`, errors);
        if (!device || !ref)
          return result({ ok: false, message: errors.join('; ') || `device ${action.device} is gone` }, '');
        const met = () => {
          const d = deps.devices.get(action.device);
          return d !== undefined && compare(readValue(d.state, ref), action);
        };
        const wake = await this.waitUntil(a, index, action.timeout_seconds * 1000, { serial: action.device, met });
        if (wake === 'halted' || wake === 'cancelled') return 'next';
        if (wake === 'met') {
          this.step(a, index, 'wait', 'done', `${device.name} ${ref.field} reached the value`);
          return 'next';
        }
        this.step(
          a,
          index,
          'wait',
          'timed_out',
          `${device.name} ${ref.field} did not reach the value in ${action.timeout_seconds} s`,
        );
        return action.on_timeout === 'stop' ? 'stop' : 'next';
      }
    }
  }

  /**
   * A device command, tried again (DEVICE_ATTEMPTS in all, DEVICE_RETRY_MS apart on the clock)
   * when it fails: a Zigbee command can be lost, and just after a start Zigbee2MQTT may not list
   * the devices yet. Each failed attempt is in the trace.
   */
  private async control(
    a: Active,
    index: number,
    serial: string,
    state: Record<string, unknown>,
    by: Actor,
  ): Promise<Done> {
    for (let attempt = 1; ; attempt++) {
      const r = await this.host.within(this.cause(a), serial, () => this.deps.devices.control(serial, state, by));
      if (r.ok || attempt === DEVICE_ATTEMPTS || a.cancelled || this.halted) return r;
      this.step(a, index, 'device', 'retry', `${r.message}; tried again in ${DEVICE_RETRY_MS / 1000} s`);
      const wake = await new Promise<Wake>((resolve) => {
        const cancel = this.deps.clock.setTimer(DEVICE_RETRY_MS, () => {
          a.interrupt = undefined;
          resolve('elapsed');
        });
        a.interrupt = (why) => {
          cancel();
          a.interrupt = undefined;
          resolve(why);
        };
      });
      if (wake !== 'elapsed') return r;
    }
  }

  /**
   * How late a wait ended compared with its deadline, when that deadline ran out while the gateway
   * was down: only a resumed run says so (a timer of a running gateway fires a few ms after its
   * deadline, which is no news).
   */
  private lateness(a: Active): string | undefined {
    const deadline = a.row.deadline;
    if (deadline === null || !a.resuming) return undefined;
    const late = this.deps.clock.now() - deadline;
    return late >= 1000 ? `ran out while the gateway was down; ended ${Math.round(late / 1000)} s late` : undefined;
  }

  /**
   * Waits (journalled) until `ms` from now, or until the deadline in the journal when the run is
   * resuming; with `watch`, also ends as soon as the device value is met.
   */
  private waitUntil(
    a: Active,
    index: number,
    ms: number,
    watch: { serial: string; met(): boolean } | null,
  ): Promise<Wake> {
    const { row } = a;
    const now = this.deps.clock.now();
    const resumed = a.resuming && row.status === 'waiting' && row.deadline !== null;
    if (resumed) {
      const left = (row.deadline as number) - now;
      this.step(
        a,
        index,
        a.def.actions[index]?.type ?? 'delay',
        'resumed',
        left > 0
          ? `resumed after a restart with ${Math.ceil(left / 1000)} s left`
          : 'resumed after a restart: its time ran out while the gateway was down',
      );
    } else {
      row.status = 'waiting';
      row.deadline = now + ms;
      this.step(a, index, a.def.actions[index]?.type ?? 'delay', 'waiting', `until ${iso(row.deadline)}`);
      // In the store before the wait starts: a restart finds it with its deadline.
      this.deps.store.putRun(row);
    }
    return new Promise<Wake>((resolve) => {
      let waiter: Waiter | undefined;
      let cancelTimer = () => {};
      const finish = (w: Wake) => {
        cancelTimer();
        if (waiter) this.waiters.delete(waiter);
        a.interrupt = undefined;
        resolve(w);
      };
      a.interrupt = finish;
      if (watch) {
        if (watch.met()) return finish('met');
        waiter = { serial: watch.serial, check: () => watch.met() && finish('met') };
        this.waiters.add(waiter);
      }
      const left = (row.deadline as number) - this.deps.clock.now();
      // Ran out already (while the gateway was down): at once, not at the clock's next tick.
      if (left <= 0) return finish('elapsed');
      cancelTimer = this.deps.clock.setTimer(left, () => finish('elapsed'));
    });
  }

  /** Ends a run: its journal row goes and its trace is kept, in one transaction; then the next queued run starts. */
  private end(a: Active, result: TraceResult, reason?: string): void {
    const { row } = a;
    this.active.delete(row.id);
    const now = this.deps.clock.now();
    row.trace.result = result;
    row.trace.ended_at = iso(now);
    if (reason) row.trace.reason = reason;
    this.deps.store.transaction(() => {
      this.deps.store.deleteRun(row.id);
      if (this.host.definition(row.automation_id)) this.deps.store.addTrace(row.trace, row.queued_at);
    });
    this.deps.bus.publish('automation#runFinished', {
      payload: {
        automation_id: row.automation_id,
        run_id: row.id,
        name: a.def?.name ?? '',
        result,
        reason: reason ?? null,
      },
    });
    if (!this.halted) this.next(row.automation_id);
  }

  /** Starts the next queued run of an automation when none of its runs is running. */
  private next(id: string): void {
    if (this.activeOf(id) > 0) return;
    const q = this.queues.get(id);
    const row = q?.shift();
    if (q && q.length === 0) this.queues.delete(id);
    if (!row) return;
    const def = this.host.definition(id);
    if (!def || def.version !== row.version) {
      this.end(
        { row, def: def as Definition, cancelled: true, resuming: false },
        'stopped',
        'the automation was changed',
      );
      return;
    }
    this.deps.store.putRun({ ...row, status: 'running' });
    this.launch(def, row, false);
  }
}
