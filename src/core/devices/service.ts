/**
 * The device service: what clients ask of devices (D1, D4, D5, D6), validated by the catalog,
 * routed to the driver that owns the device, and applied to the registry by the outcome.
 * Expected failures are values (`Failure`); faults of a driver are exceptions.
 */
import { isDeepStrictEqual } from 'node:util';
import { ErrorCode, type Failed, failure } from '../../catalog/errors.ts';
import {
  applySettingsUpdate,
  type CapabilityObject,
  deviceLimits,
  tooLarge,
  validateCommand,
  validateQuery,
  validateTags,
  withEveryChannel,
} from '../../catalog/index.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { isObject } from '../../lib/object.ts';
import { type Actor, actorWords, appNameOf } from '../actor.ts';
import type { DeviceRecord, Driver, DriverCommand, Outcome, Pairing, Provisioning, Readiness } from './contract.ts';
import type { DeviceRegistry } from './registry.ts';

export type Done = { ok: true } | Failed;

const MAX_NAME_LENGTH = deviceLimits.nameChars;
/** The most one D4 call may wait on drivers in all. */
const UPDATE_BUDGET_MS = 4000;

function invalid(errors: string[]): Failed {
  return { ok: false, ...failure(ErrorCode.INVALID_PARAMETERS, errors.join('; ')) };
}

/**
 * A command with the device's former channel names (`extra.channel_aliases`, e.g. a Zigbee
 * `left` now served as channel `1`) renamed to the served ones, so clients written against
 * either keep working. A name that is also served as it is stays as it is.
 */
function withChannelAliases(state: unknown, device: DeviceRecord): unknown {
  const aliases = device.extra.channel_aliases;
  if (!isObject(aliases) || !isObject(state)) return state;
  const out: Record<string, unknown> = {};
  for (const [capability, body] of Object.entries(state)) {
    if (!isObject(body)) {
      out[capability] = body;
      continue;
    }
    const names = new Set(device.capabilities.filter((c) => c.capability === capability).map((c) => c.name));
    const renamed: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(body)) {
      const to = Object.hasOwn(aliases, name) && !names.has(name) ? aliases[name] : undefined;
      renamed[typeof to === 'string' && names.has(to) && !(to in body) ? to : name] = value;
    }
    out[capability] = renamed;
  }
  return out;
}

/** A D4 body after validation: what to do, in order. */
interface Plan {
  name?: string;
  tags?: Record<string, unknown>;
  state?: Record<string, unknown>;
  /** The capability entries that change (sent to the driver). */
  capabilities?: { changed: CapabilityObject[] };
}

/** Told of every command a driver ran: what it was, how it ended, how long it took (gateway clock). */
export interface CommandObserver {
  commandDone(command: DriverCommand, outcome: Outcome | { ok: false; fault: true }, ms: number): void;
}

/** The readiness of one driver. */
export interface DriverReadiness extends Readiness {
  driver: string;
}

/** How long a request waits for its driver to finish starting (the gateway answers while its drivers start). */
export const DRIVER_START_WAIT_MS = 3000;

export class DeviceService {
  private readonly drivers = new Map<string, Driver>();
  private readonly observers: CommandObserver[] = [];
  private started = false;
  /** Set by loadingDrivers(): the drivers are being loaded and registered, and will start. */
  private loading = false;
  /**
   * The drivers whose start() has completed. The gateway answers requests while the others still
   * start (it listens first): until then, a driver is answered for as one that is not running.
   */
  private readonly running = new Set<string>();
  /** Requests waiting for a driver to finish its start (by driver id). */
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(
    readonly registry: DeviceRegistry,
    private readonly log?: Log,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Registers a driver (before start); start() starts every registered driver. */
  addDriver(driver: Driver): void {
    if (this.started) throw new Error(`driver ${driver.id} registered after the drivers started`);
    if (this.drivers.has(driver.id)) throw new Error(`driver ${driver.id} is already registered`);
    this.drivers.set(driver.id, driver);
  }

  /** The driver `id` once it has started. */
  driver(id: string): Driver | undefined {
    return this.running.has(id) ? this.drivers.get(id) : undefined;
  }

  /**
   * Says that the drivers are being loaded (the gateway listens before it loads them): until
   * start() has run, requests that need a driver wait for it as for a driver that is starting.
   */
  loadingDrivers(): void {
    this.loading = true;
  }

  /** Whether a request for driver `id` (`*`: any driver) must wait: its driver is loading or starting. */
  private mustWait(id: string): boolean {
    if (this.loading && !this.started) return true;
    return id !== '*' && this.started && this.drivers.has(id) && !this.running.has(id);
  }

  /**
   * The driver `id` once it has started. A request that arrives while it loads or starts (the
   * gateway listens first) waits for the start, up to DRIVER_START_WAIT_MS on the gateway's clock,
   * so a client that asks at once is answered as it would be a moment later; after that it is
   * answered for as a driver that is not running.
   */
  private async startedDriver(id: string): Promise<Driver | undefined> {
    await this.afterStart(id);
    return this.driver(id);
  }

  /** Waits (bounded) until driver `id` (`*`: every driver) has been loaded and started. */
  private async afterStart(id: string): Promise<void> {
    if (!this.mustWait(id)) return;
    await new Promise<void>((resolve) => {
      const set = this.waiting.get(id) ?? new Set();
      this.waiting.set(id, set);
      const done = () => {
        cancel();
        set.delete(done);
        resolve();
      };
      const cancel = this.clock.setTimer(DRIVER_START_WAIT_MS, done);
      set.add(done);
    });
  }

  /** Marks a driver started (or its start ended) and lets the requests waiting for it go on. */
  private settle(id: string): void {
    for (const done of [...(this.waiting.get(id) ?? [])]) done();
    this.waiting.delete(id);
  }

  /** The drivers that have started, in registration order. */
  live(): Driver[] {
    return [...this.drivers.values()].filter((d) => this.running.has(d.id));
  }

  /** Adds an observer of every command (metrics, the third-party debug log). */
  observe(observer: CommandObserver): void {
    this.observers.push(observer);
  }

  /** Each running driver's readiness (a driver that does not say is ready). */
  readiness(): DriverReadiness[] {
    if (this.loading && !this.started) return [{ driver: 'drivers', ok: false, reason: 'starting' }];
    return [...this.drivers.values()].map((d) => ({
      driver: d.id,
      ...(this.running.has(d.id) ? (d.ready?.() ?? { ok: true }) : { ok: false, reason: 'starting' }),
    }));
  }

  /** Each driver's counters (`mqtt_reconnects`), for metrics. */
  counters(): { driver: string; counters: Readonly<Record<string, number>> }[] {
    return [...this.drivers.values()].flatMap((d) => (d.counters ? [{ driver: d.id, counters: d.counters() }] : []));
  }

  /** Starts every registered driver (in registration order). */
  async start(): Promise<void> {
    this.started = true;
    try {
      for (const d of this.drivers.values()) {
        try {
          await d.start(this.registry);
          this.running.add(d.id);
        } finally {
          this.settle(d.id);
        }
      }
    } finally {
      // Requests that waited while the drivers loaded: for any driver, or one that was not loaded.
      for (const id of [...this.waiting.keys()]) this.settle(id);
    }
  }

  /** Stops every driver; one failing stop does not keep the others running. */
  async stop(): Promise<void> {
    this.started = false;
    this.running.clear();
    for (const id of [...this.waiting.keys()]) this.settle(id);
    await Promise.all(
      [...this.drivers.values()].map((d) =>
        d.stop().catch((err) => this.log?.error({ err, driver: d.id }, 'driver stop failed')),
      ),
    );
  }

  /** Routes a command to the device's driver, and applies what the outcome says (offline, state). */
  async execute(command: DriverCommand): Promise<Outcome> {
    const device = command.device;
    const driver = await this.startedDriver(device.driver);
    if (!driver) {
      return {
        ok: false,
        code: ErrorCode.DEVICE_UPDATE_FAILED,
        message: `the ${device.driver} driver of this device is not running`,
      };
    }
    const started = this.clock.now();
    let outcome: Outcome;
    try {
      outcome = await driver.execute(command);
    } catch (err) {
      this.notify(command, { ok: false, fault: true }, started);
      throw err;
    }
    this.notify(command, outcome, started);
    if (!outcome.ok) {
      if (outcome.offline) this.registry.onlineChanged(device.serial_number, false);
      return outcome;
    }
    if (outcome.state && Object.keys(outcome.state).length > 0) {
      if (command.kind === 'query-state') this.registry.emitQueryResult(device.serial_number, outcome.state);
      else if (command.kind === 'update-state') this.registry.stateReported(device.serial_number, outcome.state);
    }
    return outcome;
  }

  private notify(command: DriverCommand, outcome: Outcome | { ok: false; fault: true }, started: number): void {
    const ms = this.clock.now() - started;
    for (const o of this.observers) {
      try {
        o.commandDone(command, outcome, ms);
      } catch (err) {
        this.log?.error({ err }, 'command observer failed');
      }
    }
  }

  /**
   * D4: validates the whole body first, then configures, controls, and renames/retags, in that
   * order. `actor` names who asked (an app by its name, the console and its session, Home
   * Assistant, Matter, an automation) in the activity log: one line per command.
   */
  async update(serial: string, body: Record<string, unknown>, actor?: Actor): Promise<Done> {
    const done = await this.apply(serial, body, actor);
    const name = this.registry.get(serial)?.name ?? serial;
    const what = Object.keys(body).join(', ') || 'nothing';
    const who = actorWords(actor);
    const app_name = appNameOf(actor);
    if (done.ok)
      this.log?.info(
        { serial_number: serial, app_name, by: who, body: what },
        `${who} changed ${name} (${what}): done`,
      );
    else
      this.log?.info(
        { serial_number: serial, app_name, by: who, error: done.code },
        `${who} changed ${name} (${what}): refused, ${done.message}`,
      );
    return done;
  }

  private async apply(serial: string, body: Record<string, unknown>, actor: Actor | undefined): Promise<Done> {
    const device = this.registry.get(serial);
    if (!device) return { ok: false, ...failure(ErrorCode.DEVICE_NOT_FOUND) };
    const plan = this.plan(device, body);
    if ('code' in plan) return plan;
    // Configuring and controlling are two round trips to the device; together they must still
    // answer well inside the 5 s clients wait (COMPAT.md).
    const deadline = this.clock.now() + UPDATE_BUDGET_MS;

    if (plan.capabilities && plan.capabilities.changed.length > 0) {
      const outcome = await this.execute({
        kind: 'configure',
        device,
        capabilities: plan.capabilities.changed,
        deadline,
      });
      if (!outcome.ok) return outcome;
      // Applied again onto the capabilities as they are now, not as they were before the round
      // trip: another D4 or a report that changed other settings meanwhile is kept.
      const now = this.registry.get(serial);
      if (!now) return { ok: false, ...failure(ErrorCode.DEVICE_NOT_FOUND) };
      const errors: string[] = [];
      const capabilities = this.applyCapabilities(now.capabilities, body, errors);
      if (errors.length > 0) return invalid(errors);
      this.registry.updateLocal(serial, { capabilities });
    }
    if (plan.state && Object.keys(plan.state).length > 0) {
      const current = this.registry.get(serial);
      if (!current) return { ok: false, ...failure(ErrorCode.DEVICE_NOT_FOUND) };
      const outcome = await this.execute({ kind: 'update-state', device: current, state: plan.state, deadline });
      if (!outcome.ok) return outcome;
    }
    if (plan.name !== undefined || plan.tags !== undefined) {
      if (!this.registry.updateLocal(serial, { userName: plan.name, tags: plan.tags, ...(actor ? { by: actor } : {}) }))
        return { ok: false, ...failure(ErrorCode.DEVICE_NOT_FOUND) };
    }
    return { ok: true };
  }

  private plan(device: DeviceRecord, body: Record<string, unknown>): Plan | Failed {
    const errors: string[] = [];
    const plan: Plan = {};
    if (body.name !== undefined) {
      if (typeof body.name !== 'string') errors.push(`name: ${JSON.stringify(body.name)} is not a string`);
      else if (body.name.trim() === '') errors.push('name: must not be empty');
      else if (body.name.length > MAX_NAME_LENGTH) errors.push(`name: longer than ${MAX_NAME_LENGTH} characters`);
      else plan.name = body.name;
    }
    if (body.tags !== undefined) {
      const r = validateTags(body.tags, 'tags');
      const large = tooLarge(body.tags, deviceLimits.tagsChars, 'tags');
      if (large) errors.push(large);
      else if (r.ok) plan.tags = body.tags as Record<string, unknown>;
      else errors.push(...r.errors);
    }
    const caps = this.applyCapabilities(device.capabilities, body, errors);
    if (caps !== device.capabilities) {
      const changed = caps.filter((c) => !device.capabilities.some((o) => isDeepStrictEqual(o, c)));
      plan.capabilities = { changed };
    }
    const largeState = tooLarge(body.state, deviceLimits.stateChars, 'state');
    if (largeState) errors.push(largeState);
    else if (body.state !== undefined) {
      const r = validateCommand(caps, withEveryChannel(caps, withChannelAliases(body.state, device)), 'state');
      if (r.ok) plan.state = r.value;
      else errors.push(...r.errors);
    }
    return errors.length > 0 ? invalid(errors) : plan;
  }

  /** D4 `capabilities` and `configuration` applied onto `caps`; returns `caps` itself when neither is given. */
  private applyCapabilities(
    caps: CapabilityObject[],
    body: Record<string, unknown>,
    errors: string[],
  ): CapabilityObject[] {
    if (body.capabilities !== undefined) {
      const r = applySettingsUpdate(caps, body.capabilities, { source: 'client' }, 'capabilities');
      if (r.ok) caps = r.value;
      else errors.push(...r.errors);
    }
    if (body.configuration !== undefined) {
      const configured = this.configure(caps, body.configuration);
      if (configured.ok) caps = configured.value;
      else errors.push(...configured.errors);
    }
    return caps;
  }

  /** D4 `configuration`: only camera streams have one (spec 4.2); merged into the camera-stream capability. */
  private configure(
    caps: CapabilityObject[],
    configuration: unknown,
  ): { ok: true; value: CapabilityObject[] } | { ok: false; errors: string[] } {
    if (!isObject(configuration))
      return { ok: false, errors: [`configuration: ${JSON.stringify(configuration)} is not an object`] };
    const camera = caps.find((c) => c.capability === 'camera-stream');
    if (!camera)
      return { ok: false, errors: ['configuration: only a camera (camera-stream capability) has a configuration'] };
    const incoming = [{ ...camera, configuration: { ...camera.configuration, ...configuration } }];
    const r = applySettingsUpdate(caps, incoming, { source: 'client' }, 'configuration');
    return r.ok
      ? r
      : { ok: false, errors: r.errors.map((e) => e.replace(/^configuration\.0\.configuration/, 'configuration')) };
  }

  /** D5: the driver removes the device on its side, then the registry forgets it (the line names `by`). */
  async remove(serial: string, by?: Actor): Promise<Done> {
    const device = this.registry.get(serial);
    if (!device) return { ok: false, ...failure(ErrorCode.DEVICE_NOT_FOUND) };
    // Whether its driver is configured is known once the drivers are loaded.
    await this.afterStart(device.driver);
    if (this.drivers.has(device.driver)) {
      const driver = this.driver(device.driver);
      if (!driver)
        return {
          ok: false,
          ...failure(ErrorCode.DEVICE_UPDATE_FAILED, `the ${device.driver} driver of this device is not running`),
        };
      const outcome = await driver.execute({ kind: 'remove', device });
      if (!outcome.ok) return outcome;
    }
    this.registry.deviceLeft(serial, by);
    return { ok: true };
  }

  /** D6: a validated query sent to the driver; the result arrives as an updateDeviceState event. */
  async query(serial: string, capability: string, queryState: unknown): Promise<Done> {
    const device = this.registry.get(serial);
    if (!device) return { ok: false, ...failure(ErrorCode.DEVICE_NOT_FOUND) };
    const r = validateQuery(device.capabilities, capability, queryState, 'query_state');
    if (!r.ok) return invalid(r.errors);
    // Drivers get the query keyed by capability, as the spec writes it (`{power-consumption:{...}}`).
    const keys = Object.keys(r.value);
    const keyed = keys.length === 1 && keys[0] === capability && isObject(r.value[capability]);
    const query = keyed ? r.value : { [capability]: r.value };
    const outcome = await this.execute({ kind: 'query-state', device, capability, query });
    return outcome.ok ? { ok: true } : outcome;
  }

  /** D1: opens or closes pairing on every driver that pairs devices of `type` (compared in lower case). */
  async setDiscovery(type: string, enable: boolean): Promise<Done> {
    const wanted = type.toLowerCase();
    await this.afterStart('*');
    const pairing = [...this.drivers.values()].filter((d) => d.pairing?.types.includes(wanted));
    for (const d of pairing) await this.startedDriver(d.id);
    const starting = pairing.find((d) => !this.running.has(d.id));
    if (starting)
      return { ok: false, ...failure(ErrorCode.SERVER_ERROR, `the ${starting.id} driver has not started yet`) };
    if (pairing.length === 0) {
      const types = [...new Set([...this.drivers.values()].flatMap((d) => d.pairing?.types ?? []))];
      return {
        ok: false,
        ...failure(
          ErrorCode.INVALID_PARAMETERS,
          types.length === 0
            ? `type: ${JSON.stringify(type)}: no driver pairs devices here (zigbee.mode is off)`
            : `type: ${JSON.stringify(type)} is not paired here; this gateway pairs ${types.join(', ')}`,
        ),
      };
    }
    const outcomes = await Promise.all(pairing.map((d) => (d.pairing as Pairing).setDiscovery(enable)));
    const failed = outcomes.find((o) => !o.ok);
    return failed && !failed.ok ? failed : { ok: true };
  }

  /** Tells every driver the registry was cleared by a factory reset. */
  async afterReset(): Promise<void> {
    await Promise.all(this.live().map((d) => d.afterReset?.()));
  }

  /** Whether any driver is pairing now. */
  discovering(): boolean {
    return this.live().some((d) => d.pairing?.discovering() === true);
  }

  /** D2: routes a body to the driver that adds devices of its `protocol` (also spelled `protocal`). */
  async provision(
    body: unknown,
    deadline: number,
    by?: Actor,
  ): Promise<{ ok: true; data: Record<string, unknown> } | Failed> {
    await this.afterStart('*');
    const first = Array.isArray(body) ? body[0] : body;
    const raw = isObject(first) ? (first.protocol ?? first.protocal) : undefined;
    const drivers = [...this.drivers.values()].filter((d) => d.provisioning);
    const provisioning = drivers.map((d) => d.provisioning as Provisioning);
    const protocols = provisioning.flatMap((p) => p.protocols.map((x) => x.toUpperCase())).join(' or ') || '(none)';
    // By protocol; a body without one goes to the only driver that adds by hand, whose reader says what is missing.
    const target =
      typeof raw === 'string'
        ? provisioning.find((p) => p.protocols.includes(raw.toLowerCase()))
        : provisioning.length === 1
          ? provisioning[0]
          : undefined;
    if (!target)
      return invalid([
        typeof raw === 'string'
          ? `protocal: ${JSON.stringify(raw)} is not ${protocols}`
          : `protocal: required, ${protocols}`,
      ]);
    const owner = drivers[provisioning.indexOf(target)] as Driver;
    if (!(await this.startedDriver(owner.id)))
      return { ok: false, ...failure(ErrorCode.SERVER_ERROR, `the ${owner.id} driver has not started yet`) };
    const r = await target.provision(body, deadline, by);
    if (!r.ok) return { ok: false, code: r.code, message: r.message };
    return {
      ok: true,
      data: r.serial_numbers
        ? { serial_number: r.serial_number, serial_numbers: r.serial_numbers }
        : { serial_number: r.serial_number },
    };
  }
}
