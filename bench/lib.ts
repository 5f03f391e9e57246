/**
 * Small helpers shared by the benchmarks. Every benchmark measures the gateway against a
 * baseline in the same run and prints the ratio; absolute numbers are printed for context only.
 */

/** Runs `fn` repeatedly for about `ms` milliseconds (after a warm-up) and returns operations per second. */
export function opsPerSecond(fn: () => void, ms = 1000): number {
  const warmUntil = performance.now() + Math.min(200, ms / 4);
  while (performance.now() < warmUntil) fn();
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 100; i++) fn();
    n += 100;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

/** The p-th percentile (0-100) of a list of numbers. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] as number;
}

/** Prints one result line: name, the ratio against the baseline, and the raw figures. */
export function report(name: string, ratio: number, details: Record<string, number | string>, target?: string): void {
  const extra = Object.entries(details)
    .map(([k, v]) => `${k}=${typeof v === 'number' ? round(v) : v}`)
    .join(' ');
  console.log(`${name}: ratio ${round(ratio)}${target ? ` (target ${target})` : ''}  ${extra}`);
}

function round(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(3);
}
