/**
 * The supervisor's restart policy as a pure function: each run's end (exit code or signal, how
 * long it ran by the supervisor's clock, whether it answered) goes in, the decision comes out.
 * No test waits: the times are numbers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CONFIG_EXIT_CODE,
  DEFAULT_POLICY,
  type Decision,
  decide,
  GATEWAY_NODE_FLAGS,
  gatewayExecArgv,
  initialState,
  type RestartState,
  type RunEnd,
} from '../../src/cli/supervisor.ts';

const SECOND = 1000;

function end(over: Partial<RunEnd> = {}): RunEnd {
  return { code: 1, signal: null, ranMs: 2 * SECOND, answered: false, stopRequested: false, ...over };
}

/** Feeds `ends` through the policy one after another, as the supervisor does; returns every decision. */
function replay(ends: RunEnd[]): Decision[] {
  let state: RestartState = initialState();
  const out: Decision[] = [];
  for (const e of ends) {
    const d = decide(e, state);
    out.push(d);
    if (d.action === 'exit') break;
    state = d.state;
  }
  return out;
}

const delays = (ds: Decision[]) => ds.map((d) => (d.action === 'restart' ? d.delayMs : `exit ${d.code}`));

describe('the restart policy of the supervisor', () => {
  it('restarts a gateway that asked for it (exit code 75) at once, with a plain notice', () => {
    const d = decide(end({ code: 75, answered: true, ranMs: 5 * SECOND }), initialState());
    assert.equal(d.action, 'restart');
    assert.equal(d.action === 'restart' && d.delayMs, 0);
    assert.deepEqual(d.notice, { level: 'info', text: 'opencube: restarting' });
  });

  it('ends with the gateway when the supervisor forwarded a stop, whatever the exit', () => {
    for (const [code, signal, want] of [
      [0, null, 0],
      [1, null, 1],
      [75, null, 75],
      [null, 'SIGKILL', 1],
    ] as const) {
      const d = decide(end({ code, signal, stopRequested: true }), initialState());
      assert.deepEqual(d, { action: 'exit', code: want }, `code ${code} signal ${signal}`);
    }
  });

  it('ends cleanly when the gateway stopped cleanly by itself (a SIGTERM sent to it directly)', () => {
    assert.deepEqual(decide(end({ code: 0, answered: true }), initialState()), { action: 'exit', code: 0 });
  });

  it('stops with code 78 and adds nothing when the gateway cannot start as configured (its own line says why)', () => {
    for (const e of [
      end({ code: CONFIG_EXIT_CODE }),
      end({ code: CONFIG_EXIT_CODE, answered: true, ranMs: 600 * SECOND }),
    ])
      assert.deepEqual(decide(e, { delayMs: 8000, startCrashes: 3 }), { action: 'exit', code: 78 });
    const afterCrashes = replay([end(), end(), end({ code: CONFIG_EXIT_CODE })]);
    assert.deepEqual(delays(afterCrashes), [1000, 2000, 'exit 78']);
  });

  it('restarts a crashed gateway after 1 s, then 2, 4, 8, 16 and at most 30 s while it keeps crashing', () => {
    const crashes = Array.from({ length: 8 }, () => end({ code: 1, answered: true, ranMs: 10 * SECOND }));
    assert.deepEqual(delays(replay(crashes)), [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it('treats a kill by a signal it did not send as a crash and says so', () => {
    const d = decide(end({ code: null, signal: 'SIGKILL', answered: true }), initialState());
    assert.equal(d.action, 'restart');
    assert.deepEqual(d.notice, {
      level: 'error',
      text: 'opencube: the gateway was killed by SIGKILL; starting it again in 1 s',
    });
  });

  it('starts the delays again at 1 s after a run of at least a minute', () => {
    const ends = [
      end({ answered: true }),
      end({ answered: true }),
      end({ answered: true }),
      end({ answered: true, ranMs: 60 * SECOND }),
      end({ answered: true }),
    ];
    assert.deepEqual(delays(replay(ends)), [1000, 2000, 4000, 1000, 2000]);
  });

  it('gives up after 5 crashes in a row before the gateway answered, with one clear message', () => {
    const ds = replay(Array.from({ length: 10 }, () => end({ code: 1, ranMs: 300 })));
    assert.deepEqual(delays(ds), [1000, 2000, 4000, 8000, 'exit 1']);
    const last = ds.at(-1) as Decision;
    assert.deepEqual(last.notice, {
      level: 'error',
      text: 'opencube: the gateway exited with code 1 before it answered, 5 times in a row: giving up (its own messages above say why)',
    });
  });

  it('does not give up on a gateway that answered between its crashes', () => {
    const ends = [
      ...Array.from({ length: 4 }, () => end()),
      end({ answered: true }),
      ...Array.from({ length: 4 }, () => end()),
    ];
    const ds = replay(ends);
    assert.equal(ds.length, 9);
    assert.ok(ds.every((d) => d.action === 'restart'));
    assert.equal(decide(end(), (ds.at(-1) as Decision & { state: RestartState }).state).action, 'exit');
  });

  it('does not count a crash after a minute as a crash at start, even if the gateway never answered', () => {
    const ends = [...Array.from({ length: 4 }, () => end()), end({ ranMs: 61 * SECOND }), end(), end()];
    assert.ok(replay(ends).every((d) => d.action === 'restart'));
  });

  it('forgets crashes at start after a reboot request', () => {
    const ends = [
      ...Array.from({ length: 4 }, () => end()),
      end({ code: 75 }),
      ...Array.from({ length: 4 }, () => end()),
    ];
    const ds = replay(ends);
    assert.ok(ds.every((d) => d.action === 'restart'));
    assert.deepEqual(delays(ds).slice(5), [1000, 2000, 4000, 8000]);
  });

  it('follows another policy when given one', () => {
    const policy = { ...DEFAULT_POLICY, firstDelayMs: 10, maxDelayMs: 25, startCrashLimit: 2 };
    const first = decide(end(), initialState(policy), policy);
    assert.equal(first.action === 'restart' && first.delayMs, 10);
    const second = decide(end({ answered: true }), (first as Decision & { state: RestartState }).state, policy);
    assert.equal(second.action === 'restart' && second.delayMs, 20);
    const third = decide(end({ answered: true }), (second as Decision & { state: RestartState }).state, policy);
    assert.equal(third.action === 'restart' && third.delayMs, 25);
    const again = decide(end(), (first as Decision & { state: RestartState }).state, policy);
    assert.equal(again.action, 'exit', 'two crashes at start in a row are the limit');
  });
});

describe('the node flags of the gateway child', () => {
  it("adds the memory flags to the supervisor's own flags", () => {
    assert.deepEqual(gatewayExecArgv(['--import', 'tsx']), [...GATEWAY_NODE_FLAGS, '--import', 'tsx']);
    assert.deepEqual(gatewayExecArgv([]), [...GATEWAY_NODE_FLAGS]);
  });

  it("leaves out a memory flag the user set, so the user's value holds", () => {
    assert.deepEqual(gatewayExecArgv(['--v8-pool-size=4']), ['--v8-pool-size=4']);
    assert.deepEqual(gatewayExecArgv(['--v8-pool-size=4', '--max-semi-space-size=8']), [
      '--v8-pool-size=4',
      '--max-semi-space-size=8',
    ]);
  });
});
