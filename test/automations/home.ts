/**
 * A home for the automation tests: a real test gateway (its store, bus, device service, alarm,
 * speaker with a recording sink) on a manual clock, optionally with devices on the simulated
 * Zigbee network (a Zigbee2MQTT simulator on its own embedded broker, as a real Zigbee2MQTT runs
 * beside the gateway and outlives its restarts), and the automation engine built on the
 * gateway's services through corePorts, as the gateway will build it.
 */

import type { AutomationEngine } from '../../src/automations/index.ts';
import type { BusEvent, EventName } from '../../src/core/event-bus.ts';
import { RecordingSink } from '../../src/drivers/audio/recording-sink.ts';
import { type SimNetwork, startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { ManualClock, settle } from '../helpers/clock.ts';
import { startGateway, type TestGateway } from '../helpers/foundation.ts';
import { engineOn } from './engine-on.ts';

export const S = 1000;
export const MIN = 60 * S;

export interface Home {
  g: TestGateway;
  clock: ManualClock;
  sink: RecordingSink;
  engine: AutomationEngine;
  net?: SimNetwork;
  /** Events of the gateway's bus since the engine started (this gateway's). */
  events: BusEvent[];
  /** The serial number and the simulator's IEEE address of the first device of a model. */
  device(model: string): { serial: string; ieee: string };
  /**
   * Stops the engine and the gateway, lets `downMs` pass on the clock while they are down, and
   * starts both again on the same data folder (the Zigbee network stays up, as Zigbee2MQTT does).
   */
  restart(downMs?: number): Promise<Home>;
  /** Builds a new engine on the same running gateway (a restart of the engine alone). */
  restartEngine(): void;
  stop(): Promise<void>;
}

export interface HomeOptions {
  /** Simulated Zigbee devices (the fixtures in order); 0: no Zigbee. */
  zigbee?: number;
  timeZone?: string;
  location?: string;
  graceMinutes?: number;
  /** The clock's start (epoch ms). */
  at?: number;
}

/** Waits (real time, for the network) until `pred` holds; fails after `ms`. */
export async function until<T>(
  pred: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 10_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await settle(20);
  }
}

/** Starts a home; stop() it in t.after. */
export async function startHome(opts: HomeOptions = {}): Promise<Home> {
  const net =
    opts.zigbee && opts.zigbee > 0
      ? await startSimNetwork({
          baseTopics: ['zigbee2mqtt'],
          devices: opts.zigbee,
          sim: { reportIntervalMs: 0, joinDelayMs: 50, interviewMs: 50, responseDelayMs: 5 },
        })
      : undefined;
  const clock = new ManualClock(opts.at ?? Date.UTC(2025, 0, 6, 12));
  const sink = new RecordingSink(clock);
  const overrides = {
    ...(net ? { zigbee: { mode: 'z2m', mqtt_url: net.url, base_topics: 'zigbee2mqtt' } } : {}),
    time_zone: opts.timeZone ?? 'Europe/Berlin',
    location: opts.location ?? '52.52,13.405',
    automations: { grace_minutes: opts.graceMinutes ?? 15 },
  };
  const launch = async (g: TestGateway): Promise<Home> => {
    const events: BusEvent[] = [];
    const build = () => {
      const engine = engineOn(g.gateway, clock, g.url);
      engine.start();
      return engine;
    };
    const off = g.gateway.bus.subscribe((e) => events.push(e));
    if (net) {
      // Every simulated device announced (the driver's start is done when the gateway's is).
      await until(() => g.gateway.devices.registry.list().length >= (opts.zigbee as number));
    }
    const home: Home = {
      g,
      clock,
      sink,
      net,
      events,
      engine: build(),
      device(model) {
        const sim = net
          ?.sim()
          .list()
          .find((d) => d.fixture.model === model);
        const d = g.gateway.devices.registry.list().find((x) => x.model === model);
        if (!sim || !d) throw new Error(`no ${model}`);
        return { serial: d.serial_number, ieee: sim.ieee };
      },
      async restart(downMs = 0) {
        home.engine.stop();
        off();
        const next = await g.restart();
        // The engine starts after the gateway (as it will in the gateway): the time down passes before it.
        clock.advance(downMs);
        return launch(next);
      },
      restartEngine() {
        home.engine.stop();
        home.engine = build();
      },
      async stop() {
        home.engine.stop();
        off();
        await g.stop();
        await net?.stop();
      },
    };
    return home;
  };
  const g = await startGateway({ overrides, gatewayOptions: { clock, audio: { sink } } });
  return launch(g);
}

/** The events of one name. */
export function named<N extends EventName>(events: BusEvent[], name: N): BusEvent<N>[] {
  return events.filter((e) => e.name === name) as BusEvent<N>[];
}
