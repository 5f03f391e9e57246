/**
 * An undici Agent made, and undici loaded, on the first request. undici is the largest module the
 * gateway uses (about 100 files: tens of milliseconds at start and a few MB resident on a small
 * box, docs/benchmarks.md), and an idle gateway sends no HTTP request: directives, audio fetches
 * and camera probes load it when they first need it.
 */
import type { Agent, Dispatcher, request } from 'undici';

/** undici's request options, less the dispatcher (the agent is the dispatcher). */
export type HttpRequestOptions = Omit<NonNullable<Parameters<typeof request>[1]>, 'dispatcher'>;

export class LazyAgent {
  private agent: Promise<Agent> | undefined;

  constructor(private readonly options: Agent.Options) {}

  /** undici's `request` through this agent. */
  async request(url: string | URL, options: HttpRequestOptions = {}): Promise<Dispatcher.ResponseData<unknown>> {
    this.agent ??= import('undici').then((undici) => new undici.Agent(this.options));
    const [undici, dispatcher] = await Promise.all([import('undici'), this.agent]);
    return undici.request(url, { ...options, dispatcher });
  }

  /** Closes the agent's connections at once (in-flight requests fail), if it was ever made. */
  async destroy(): Promise<void> {
    if (this.agent) await (await this.agent).destroy();
  }
}
