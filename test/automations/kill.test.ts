/**
 * kill -9 in the middle of an automation: a real gateway process (engine-host.ts) on the
 * simulated Zigbee network, a motion sensor turns the light on, the process is killed with
 * SIGKILL during the two minutes, a new process starts on the same data folder (30 s of the clock
 * later), and the light still goes off at the moment the delay ends. The clock is the process's
 * injected one, moved by the test through stdin: no real time is waited out.
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { type SimNetwork, startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { ROOT } from '../helpers/cli.ts';
import { settle } from '../helpers/clock.ts';
import { tempDir } from '../helpers/foundation.ts';
import { MIN, S, until } from './home.ts';

const HOST = join(ROOT, 'test', 'automations', 'engine-host.ts');
const DEVICES = 12;

interface Host {
  child: ChildProcessWithoutNullStreams;
  lines: any[];
  ready: Promise<{ devices: { serial_number: string; model: string }[] }>;
  ask(cmd: Record<string, unknown>): Promise<any>;
  kill(): Promise<void>;
}

function host(dataDir: string, at: number, net: SimNetwork): Host {
  const child = spawn(process.execPath, ['--import', 'tsx', HOST, dataDir, String(at), net.url, String(DEVICES)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const lines: any[] = [];
  createInterface({ input: child.stdout }).on('line', (l) => lines.push(JSON.parse(l)));
  let seq = 0;
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    child,
    lines,
    ready: until(() => lines.find((l) => l.ready), 30_000).catch((err) => {
      throw new Error(`${err.message}: ${stderr}`);
    }),
    async ask(cmd) {
      const n = ++seq;
      child.stdin.write(`${JSON.stringify({ seq: n, ...cmd })}\n`);
      return until(() => lines.find((l) => l.seq === n));
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

test('kill -9 during the two minutes: after the restart the light still goes off when they end', async (t) => {
  const net = await startSimNetwork({
    baseTopics: ['zigbee2mqtt'],
    devices: DEVICES,
    sim: { reportIntervalMs: 0, joinDelayMs: 50, interviewMs: 50, responseDelayMs: 5 },
  });
  t.after(() => net.stop());
  const dataDir = tempDir('opencube-kill-');
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const t0 = Date.UTC(2025, 0, 6, 18);
  let h = host(dataDir, t0, net);
  t.after(() => h.kill());
  const { devices } = await h.ready;
  const serial = (model: string) => devices.find((d) => d.model === model)?.serial_number as string;
  const sim = (model: string) =>
    net
      .sim()
      .list()
      .find((d) => d.fixture.model === model);
  const light = sim('LED1836G9');
  const motion = sim('RTCGQ11LM');
  assert.ok(light && motion);
  const saved = await h.ask({
    cmd: 'save',
    def: {
      kind: 'automation',
      name: 'Hall light on motion',
      triggers: [{ type: 'state', device: serial('RTCGQ11LM'), capability: 'motion', to: true }],
      actions: [
        { type: 'device', device: serial('LED1836G9'), state: { power: { powerState: 'on' } } },
        { type: 'delay', seconds: 120 },
        { type: 'device', device: serial('LED1836G9'), state: { power: { powerState: 'off' } } },
      ],
    },
  });
  assert.ok(saved.saved.ok, JSON.stringify(saved));
  const id = saved.saved.definition.id;

  net.sim().report(motion.ieee, { occupancy: true });
  await until(() => light.state.state === 'ON');
  // The command confirmed, the run is in its delay (in the store) before the clock moves.
  const waiting = async () => {
    const [run] = (await h.ask({ cmd: 'active' })).active;
    return run?.status === 'waiting' && run;
  };
  await until(waiting);
  await h.ask({ cmd: 'advance', ms: MIN });
  const before = await waiting();
  assert.ok(before);
  assert.equal(before.deadline, new Date(t0 + 2 * MIN).toISOString());

  await h.kill();
  // The process is gone mid-delay; 30 s pass on the clock before the new one starts.
  h = host(dataDir, t0 + MIN + 30 * S, net);
  await h.ready;
  const [after] = (await h.ask({ cmd: 'active' })).active;
  assert.deepEqual([after.run_id, after.status, after.deadline], [before.run_id, 'waiting', before.deadline]);
  assert.equal((await h.ask({ cmd: 'advance', ms: 29 * S })).now, t0 + 2 * MIN - S);
  await settle(200);
  assert.equal(light.state.state, 'ON', 'still on a second before the end');
  await h.ask({ cmd: 'advance', ms: S });
  await until(() => light.state.state === 'OFF');
  const finished = await until(() => h.lines.find((l) => l.event === 'automation#runFinished'));
  assert.equal(finished.data.payload.result, 'finished');
  assert.equal(finished.at, t0 + 2 * MIN, 'at the moment the two minutes end');
  const [trace] = (await h.ask({ cmd: 'traces', id })).traces;
  assert.deepEqual(
    trace.steps.map((s: { type: string; outcome: string }) => `${s.type}:${s.outcome}`),
    ['device:done', 'delay:waiting', 'delay:resumed', 'delay:done', 'device:done'],
  );
});
