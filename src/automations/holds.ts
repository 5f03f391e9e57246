/**
 * The `for` of a trigger: a value held for a while before the trigger fires. A hold is in the
 * store with its absolute deadline before it starts; a value that stops holding ends it; after a
 * restart a hold resumes with the time that remains if the device still holds the value (a hold
 * that ran out while the gateway was down fires at the start), else it is dropped with a trace.
 */
import type { Clock } from '../lib/clock.ts';
import { type Firing, ofDefinition, type TriggerHost, type TriggerRef, triggerKey } from './firing.ts';
import { change, type StateTrigger, wanted } from './matching.ts';
import type { Trigger } from './model.ts';
import type { DevicesPort } from './ports.ts';
import type { AutomationStore } from './store.ts';
import { resolveRef } from './values.ts';

export class Holds {
  private readonly timers = new Map<string, () => void>();

  constructor(
    private readonly deps: { store: AutomationStore; clock: Clock; devices: Pick<DevicesPort, 'get'> },
    private readonly host: TriggerHost,
  ) {}

  /** A trigger's edge: fires now, or starts its `for` hold; a value that no longer holds ends the hold. */
  edge(
    ref: TriggerRef,
    t: StateTrigger | Extract<Trigger, { type: 'online' }>,
    edge: boolean,
    holds: boolean,
    f: Firing,
  ): void {
    const k = triggerKey(ref.def.id, ref.index);
    if (!holds && this.timers.has(k)) {
      this.timers.get(k)?.();
      this.timers.delete(k);
      this.deps.store.deleteHold(ref.def.id, ref.index);
      return;
    }
    if (!edge) return;
    if (t.for_seconds === undefined || t.for_seconds === 0) {
      this.host.fire(ref, f);
      return;
    }
    if (this.timers.has(k)) return;
    const deadline = this.deps.clock.now() + t.for_seconds * 1000;
    // In the store before the hold starts: a restart resumes it with the time that remains.
    this.deps.store.putHold({
      automation_id: ref.def.id,
      trigger_index: ref.index,
      version: ref.def.version,
      deadline,
      cause: f.cause,
    });
    this.arm(ref, deadline, { ...f, description: `${f.description}, held for ${t.for_seconds} s` });
  }

  private arm(ref: TriggerRef, deadline: number, f: Firing): void {
    const k = triggerKey(ref.def.id, ref.index);
    const done = () => {
      this.timers.delete(k);
      this.host.fire(ref, { ...f, claim: () => this.deps.store.deleteHold(ref.def.id, ref.index) });
    };
    const left = deadline - this.deps.clock.now();
    // Ran out while the gateway was down: it fires at the start.
    if (left <= 0) {
      done();
      return;
    }
    this.timers.set(k, this.deps.clock.setTimer(left, done));
  }

  cancel(id: string): void {
    for (const [k, cancel] of [...this.timers]) {
      if (!ofDefinition(k, id)) continue;
      cancel();
      this.timers.delete(k);
    }
  }

  /** At start: each stored hold resumes with the time left if its value still holds, else it is dropped (traced). */
  resume(): void {
    for (const h of this.deps.store.holds()) {
      const def = this.host.definition(h.automation_id);
      const t = def?.triggers[h.trigger_index];
      if (
        !def ||
        !this.host.live(def) ||
        def.version !== h.version ||
        !t ||
        (t.type !== 'state' && t.type !== 'online')
      ) {
        this.deps.store.deleteHold(h.automation_id, h.trigger_index);
        continue;
      }
      const device = this.deps.devices.get(t.device);
      let holds = false;
      if (device && t.type === 'online') holds = device.online === t.online;
      else if (device && t.type === 'state') {
        const r = resolveRef(device.capabilities, t, '', []);
        holds = r !== undefined && wanted(t, change(undefined, device.state, r)[1]);
      }
      const ref = { def, index: h.trigger_index };
      const description = `${device?.name ?? t.device}: held for ${t.for_seconds} s (resumed after a restart)`;
      if (holds) this.arm(ref, h.deadline, { description, cause: h.cause });
      else {
        this.deps.store.transaction(() => {
          this.deps.store.deleteHold(h.automation_id, h.trigger_index);
          this.host.notRun(
            def,
            this.host.traceTrigger(ref, { description, cause: h.cause }),
            [],
            'the held value changed while the gateway was down',
          );
        });
      }
    }
  }

  /** Every hold's timer stops (the holds stay in the store for the next start). */
  stop(): void {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }
}
