/**
 * Whether a triggered run may start, besides its conditions: the loop guards (the causal depth of
 * the chain of runs that set each other off, and the rate of one automation's runs) and the run
 * mode's and the gateway's limits on runs at once. Each refusal is a reason in words, for the trace.
 */
import { automationLimits as L } from './limits.ts';
import type { Definition } from './model.ts';
import type { Cause } from './trace.ts';

export class Admission {
  /** Recent run starts per automation (the rate guard). */
  private readonly starts = new Map<string, number[]>();

  /** `name`: a definition's name by id, for the chain in a loop's reason. */
  constructor(private readonly name: (id: string) => string) {}

  /** A loop stopped (`tell`: worth a notification and a warning, once per burst), or null. */
  guard(d: Definition, cause: Cause | null, now: number): { reason: string; tell: boolean } | null {
    const depth = (cause?.depth ?? 0) + 1;
    if (depth > L.causalDepth) {
      const chain = [...(cause?.chain ?? []), d.id].map(this.name).join(' -> ');
      return {
        reason: `loop stopped: this run would be ${depth} runs deep in a chain of runs each set off by the one before (${chain}); the limit is ${L.causalDepth}`,
        tell: true,
      };
    }
    const recent = (this.starts.get(d.id) ?? []).filter((t) => t > now - L.rateWindowSeconds * 1000);
    this.starts.set(d.id, recent);
    if (recent.length >= L.rateRuns)
      return {
        reason: `loop stopped: ${recent.length} runs within ${L.rateWindowSeconds} s is the most one automation may start (a loop of automations, or a device that reports too often)`,
        tell: recent.length === L.rateRuns,
      };
    return null;
  }

  /** Why the run mode or the gateway has no room for one more run, or null. */
  full(d: Definition, active: number, queued: number, total: number): string | null {
    if (d.mode === 'single' && active > 0) return 'already running (mode single)';
    if (d.mode === 'parallel' && active >= d.max) return `${d.max} runs at once is its max (mode parallel)`;
    if (d.mode === 'queued' && active + queued >= d.max)
      return `${d.max} runs waiting or running is its max (mode queued)`;
    // A restart replaces its running run: it needs no more room.
    if (total >= L.runsInAll && !(d.mode === 'restart' && active > 0))
      return `${L.runsInAll} runs at once in all is the gateway's limit`;
    return null;
  }

  /** A run of `id` started now (the rate guard counts it). */
  started(id: string, now: number): void {
    const recent = this.starts.get(id) ?? [];
    recent.push(now);
    this.starts.set(id, recent);
  }

  forget(id: string): void {
    this.starts.delete(id);
  }
}
