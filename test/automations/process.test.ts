/**
 * Scenes and automations in the real gateway process: `opencube start` (from the source tree) on
 * 127.0.0.1, its Zigbee through Zigbee2MQTT's MQTT API to the simulated network (run here, as a
 * real Zigbee2MQTT runs beside the gateway and outlives its restarts), its clock the test clock
 * (OPENCUBE_TEST_CLOCK: moved by lines on its standard input, src/cli/test-clock.ts), everything
 * else through the Open API as a client does it. A motion sensor turns a light on and two minutes
 * later off; a `kill -9` in the middle of the two minutes, and the light still goes off at the
 * right moment after the restart; a sunset trigger across the spring DST change; a loop stopped;
 * a broken automation after the device it names is removed. The built command refuses the test
 * clock.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { linkToken } from '../../scripts/reliability/gateway-process.ts';
import { type SimNetwork, startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { type CliProcess, freePort, runCli, spawnCli, startArgs } from '../helpers/cli.ts';
import { call, rest, tempDir } from '../helpers/foundation.ts';
import { openEvents } from '../helpers/sse.ts';
import { hallLight, MIN, S, until } from './home.ts';

const DEVICES = 12;
const HOUR = 60 * MIN;
const OPEN = 'opencube/automations';

interface Proc {
  url: string;
  cli: CliProcess;
  /** The process's clock now (epoch ms). */
  now: number;
  /** Moves the process's clock by `ms`; resolves once it has fired what was due on the way. */
  advance(ms: number): Promise<void>;
  /** SIGKILL, and waits for the exit. */
  kill9(): Promise<void>;
  /** SIGTERM, and waits for the exit (SIGKILL of its group if it hangs). */
  stop(): Promise<void>;
}

/** `opencube start` on `dataDir` and `port`, its clock at `at`, its Zigbee the network `net`. */
async function launch(dataDir: string, port: number, at: number, net: SimNetwork): Promise<Proc> {
  const cli = spawnCli(
    startArgs(
      port,
      dataDir,
      '--no-supervise',
      '--audio-sink',
      'null',
      '--zigbee-mode',
      'z2m',
      '--zigbee-mqtt-url',
      net.url,
      '--time-zone',
      'Europe/Berlin',
      '--location',
      '52.52,13.405',
      '--log-level',
      'warn',
    ),
    { env: { OPENCUBE_TEST_CLOCK: String(at) }, stdin: true },
  );
  try {
    await cli.waitForOutput(/listening on/, 1, 60_000);
  } catch (err) {
    cli.killAll();
    throw err;
  }
  const p: Proc = {
    url: `http://127.0.0.1:${port}`,
    cli,
    now: at,
    async advance(ms) {
      const target = p.now + ms;
      cli.child.stdin?.write(`advance ${ms}\n`);
      await cli.waitForOutput(new RegExp(`opencube: clock ${target}\\n`));
      p.now = target;
    },
    async kill9() {
      cli.child.kill('SIGKILL');
      await cli.exited;
      cli.killAll();
    },
    async stop() {
      if (cli.child.exitCode !== null || cli.child.signalCode !== null) return;
      const guard = setTimeout(() => cli.killAll(), 15_000);
      cli.child.kill('SIGTERM');
      await cli.exited;
      clearTimeout(guard);
      cli.killAll();
    },
  };
  return p;
}

function startNet(): Promise<SimNetwork> {
  return startSimNetwork({
    baseTopics: ['zigbee2mqtt'],
    devices: DEVICES,
    sim: { reportIntervalMs: 0, joinDelayMs: 50, interviewMs: 50, responseDelayMs: 5 },
  });
}

/** The Open API of a process, with a token. */
function client(p: () => Proc, token: string) {
  return {
    async open(method: string, path: string, body?: unknown): Promise<any> {
      const r = await call(p().url, method, rest('v2', path), { token, ...(body === undefined ? {} : { body }) });
      assert.equal(r.status, 200, r.text);
      return r.json;
    },
  };
}

/** The serial number the gateway gave a simulated device, and the device in the simulator. */
async function device(p: Proc, token: string, net: SimNetwork, model: string) {
  const sim = net
    .sim()
    .list()
    .find((d) => d.fixture.model === model);
  assert.ok(sim, model);
  const serial = await until(async () => {
    const r = await call(p.url, 'GET', rest('v2', 'devices'), { token });
    return (r.json.data.device_list as { serial_number: string; model: string }[]).find((d) => d.model === model)
      ?.serial_number;
  }, 30_000);
  return { serial, sim };
}

describe('a motion sensor and a light, in the gateway process', () => {
  let net: SimNetwork;
  let dataDir: string;
  let p: Proc;
  before(async () => {
    net = await startNet();
    dataDir = tempDir('opencube-process-');
  });
  after(async () => {
    await p?.stop();
    await net?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('turns the light on, and off two minutes later; a kill -9 in the middle, and it still goes off at the right moment', async () => {
    const port = await freePort();
    const t0 = Date.UTC(2025, 0, 6, 18);
    p = await launch(dataDir, port, t0, net);
    const token = await linkToken({ url: p.url, dataDir }, 'process test');
    const api = client(() => p, token);
    const light = await device(p, token, net, 'LED1836G9');
    const motion = await device(p, token, net, 'RTCGQ11LM');
    const saved = await api.open('POST', OPEN, hallLight(motion.serial, light.serial));
    assert.equal(saved.error, 0, JSON.stringify(saved));
    const id = saved.data.definition.id;
    const waiting = async () => {
      const [run] = (await api.open('GET', `${OPEN}/runs`)).data.runs;
      return run?.status === 'waiting' && run;
    };

    // Motion, the light on; a second before the two minutes it is still on, at them it is off.
    net.sim().report(motion.sim.ieee, { occupancy: true });
    await until(() => light.sim.state.state === 'ON');
    await until(waiting);
    await p.advance(2 * MIN - S);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(light.sim.state.state, 'ON', 'still on a second before the two minutes');
    await p.advance(S);
    await until(() => light.sim.state.state === 'OFF');
    const first = await until(async () => (await api.open('GET', `${OPEN}/${id}/traces`)).data.traces[0]);
    assert.deepEqual(
      [first.result, first.ended_at],
      ['finished', new Date(t0 + 2 * MIN).toISOString()],
      'ended at the moment the two minutes ended',
    );
    net.sim().report(motion.sim.ieee, { occupancy: false });

    // Motion again; a minute on, the process is killed; 30 s pass before the new one starts.
    const again = p.now;
    net.sim().report(motion.sim.ieee, { occupancy: true });
    await until(() => light.sim.state.state === 'ON');
    const before = await until(waiting);
    assert.equal(before.deadline, new Date(again + 2 * MIN).toISOString());
    await p.advance(MIN);
    await p.kill9();
    p = await launch(dataDir, port, again + MIN + 30 * S, net);
    const after = await until(waiting);
    assert.deepEqual(
      [after.run_id, after.deadline],
      [before.run_id, before.deadline],
      'the same run, the same deadline',
    );
    await p.advance(29 * S);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(light.sim.state.state, 'ON', 'still on a second before the end');
    await p.advance(S);
    await until(() => light.sim.state.state === 'OFF');
    const [trace] = (await api.open('GET', `${OPEN}/${id}/traces?bucket=run`)).data.traces;
    assert.equal(trace.run_id, before.run_id);
    assert.equal(trace.ended_at, new Date(again + 2 * MIN).toISOString(), 'at the moment the two minutes ended');
    assert.deepEqual(
      trace.steps.map((s: { type: string; outcome: string }) => `${s.type}:${s.outcome}`),
      ['device:done', 'delay:waiting', 'delay:resumed', 'delay:done', 'device:done'],
    );
  });
});

describe('the gateway process through a DST change, a loop and a removed device', () => {
  let net: SimNetwork;
  let dataDir: string;
  let p: Proc;
  let token: string;
  let api: ReturnType<typeof client>;
  // Saturday 29 March 2025, noon in Berlin: clocks go forward on Sunday at 02:00.
  const t0 = Date.UTC(2025, 2, 29, 11);
  before(async () => {
    net = await startNet();
    dataDir = tempDir('opencube-process-');
    p = await launch(dataDir, await freePort(), t0, net);
    token = await linkToken({ url: p.url, dataDir }, 'process test');
    api = client(() => p, token);
  });
  after(async () => {
    await p?.stop();
    await net?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('a sunset trigger runs once each evening across the change, at sunset on the wall (18:3x, then 19:3x)', async () => {
    const saved = await api.open('POST', OPEN, {
      kind: 'automation',
      name: 'Evening',
      triggers: [{ type: 'sun', event: 'sunset' }],
      actions: [{ type: 'notify', message: 'the sun set' }],
    });
    assert.equal(saved.error, 0, JSON.stringify(saved));
    const id = saved.data.definition.id;
    const next = (await api.open('GET', `${OPEN}/${id}/next?count=2`)).data.firings;
    assert.match(next[0].local, /^2025-03-29T18:3\d:\d\d\+01:00$/);
    assert.match(next[1].local, /^2025-03-30T19:3\d:\d\d\+02:00$/);
    for (let h = 0; h < 48; h += 6) await p.advance(6 * HOUR);
    const runs = await until(async () => {
      const t = (await api.open('GET', `${OPEN}/${id}/traces?bucket=run`)).data.traces;
      return t.length === 2 && t;
    });
    assert.deepEqual(
      runs.map((r: { trigger: { scheduled: string } }) => r.trigger.scheduled).reverse(),
      next.map((f: { at: string }) => f.at),
      'each at its sunset, once',
    );
    assert.deepEqual((await api.open('GET', `${OPEN}/${id}/traces?bucket=not_run`)).data.traces, []);
  });

  test('a loop of two automations is stopped at the causal depth, said on the stream; the gateway goes on', async (t) => {
    const light = await device(p, token, net, 'LED1836G9');
    const stream = await openEvents(p.url, token, 'v2', ['automation#notify']);
    t.after(() => stream.close());
    const flip = (name: string, from: string, to: string) => ({
      kind: 'automation',
      name,
      mode: 'queued',
      triggers: [{ type: 'state', device: light.serial, capability: 'power', to: from }],
      actions: [{ type: 'device', device: light.serial, state: { power: { powerState: to } } }],
    });
    const ping = (await api.open('POST', OPEN, flip('Ping', 'on', 'off'))).data.definition.id;
    const pong = (await api.open('POST', OPEN, flip('Pong', 'off', 'on'))).data.definition.id;
    // A person turns the light on: Ping turns it off, Pong on again, Ping off... until the guard.
    const put = await api.open('PUT', `devices/${light.serial}`, { state: { power: { powerState: 'on' } } });
    assert.equal(put.error, 0, JSON.stringify(put));
    const told = await stream.waitFor((e) => e.type === 'notify', 30_000);
    assert.match(told.data.payload.message, /^loop stopped: this run would be 9 runs deep/);
    const stopped = [
      ...(await api.open('GET', `${OPEN}/${ping}/traces?bucket=not_run`)).data.traces,
      ...(await api.open('GET', `${OPEN}/${pong}/traces?bucket=not_run`)).data.traces,
    ];
    assert.ok(stopped.some((x: { reason: string }) => /^loop stopped: .*Ping -> Pong -> Ping/.test(x.reason)));
    const ran = [
      ...(await api.open('GET', `${OPEN}/${ping}/traces?bucket=run`)).data.traces,
      ...(await api.open('GET', `${OPEN}/${pong}/traces?bucket=run`)).data.traces,
    ];
    assert.equal(ran.length, 8, 'eight runs, each set off by the one before');
    assert.equal((await call(p.url, 'GET', rest('v2', 'bridge'))).json.error, 0, 'the gateway answers');
    await api.open('DELETE', `${OPEN}/${ping}`);
    await api.open('DELETE', `${OPEN}/${pong}`);
  });

  test('a device removed leaves the automation naming it broken: shown, skipped and refused by hand', async () => {
    const plug = await device(p, token, net, 'ZNCZ02LM');
    const id = (
      await api.open('POST', OPEN, {
        kind: 'automation',
        name: 'Plug at noon',
        triggers: [{ type: 'time', at: '12:00' }],
        actions: [{ type: 'device', device: plug.serial, state: { power: { powerState: 'on' } } }],
      })
    ).data.definition.id;
    const removed = await api.open('DELETE', `devices/${plug.serial}`);
    assert.equal(removed.error, 0, JSON.stringify(removed));
    const shown = await until(async () => (await api.open('GET', `${OPEN}/${id}`)).data.definition);
    const broken = await until(async () => (await api.open('GET', `${OPEN}/${id}`)).data.definition.broken);
    assert.deepEqual(broken, [`actions.0.device: no device has serial_number "${plug.serial}"`]);
    assert.equal(shown.id, id);
    const run = await api.open('POST', `${OPEN}/${id}/run`, {});
    assert.deepEqual([run.error, run.message], [409, `it is broken: ${broken[0]}`]);
    assert.equal((await api.open('GET', `${OPEN}/${id}`)).data.definition.status.next_firing, null, 'not scheduled');
    await p.advance(24 * HOUR);
    assert.deepEqual((await api.open('GET', `${OPEN}/${id}/traces`)).data.traces, [], 'skipped: noon passed');
  });
});

test('the built command refuses the test clock in one line', async () => {
  const dataDir = tempDir('opencube-process-');
  try {
    const r = await runCli(['start', '--no-supervise', '--port', '0', '--data-dir', dataDir, '--no-mdns'], {
      compiled: true,
      env: { OPENCUBE_TEST_CLOCK: '1735689600000' },
      timeoutMs: 120_000,
    });
    assert.equal(r.code, 78, r.stderr);
    assert.equal(
      r.stderr.trim().split('\n').at(-1),
      'opencube: OPENCUBE_TEST_CLOCK is for tests of the source tree; a build of opencube does not take it',
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
