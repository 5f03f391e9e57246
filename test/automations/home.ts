/**
 * A home for the automation tests: a real test gateway (its store, bus, device service, alarm,
 * speaker with a recording sink, and its automation engine) on a manual clock, optionally with
 * devices on the simulated Zigbee network (a Zigbee2MQTT simulator on its own embedded broker, as
 * a real Zigbee2MQTT runs beside the gateway and outlives its restarts).
 */

import type { Logger } from 'pino';
import type { AutomationEngine, DefinitionInput } from '../../src/automations/index.ts';
import type { NotRunOptions } from '../../src/automations/not-run.ts';
import type { BusEvent, EventName } from '../../src/core/event-bus.ts';
import { RecordingSink } from '../../src/drivers/audio/recording-sink.ts';
import { type SimNetwork, startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import type { Gateway } from '../../src/gateway.ts';
import { ManualClock, settle } from '../helpers/clock.ts';
import { startGateway, type TestGateway } from '../helpers/foundation.ts';

export const S = 1000;
export const MIN = 60 * S;

export interface Home {
  g: TestGateway;
  clock: ManualClock;
  sink: RecordingSink;
  engine: AutomationEngine;
  net?: SimNetwork;
  /** Events of the gateway's bus since it was built (this gateway's, its engine's start among them). */
  events: BusEvent[];
  /** The serial number and the simulator's IEEE address of the first device of a model. */
  device(model: string): { serial: string; ieee: string };
  /**
   * Stops the engine and the gateway, lets `downMs` pass on the clock while they are down, and
   * starts both again on the same data folder (the Zigbee network stays up, as Zigbee2MQTT does).
   */
  restart(downMs?: number): Promise<Home>;
  /** Stops and starts the engine of the running gateway (a restart of the engine alone: it keeps nothing in memory). */
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
  /** The gateway's logger (a test that reads what was logged). */
  log?: Logger;
  /** How the traces of triggers not run are batched (default: the engine's, once a minute). */
  notRun?: NotRunOptions;
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
  /** Events of the gateway now running, from before its engine started. */
  let events: BusEvent[] = [];
  const beforeStart = (gateway: Gateway) => {
    const mine: BusEvent[] = [];
    events = mine;
    gateway.bus.subscribe((e) => mine.push(e));
  };
  const launch = async (g: TestGateway): Promise<Home> => {
    if (net) {
      // Every simulated device announced (the driver's start is done when the gateway's is).
      await until(() => g.gateway.devices.registry.list().length >= (opts.zigbee as number));
    }
    const engine = g.gateway.automations();
    if (!engine) throw new Error('the gateway has no automation engine');
    const home: Home = {
      g,
      clock,
      sink,
      net,
      events,
      engine,
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
        // The time down passes between the stop and the start, as for a gateway that was off.
        return launch(await g.restart(() => clock.advance(downMs)));
      },
      restartEngine() {
        home.engine.stop();
        home.engine.start();
      },
      async stop() {
        await g.stop();
        await net?.stop();
      },
    };
    return home;
  };
  const gatewayOptions = {
    clock,
    audio: { sink },
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.notRun ? { integrations: { automations: { notRun: opts.notRun } } } : {}),
  };
  const g = await startGateway({ overrides, gatewayOptions, beforeStart });
  return launch(g);
}

/** The events of one name. */
export function named<N extends EventName>(events: BusEvent[], name: N): BusEvent<N>[] {
  return events.filter((e) => e.name === name) as BusEvent<N>[];
}

/** The motion automation of the issue: the light on, two minutes, the light off (restarted by new motion). */
export function hallLight(motion: string, light: string): DefinitionInput {
  return {
    kind: 'automation',
    name: 'Hall light on motion',
    mode: 'restart',
    triggers: [{ type: 'state', device: motion, capability: 'motion', to: true }],
    actions: [
      { type: 'device', device: light, state: { power: { powerState: 'on' } } },
      { type: 'delay', seconds: 120 },
      { type: 'device', device: light, state: { power: { powerState: 'off' } } },
    ],
  };
}
