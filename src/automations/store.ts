/**
 * The automations' part of the SQLite store (migration 7): definitions, the runs journal, the
 * `for` holds, the cursors of scheduled triggers and the traces. Every write is committed when
 * the call returns; `transaction` groups writes that must happen together (a cursor moved with
 * the run it starts, a run ended with its trace kept).
 */
import type { Db } from '../store/db.ts';
import { automationLimits } from './limits.ts';
import type { Definition, DefinitionInput } from './model.ts';
import { type Bucket, bucketOf, type Cause, type Trace } from './trace.ts';
import type { LastRun } from './views.ts';

/** A run as the journal keeps it. */
export interface RunRow {
  id: string;
  automation_id: string;
  version: number;
  /** queued: waiting for its turn; running: at `step`; waiting: in a delay or wait until `deadline`. */
  status: 'queued' | 'running' | 'waiting';
  step: number;
  deadline: number | null;
  cause: Cause | null;
  trace: Trace;
  queued_at: number;
}

export interface HoldRow {
  automation_id: string;
  trigger_index: number;
  version: number;
  deadline: number;
  cause: Cause | null;
}

interface DefinitionRow {
  id: string;
  enabled: number;
  version: number;
  definition: string;
  broken: string | null;
  created_at: string;
  updated_at: string;
}

interface StoredRun {
  id: string;
  automation_id: string;
  version: number;
  status: RunRow['status'];
  step: number;
  deadline: number | null;
  context: string;
  trace: string;
  queued_at: number;
}

/** Why a definition whose stored JSON cannot be read is broken. */
export const UNREADABLE = 'definition: the stored definition cannot be read';

/** JSON of a row, or undefined when it cannot be read (a store edited by hand, a damaged file). */
function parse<T>(text: string | null): T | undefined {
  try {
    return text === null ? undefined : (JSON.parse(text) as T);
  } catch {
    return undefined;
  }
}

/**
 * A stored definition. One whose JSON cannot be read comes back broken, with no triggers and no
 * actions to run: it is skipped and says why, and the engine starts (the engine checks every
 * definition again at start, so one an older release saved that no longer passes is broken too).
 */
function toDefinition(r: DefinitionRow): Definition {
  const parsed = parse<DefinitionInput>(r.definition);
  const d: DefinitionInput =
    parsed && typeof parsed === 'object' && Array.isArray(parsed.actions)
      ? parsed
      : { kind: 'automation', name: r.id, actions: [] };
  const unreadable = d !== parsed ? [UNREADABLE] : null;
  return {
    id: r.id,
    kind: d.kind,
    name: d.name,
    enabled: r.enabled === 1,
    mode: d.mode ?? (d.kind === 'scene' ? 'restart' : 'single'),
    max: d.max ?? (d.mode === 'queued' || d.mode === 'parallel' ? automationLimits.maxRuns : 1),
    triggers: d.triggers ?? [],
    conditions: d.conditions ?? [],
    actions: d.actions,
    version: r.version,
    broken: unreadable ?? (r.broken === null ? null : (parse<string[]>(r.broken) ?? ['broken'])),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export class AutomationStore {
  constructor(private readonly db: Db) {}

  /** Runs `fn` in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : this.db.transaction(fn)();
  }

  // ---- definitions ----

  definitions(): Definition[] {
    return this.db
      .prepare<[], DefinitionRow>('SELECT * FROM automations ORDER BY created_at, id')
      .all()
      .map(toDefinition);
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM automations').get() as { n: number }).n;
  }

  /** Inserts or replaces a definition (the caller gives the next version); returns it as stored. */
  save(id: string, input: DefinitionInput, enabled: boolean, version: number, now: string): Definition {
    const { id: _drop, enabled: _e, ...body } = input;
    this.db
      .prepare(
        `INSERT INTO automations (id, kind, name, enabled, version, definition, broken, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?)
         ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, name = excluded.name, enabled = excluded.enabled,
           version = excluded.version, definition = excluded.definition, broken = NULL, updated_at = excluded.updated_at`,
      )
      .run(id, input.kind, input.name, enabled ? 1 : 0, version, JSON.stringify(body), now, now);
    return toDefinition(
      this.db.prepare<[string], DefinitionRow>('SELECT * FROM automations WHERE id = ?').get(id) as DefinitionRow,
    );
  }

  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM automations WHERE id = ?').run(id).changes > 0;
  }

  setEnabled(id: string, enabled: boolean, now: string): void {
    this.db.prepare('UPDATE automations SET enabled = ?, updated_at = ? WHERE id = ?').run(enabled ? 1 : 0, now, id);
  }

  setBroken(id: string, broken: string[] | null): void {
    this.db.prepare('UPDATE automations SET broken = ? WHERE id = ?').run(broken ? JSON.stringify(broken) : null, id);
  }

  // ---- the runs journal ----

  runs(): RunRow[] {
    return this.db
      .prepare<[], StoredRun>('SELECT * FROM automation_runs ORDER BY queued_at, id')
      .all()
      .flatMap((r) => {
        const trace = parse<Trace>(r.trace);
        // A journal row that cannot be read cannot be resumed: it goes (the run is lost, not the gateway).
        if (!trace || typeof trace !== 'object' || !Array.isArray(trace.steps)) {
          this.deleteRun(r.id);
          return [];
        }
        const row: RunRow = {
          id: r.id,
          automation_id: r.automation_id,
          version: r.version,
          status: r.status,
          step: r.step,
          deadline: r.deadline,
          cause: parse<Cause | null>(r.context) ?? null,
          trace,
          queued_at: r.queued_at,
        };
        return [row];
      });
  }

  /** Writes a run's journal row (insert or update): its step, status, deadline and trace so far. */
  putRun(r: RunRow): void {
    this.db
      .prepare(
        `INSERT INTO automation_runs (id, automation_id, version, status, step, deadline, context, trace, queued_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET status = excluded.status, step = excluded.step, deadline = excluded.deadline,
           trace = excluded.trace`,
      )
      .run(
        r.id,
        r.automation_id,
        r.version,
        r.status,
        r.step,
        r.deadline,
        JSON.stringify(r.cause),
        JSON.stringify(r.trace),
        r.queued_at,
      );
  }

  deleteRun(id: string): void {
    this.db.prepare('DELETE FROM automation_runs WHERE id = ?').run(id);
  }

  // ---- holds of `for` triggers ----

  holds(): HoldRow[] {
    // (A hold whose cause cannot be read keeps its deadline: the cause only names the run behind it.)
    return this.db
      .prepare<
        [],
        { automation_id: string; trigger_index: number; version: number; deadline: number; context: string }
      >('SELECT * FROM automation_holds')
      .all()
      .map((h) => ({ ...h, cause: parse<Cause | null>(h.context) ?? null }));
  }

  putHold(h: HoldRow): void {
    this.db
      .prepare(
        `INSERT INTO automation_holds (automation_id, trigger_index, version, deadline, context) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(automation_id, trigger_index) DO UPDATE SET version = excluded.version, deadline = excluded.deadline,
           context = excluded.context`,
      )
      .run(h.automation_id, h.trigger_index, h.version, h.deadline, JSON.stringify(h.cause));
  }

  deleteHold(automationId: string, index: number): boolean {
    return (
      this.db
        .prepare('DELETE FROM automation_holds WHERE automation_id = ? AND trigger_index = ?')
        .run(automationId, index).changes > 0
    );
  }

  /** Every hold of every definition (a store restored from a backup starts with none). */
  deleteAllHolds(): void {
    this.db.prepare('DELETE FROM automation_holds').run();
  }

  deleteHolds(automationId: string): void {
    this.db.prepare('DELETE FROM automation_holds WHERE automation_id = ?').run(automationId);
  }

  // ---- cursors of scheduled triggers ----

  cursor(automationId: string, index: number): number | undefined {
    const r = this.db
      .prepare<[string, number], { instant: number }>(
        'SELECT instant FROM automation_cursors WHERE automation_id = ? AND trigger_index = ?',
      )
      .get(automationId, index);
    return r?.instant;
  }

  setCursor(automationId: string, index: number, instant: number): void {
    this.db
      .prepare(
        `INSERT INTO automation_cursors (automation_id, trigger_index, instant) VALUES (?, ?, ?)
         ON CONFLICT(automation_id, trigger_index) DO UPDATE SET instant = excluded.instant`,
      )
      .run(automationId, index, instant);
  }

  deleteCursors(automationId: string): void {
    this.db.prepare('DELETE FROM automation_cursors WHERE automation_id = ?').run(automationId);
  }

  // ---- traces ----

  /**
   * Keeps a finished trace; the oldest of its bucket past the limit go. A trace of a definition
   * removed meanwhile (a batch of traces not run written after it went) is not kept.
   */
  addTrace(t: Trace, startedAt: number): void {
    const bucket = bucketOf(t);
    const added = this.db
      .prepare(
        `INSERT INTO automation_traces (automation_id, run_id, bucket, started_at, trace)
         SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM automations WHERE id = ?)`,
      )
      .run(t.automation_id, t.run_id, bucket, startedAt, JSON.stringify(t), t.automation_id);
    if (added.changes === 0) return;
    this.db
      .prepare(
        `DELETE FROM automation_traces WHERE automation_id = ? AND bucket = ? AND id NOT IN
           (SELECT id FROM automation_traces WHERE automation_id = ? AND bucket = ? ORDER BY id DESC LIMIT ?)`,
      )
      .run(t.automation_id, bucket, t.automation_id, bucket, automationLimits.traces);
  }

  /** The run that ended last of each definition (its trace's head), by definition id. */
  lastRuns(): Map<string, LastRun> {
    const rows = this.db
      .prepare<[], LastRun & { automation_id: string }>(
        `SELECT automation_id, run_id, json_extract(trace, '$.result') AS result,
           json_extract(trace, '$.started_at') AS started_at, json_extract(trace, '$.ended_at') AS ended_at,
           json_extract(trace, '$.reason') AS reason
         FROM automation_traces
         WHERE id IN (SELECT max(id) FROM automation_traces WHERE bucket != 'not_run' GROUP BY automation_id)`,
      )
      .all();
    return new Map(rows.map(({ automation_id, ...r }) => [automation_id, { ...r, reason: r.reason ?? null }]));
  }

  /** The kept traces of an automation, newest first (optionally of one bucket). */
  traces(automationId: string, bucket?: Bucket): Trace[] {
    const rows = bucket
      ? this.db
          .prepare<[string, string], { trace: string }>(
            'SELECT trace FROM automation_traces WHERE automation_id = ? AND bucket = ? ORDER BY id DESC',
          )
          .all(automationId, bucket)
      : this.db
          .prepare<[string], { trace: string }>(
            'SELECT trace FROM automation_traces WHERE automation_id = ? ORDER BY id DESC',
          )
          .all(automationId);
    return rows.map((r) => JSON.parse(r.trace) as Trace);
  }
}
