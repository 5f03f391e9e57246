import type { Db } from '../store/db.ts';
import type { Actor } from './actor.ts';
import type { EventBus } from './event-bus.ts';

/** One security mode as the API shows it (spec 2.8). */
export interface SecurityMode {
  sid: number;
  name: string;
  enable: boolean;
}

/** Outcome of an arm or disarm request. */
export type SecurityOutcome = { ok: true } | { ok: false; reason: 'unknown_sid' };

interface Row {
  sid: number;
  name: string;
  enable: number;
  is_default: number;
}

/**
 * Security modes (S1-S5). At most one mode is armed at a time: arming one disarms the one that
 * was armed (each change is its own updateArmState event). Every change is committed before the
 * caller answers. `by`, where given, is who asked: the activity log names them (not on the wire).
 */
export class SecurityService {
  constructor(
    private readonly db: Db,
    private readonly bus: EventBus,
  ) {}

  /** Every mode, by sid. */
  list(): SecurityMode[] {
    return this.rows().map((r) => ({ sid: r.sid, name: r.name, enable: r.enable === 1 }));
  }

  /** The mode armed now, if any. */
  armed(): SecurityMode | undefined {
    return this.list().find((m) => m.enable);
  }

  /** The mode one-click arming (S4) arms. */
  defaultMode(): SecurityMode | undefined {
    const rows = this.rows();
    const r = rows.find((x) => x.is_default === 1) ?? rows[0];
    return r && { sid: r.sid, name: r.name, enable: r.enable === 1 };
  }

  /** Arms one mode (S2); the mode armed before is disarmed. */
  enable(sid: number, by?: Actor): SecurityOutcome {
    const target = this.rows().find((r) => r.sid === sid);
    if (!target) return { ok: false, reason: 'unknown_sid' };
    this.armOnly(target, by);
    return { ok: true };
  }

  /** Disarms one mode (S3). */
  disable(sid: number, by?: Actor): SecurityOutcome {
    const target = this.rows().find((r) => r.sid === sid);
    if (!target) return { ok: false, reason: 'unknown_sid' };
    if (target.enable === 1) {
      this.db.prepare('UPDATE security_modes SET enable = 0 WHERE sid = ?').run(sid);
      this.emit('disarming', target, by);
    }
    return { ok: true };
  }

  /** One-click arm (S4): arms the default mode. */
  enableDefault(by?: Actor): SecurityOutcome {
    const mode = this.defaultMode();
    const target = mode && this.rows().find((r) => r.sid === mode.sid);
    if (!target) return { ok: false, reason: 'unknown_sid' };
    this.armOnly(target, by);
    return { ok: true };
  }

  /** Disarms every mode (S5). */
  disableAll(by?: Actor): void {
    const armed = this.rows().filter((r) => r.enable === 1);
    this.db.prepare('UPDATE security_modes SET enable = 0').run();
    for (const r of armed) this.emit('disarming', r, by);
  }

  private armOnly(target: Row, by: Actor | undefined): void {
    const before = this.rows().filter((r) => r.enable === 1 && r.sid !== target.sid);
    if (before.length === 0 && target.enable === 1) return;
    this.db.transaction(() => {
      this.db.prepare('UPDATE security_modes SET enable = CASE WHEN sid = ? THEN 1 ELSE 0 END').run(target.sid);
    })();
    for (const r of before) this.emit('disarming', r, by);
    if (target.enable !== 1) this.emit('arming', target, by);
  }

  private emit(arm_state: 'arming' | 'disarming', row: Row, by: Actor | undefined): void {
    this.bus.publish(
      'security#updateArmState',
      { payload: { arm_state, detail: { sid: row.sid, name: row.name } } },
      by,
    );
  }

  private rows(): Row[] {
    return this.db.prepare<[], Row>('SELECT sid, name, enable, is_default FROM security_modes ORDER BY sid').all();
  }
}
