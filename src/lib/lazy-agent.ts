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
  private loading: Promise<Loaded> | undefined;
  /**
   * Kept once loaded: an `await import()` on every request is a module resolution each time (under
   * tsx, a round trip to its loader thread: a quarter of a directive's CPU time, issue 29).
   */
  private loaded: Loaded | undefined;

  constructor(private readonly options: Agent.Options) {}

  /** undici's `request` through this agent. */
  async request(url: string | URL, options: HttpRequestOptions = {}): Promise<Dispatcher.ResponseData<unknown>> {
    const { request, agent } = this.loaded ?? (await this.load());
    return request(url, { ...options, dispatcher: agent });
  }

  private load(): Promise<Loaded> {
    this.loading ??= import('undici').then((undici) => {
      this.loaded = { request: undici.request, agent: new undici.Agent(this.options) };
      return this.loaded;
    });
    return this.loading;
  }

  /** Closes the agent's connections at once (in-flight requests fail), if it was ever made. */
  async destroy(): Promise<void> {
    if (this.loading) await (await this.loading).agent.destroy();
  }
}

interface Loaded {
  request: typeof request;
  agent: Agent;
}
