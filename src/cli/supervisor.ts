/**
 * The opt-in supervisor of `opencube start --supervise`: it runs the gateway in a child process
 * and starts it again when it crashed (or when it exits with code 75, how a gateway once asked
 * for a restart; G8 now restarts it inside its own process), with a growing delay between
 * crashes, and gives up with one message when the gateway keeps crashing before it ever answered.
 * A gateway that cannot start as configured (exit code 78) is not started again.
 * It forwards SIGINT/SIGTERM to the gateway and ends with it.
 *
 * It imports node's own modules only, and the CLI imports it before anything else: the supervisor
 * lives as long as the gateway, and whatever it loaded would stay resident beside the gateway's
 * own copy on a box with 1 GB.
 */
import { type ChildProcess, spawn } from 'node:child_process';

/** Exit code with which a gateway may ask its supervisor for a restart (restarted at once). */
export const RESTART_EXIT_CODE = 75;

/**
 * Exit code of a gateway that cannot start as configured (EX_CONFIG of sysexits.h: a port in use,
 * a data folder that is a file): starting it again would fail the same way, so the supervisor
 * stops with it, and the systemd unit does not restart it (RestartPreventExitStatus).
 */
export const CONFIG_EXIT_CODE = 78;

/**
 * Node flags of the supervised gateway, for an idle box with little memory (docs/benchmarks.md):
 * V8's pool of background threads (concurrent marking and compiling) is 4 by default, and each
 * thread that worked keeps its own malloc arena of a few MB; 2 is as many cores as the smallest
 * target box has to spare beside the main thread (about 6 MB less). V8's young generation is left
 * at its default: capped at 1 MB it saved nothing once idle and cost about 20 ms of the start and
 * a seventh of the requests per second (docs/benchmarks.md).
 */
export const GATEWAY_NODE_FLAGS: readonly string[] = ['--v8-pool-size=2'];

/** Node flags for the gateway child: the supervisor's own (e.g. `--import tsx`), and GATEWAY_NODE_FLAGS unless the user set the same flag. */
export function gatewayExecArgv(own: readonly string[]): string[] {
  const name = (flag: string) => flag.split('=')[0];
  const given = new Set(own.map(name));
  return [...GATEWAY_NODE_FLAGS.filter((f) => !given.has(name(f))), ...own];
}

/** The message a supervised gateway sends (over the IPC channel) once it listens. */
export const LISTENING_MESSAGE = { opencube: 'listening' } as const;

/** When and how often a crashed gateway is started again. */
export interface RestartPolicy {
  /** Delay before the restart after the first crash. */
  firstDelayMs: number;
  /** The delay doubles with each crash up to this. */
  maxDelayMs: number;
  /** A run at least this long resets the delay; a crash sooner, before the gateway answered, is a crash at start. */
  stableAfterMs: number;
  /** Crashes at start in a row after which the supervisor gives up. */
  startCrashLimit: number;
}

export const DEFAULT_POLICY: RestartPolicy = {
  firstDelayMs: 1000,
  maxDelayMs: 30_000,
  stableAfterMs: 60_000,
  startCrashLimit: 5,
};

/** How one run of the gateway ended, as the supervisor saw it. */
export interface RunEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** How long the run lasted, in ms (from the supervisor's clock). */
  ranMs: number;
  /** Whether the gateway said it was listening. */
  answered: boolean;
  /** Whether the supervisor had asked it to stop (SIGINT/SIGTERM forwarded). */
  stopRequested: boolean;
}

/** What the policy remembers between runs. */
export interface RestartState {
  /** Delay before the next restart after a crash. */
  delayMs: number;
  /** Crashes at start in a row. */
  startCrashes: number;
}

/** The state before the first run. */
export function initialState(policy: RestartPolicy = DEFAULT_POLICY): RestartState {
  return { delayMs: policy.firstDelayMs, startCrashes: 0 };
}

/** A line for the user: `info` goes to stdout, `error` to stderr. */
export interface Notice {
  level: 'info' | 'error';
  text: string;
}

/** What the supervisor does after a run ended. */
export type Decision =
  | { action: 'restart'; delayMs: number; state: RestartState; notice: Notice }
  | { action: 'exit'; code: number; notice?: Notice };

/** How a run ended, in words: `exited with code 1`, `was killed by SIGKILL`. */
export function describeEnd(end: Pick<RunEnd, 'code' | 'signal'>): string {
  return end.signal ? `was killed by ${end.signal}` : `exited with code ${end.code}`;
}

/**
 * The restart policy, a pure function of how the run ended and what came before: the supervisor
 * measures `ranMs` with its clock and waits `delayMs` with its timers.
 */
export function decide(end: RunEnd, state: RestartState, policy: RestartPolicy = DEFAULT_POLICY): Decision {
  // Asked to stop: end with the gateway, as today's callers (systemd, tests) expect its exit code.
  if (end.stopRequested) return { action: 'exit', code: end.code ?? (end.signal ? 1 : 0) };
  // The gateway said why on its own line; anything more here would bury it.
  if (end.code === CONFIG_EXIT_CODE) return { action: 'exit', code: CONFIG_EXIT_CODE };
  if (end.code === RESTART_EXIT_CODE) {
    return {
      action: 'restart',
      delayMs: 0,
      state: initialState(policy),
      notice: { level: 'info', text: 'opencube: restarting' },
    };
  }
  // A clean exit nobody here asked for (a SIGTERM sent to the gateway itself): the user stopped it.
  if (end.code === 0 && !end.signal) return { action: 'exit', code: 0 };
  const stable = end.ranMs >= policy.stableAfterMs;
  const delayMs = stable ? policy.firstDelayMs : state.delayMs;
  const atStart = !end.answered && !stable;
  const startCrashes = atStart ? state.startCrashes + 1 : 0;
  if (startCrashes >= policy.startCrashLimit) {
    return {
      action: 'exit',
      code: 1,
      notice: {
        level: 'error',
        text: `opencube: the gateway ${describeEnd(end)} before it answered, ${startCrashes} times in a row: giving up (its own messages above say why)`,
      },
    };
  }
  return {
    action: 'restart',
    delayMs,
    state: { delayMs: Math.min(delayMs * 2, policy.maxDelayMs), startCrashes },
    notice: {
      level: 'error',
      text: `opencube: the gateway ${describeEnd(end)}; starting it again in ${formatSeconds(delayMs)}`,
    },
  };
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** Time as the supervisor reads and waits for it (tests of the policy need none of this). */
export interface SupervisorClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): { unref?(): unknown } | number;
  clearTimeout(handle: ReturnType<SupervisorClock['setTimeout']>): void;
}

export const systemClock: SupervisorClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface SupervisorOptions {
  /** The module the gateway child runs (the CLI's own entry) and the words after it. */
  entry: string;
  args: readonly string[];
  /** Node's flags for the child (the supervisor's own, e.g. `--import tsx` in development, plus memory flags). */
  execArgv: readonly string[];
  env: NodeJS.ProcessEnv;
  policy?: RestartPolicy;
  clock?: SupervisorClock;
  /** Ends the supervisor (process.exit). */
  exit(code: number): void;
  /** Writes a notice (stdout for info, stderr for errors). */
  print(notice: Notice): void;
}

/** Runs the gateway under supervision until it stops for good; then calls `exit`. */
export function supervise(opts: SupervisorOptions): void {
  const policy = opts.policy ?? DEFAULT_POLICY;
  const clock = opts.clock ?? systemClock;
  let state = initialState(policy);
  let child: ChildProcess | undefined;
  let pending: ReturnType<SupervisorClock['setTimeout']> | undefined;
  let stopRequested = false;

  const run = () => {
    pending = undefined;
    const startedAt = clock.now();
    let answered = false;
    // The IPC channel carries the "listening" message, and closes when the supervisor dies, which
    // tells the gateway to stop rather than hold the port unsupervised.
    const proc = spawn(process.execPath, [...opts.execArgv, opts.entry, ...opts.args, '--no-supervise'], {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...opts.env, OPENCUBE_SUPERVISED: '1' },
    });
    child = proc;
    proc.on('message', (m: unknown) => {
      if ((m as { opencube?: unknown } | null)?.opencube === LISTENING_MESSAGE.opencube) answered = true;
    });
    proc.on('error', (err) => {
      // Only a failed spawn (no exit follows): nothing to supervise.
      if (proc.pid !== undefined) return;
      opts.print({ level: 'error', text: `opencube: cannot start the gateway process: ${err.message}` });
      opts.exit(1);
    });
    proc.on('exit', (code, signal) => {
      child = undefined;
      const decision = decide({ code, signal, ranMs: clock.now() - startedAt, answered, stopRequested }, state, policy);
      if (decision.notice) opts.print(decision.notice);
      if (decision.action === 'exit') {
        opts.exit(decision.code);
        return;
      }
      state = decision.state;
      if (decision.delayMs === 0) run();
      else pending = clock.setTimeout(run, decision.delayMs);
    });
  };

  const stop = () => {
    if (pending !== undefined) {
      // Waiting to restart a crashed gateway: there is nothing to stop.
      clock.clearTimeout(pending);
      opts.exit(0);
      return;
    }
    // A second signal while the gateway stops: the user does not want to wait for it.
    child?.kill(stopRequested ? 'SIGKILL' : 'SIGTERM');
    stopRequested = true;
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  run();
}
