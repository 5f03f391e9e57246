/**
 * The gateway's metrics in the Prometheus text format, built on prom-client with a registry of its
 * own (never prom-client's global one: two gateways in one process, as in tests, keep theirs
 * apart). Counters move as things happen (requests, events, commands, store writes); gauges and
 * driver counters are read when scraped. Served at `GET /metrics` (src/http/health), off by
 * default (docs/operations.md). prom-client is loaded only when metrics are on: it costs about
 * 12 MB of memory, which a gateway on a small board without a scraper should not pay.
 */
import { createRequire } from 'node:module';
import type { Counter, Histogram, Registry } from 'prom-client';
import type { CommandObserver, DeviceService, DriverCommand, Outcome } from '../../core/devices/index.ts';
import type { EventBus } from '../../core/event-bus.ts';

/** What the metrics read when scraped. */
export interface MetricsSources {
  devices: DeviceService;
  bus: EventBus;
  /** Each event stream audience: its clients now, and the slow clients it cut so far. */
  streams: readonly { audience: string; clients(): number; cut(): number }[];
}

/** Buckets (seconds) of command latency: a command waits at most about 4 s (D4). */
const COMMAND_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 4, 5];
/** Buckets (seconds) of a store write: a commit with `synchronous=FULL` is an fsync. */
const WRITE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export class GatewayMetrics implements CommandObserver {
  readonly registry: Registry;
  private readonly requests: Counter<'route' | 'method' | 'outcome'>;
  private readonly events: Counter<'event'>;
  private readonly commands: Counter<'driver' | 'command' | 'outcome'>;
  private readonly commandSeconds: Histogram<'driver' | 'command'>;
  private readonly writeSeconds: Histogram;

  constructor(sources: MetricsSources) {
    const { Counter, Gauge, Histogram, Registry } = createRequire(import.meta.url)(
      'prom-client',
    ) as typeof import('prom-client');
    this.registry = new Registry();
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'opencube_http_requests_total',
      help: 'HTTP requests answered, by route and outcome (the envelope error code on the Open API, else the HTTP status)',
      labelNames: ['route', 'method', 'outcome'],
      registers,
    });
    this.events = new Counter({
      name: 'opencube_events_published_total',
      help: 'Events published on the event bus, by event',
      labelNames: ['event'],
      registers,
    });
    sources.bus.subscribe((e) => this.events.inc({ event: e.name }));
    new Gauge({
      name: 'opencube_event_stream_clients',
      help: 'Event stream clients connected now, by audience',
      labelNames: ['audience'],
      registers,
      collect() {
        for (const s of sources.streams) this.set({ audience: s.audience }, s.clients());
      },
    });
    // Clients cut, not events: the events a cut client missed are not lost (it resumes with
    // Last-Event-ID from the replay ring), so a count of them would say nothing true.
    new Counter({
      name: 'opencube_event_stream_clients_cut_total',
      help: 'Event stream clients cut for being too slow (each resumes with Last-Event-ID), by audience',
      labelNames: ['audience'],
      registers,
      collect() {
        this.reset();
        for (const s of sources.streams) this.inc({ audience: s.audience }, s.cut());
      },
    });
    this.commands = new Counter({
      name: 'opencube_device_commands_total',
      help: 'Commands (directives) sent to devices through their driver, by outcome (ok, an error code, timeout, fault)',
      labelNames: ['driver', 'command', 'outcome'],
      registers,
    });
    this.commandSeconds = new Histogram({
      name: 'opencube_device_command_seconds',
      help: 'Time from sending a command to a device to its outcome',
      labelNames: ['driver', 'command'],
      buckets: COMMAND_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'opencube_devices',
      help: 'Devices, by driver and online state',
      labelNames: ['driver', 'online'],
      registers,
      collect() {
        this.reset();
        const counts = new Map<string, { driver: string; online: string; n: number }>();
        for (const d of sources.devices.registry.list()) {
          const key = `${d.driver}\u0000${d.online}`;
          const c = counts.get(key) ?? { driver: d.driver, online: String(d.online), n: 0 };
          c.n++;
          counts.set(key, c);
        }
        for (const c of counts.values()) this.set({ driver: c.driver, online: c.online }, c.n);
      },
    });
    new Counter({
      name: 'opencube_mqtt_reconnects_total',
      help: 'Connections to the MQTT broker made again after it went away, by driver',
      labelNames: ['driver'],
      registers,
      collect() {
        this.reset();
        for (const { driver, counters } of sources.devices.counters())
          if (counters.mqtt_reconnects !== undefined) this.inc({ driver }, counters.mqtt_reconnects);
      },
    });
    new Gauge({
      name: 'opencube_driver_ready',
      help: 'Whether each driver is connected to what it drives (1) or not (0), as GET /ready reports',
      labelNames: ['driver'],
      registers,
      collect() {
        for (const r of sources.devices.readiness()) this.set({ driver: r.driver }, r.ok ? 1 : 0);
      },
    });
    this.writeSeconds = new Histogram({
      name: 'opencube_store_write_seconds',
      help: 'Time of each write of the device store committed to disk (one statement, or one transaction)',
      buckets: WRITE_BUCKETS,
      registers,
    });
  }

  /** One answered HTTP request. */
  request(route: string, method: string, outcome: string): void {
    this.requests.inc({ route, method, outcome });
  }

  commandDone(command: DriverCommand, outcome: Outcome | { ok: false; fault: true }, ms: number): void {
    const labels = { driver: command.device.driver, command: command.kind };
    const result = outcome.ok
      ? 'ok'
      : 'fault' in outcome
        ? 'fault'
        : outcome.offline
          ? 'timeout'
          : String(outcome.code);
    this.commands.inc({ ...labels, outcome: result });
    this.commandSeconds.observe(labels, ms / 1000);
  }

  /** One write of the store, in milliseconds. */
  storeWrite(ms: number): void {
    this.writeSeconds.observe(ms / 1000);
  }

  /** The metrics in the Prometheus text format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
