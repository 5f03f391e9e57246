/**
 * kill -9 while recording: a child process (kill-child.ts) records a sensor into a real SQLite
 * file and is killed with SIGKILL, once in the middle of an hour's roll-up and once at a random
 * report. The store passes SQLite's integrity check, the rest of it (the registry's device and its
 * state) is intact, and the history holds every report up to the last batch written, in order,
 * none twice: what is lost is at most the batch under way.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { ManualClock } from '../helpers/clock.ts';
import { tempDir } from '../helpers/foundation.ts';
import { bareHistory } from '../helpers/history-store.ts';

const START = Date.UTC(2025, 0, 6);
const BATCH_SECONDS = 5;
/** Reports come every 2 s of the child's clock: a batch (a write at most every 5 s) holds up to three. */
const PER_BATCH = 3;

interface Killed {
  file: string;
  published: number;
  flushed: number;
  rollups: number;
}

/** Runs the child until `killWhen` says so, then SIGKILLs it; resolves once it is gone. */
function runAndKill(
  dir: string,
  killWhen: (m: { published?: number; flushed?: number; rollup?: number }) => boolean,
): Promise<Killed> {
  const file = join(dir, 'gateway.db');
  const child: ChildProcess = fork(
    join(import.meta.dirname, 'kill-child.ts'),
    [file, String(BATCH_SECONDS), String(START)],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const seen: Killed = { file, published: 0, flushed: 0, rollups: 0 };
  // A guard against a hang, not a timing assertion.
  const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve, reject) => {
    let killed = false;
    child.on('message', (m: { published?: number; flushed?: number; rollup?: number }) => {
      if (m.published !== undefined) seen.published = m.published;
      if (m.flushed !== undefined) seen.flushed = m.flushed;
      if (m.rollup !== undefined) seen.rollups++;
      if (!killed && killWhen(m)) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      if (signal === 'SIGKILL' && killed) resolve(seen);
      else reject(new Error(`the child ended by itself (${code ?? signal})`));
    });
  });
}

/** What the store holds after the kill: checked, then read back through a new History. */
async function readBack(k: Killed): Promise<{ values: (number | null)[]; deviceState: number }> {
  const raw = new Database(k.file);
  try {
    assert.equal(raw.pragma('integrity_check', { simple: true }), 'ok');
    assert.deepEqual(raw.pragma('foreign_key_check'), []);
  } finally {
    raw.close();
  }
  // Started at a time after everything the child recorded.
  const { db, registry, history } = bareHistory(k.file, new ManualClock(START + (k.published + 10) * 2000));
  const [device] = registry.list();
  assert.ok(device, 'the device is in the store');
  const deviceState = (device.state.temperature as { temperature: number }).temperature;
  history.start();
  await history.idle();
  const r = history.series({
    serial_number: device.serial_number,
    capability: 'temperature',
    from: new Date(START).toISOString(),
    points: 10_000,
  });
  await history.stop();
  db.close();
  assert.ok(r.ok, JSON.stringify(r));
  // The values up to the gap the restart puts where the child last recorded.
  const all = (r.value.value ?? []) as (number | null)[];
  const end = all.indexOf(null);
  return { values: end < 0 ? all : all.slice(0, end), deviceState };
}

function checkLoss(k: Killed, values: (number | null)[], deviceState: number): void {
  const n = values.length;
  assert.deepEqual(
    values,
    Array.from({ length: n }, (_, i) => (i + 1) / 10),
    'every report in order, none twice',
  );
  assert.ok(n >= k.flushed, `${n} values kept, ${k.flushed} were written before the kill`);
  // The child may have published a little more than the parent heard of; never more than a batch is lost.
  assert.ok(n >= k.published - PER_BATCH - 1, `${n} values kept of ${k.published} published`);
  assert.ok(deviceState * 10 >= n, 'the registry committed each state before the history saw it');
}

describe('kill -9 while recording', () => {
  it('in the middle of an hour being rolled up: the store is intact and at most the batch under way is lost', async () => {
    const dir = tempDir('opencube-history-kill-');
    try {
      const k = await runAndKill(dir, (m) => m.rollup !== undefined);
      assert.ok(k.rollups >= 1);
      const { values, deviceState } = await readBack(k);
      assert.ok(values.length >= 1800, 'the hour rolled up is read back');
      checkLoss(k, values, deviceState);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('at a report picked at random: the same', async () => {
    const dir = tempDir('opencube-history-kill-');
    const at = 50 + Math.floor(Math.random() * 500);
    try {
      const k = await runAndKill(dir, (m) => (m.published ?? 0) >= at);
      const { values, deviceState } = await readBack(k);
      checkLoss(k, values, deviceState);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
