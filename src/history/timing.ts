/**
 * Timing of the history's steps: wall time (what a request queued behind a step waits) and this
 * process's CPU time (what the step itself costs, whatever else the machine is running).
 */
export function startTiming(): () => { ms: number; cpuMs: number } {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return { ms: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 };
  };
}
