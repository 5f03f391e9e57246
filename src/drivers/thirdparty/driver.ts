/**
 * The third-party driver: devices synced by other services through T1 (events.ts) and
 * controlled through directives to their service address (T2). A directive that gets no answer
 * marks the device offline; it comes back only with a state or online report (spec 3).
 */

import { ErrorCode, type ErrorCodeValue, errorMessages, SERVICE_FAILED } from '../../catalog/errors.ts';
import { type CapabilityObject, deviceLimits, sanitizeReport, tooLarge } from '../../catalog/index.ts';
import type { DeviceRecord, Driver, DriverCommand, DriverHost, Outcome } from '../../core/devices/contract.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { isObject } from '../../lib/object.ts';
import { DirectiveClient, type DirectiveReply } from './directives.ts';

export const THIRDPARTY_DRIVER = 'thirdparty';

/** The directive error types that say the device itself cannot be reached now. */
const OFFLINE_TYPES = new Set(['ENDPOINT_UNREACHABLE', 'ENDPOINT_LOW_POWER']);

/** Fields that toggle (`powerState: toggle`) and the deltas a command may carry instead of a value. */
const TOGGLE_FIELDS = new Set(['powerState', 'toggleState']);

/** Resolves a command into the state it leads to: `toggle` flips the known value, `*Delta` moves it (0..100). */
function resolveCommand(command: unknown, current: unknown): unknown {
  if (!isObject(command)) return command;
  const cur = isObject(current) ? current : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(command)) {
    if (TOGGLE_FIELDS.has(k) && v === 'toggle') {
      if (cur[k] === 'on') out[k] = 'off';
      else if (cur[k] === 'off') out[k] = 'on';
      continue;
    }
    if (k.endsWith('Delta') && typeof v === 'number') {
      const base = k.slice(0, -'Delta'.length);
      const now = cur[base];
      if (typeof now === 'number') out[base] = Math.min(100, Math.max(0, now + v));
      continue;
    }
    out[k] = isObject(v) ? resolveCommand(v, cur[k]) : v;
  }
  return out;
}

export class ThirdPartyDriver implements Driver {
  readonly id = THIRDPARTY_DRIVER;
  private host: DriverHost | undefined;
  private readonly client: DirectiveClient;

  constructor(
    timeoutMs: number,
    private readonly log?: Log,
    private readonly clock: Clock = systemClock,
  ) {
    this.client = new DirectiveClient(timeoutMs, clock, log);
  }

  async start(host: DriverHost): Promise<void> {
    this.host = host;
  }

  async stop(): Promise<void> {
    await this.client.close();
  }

  async execute(command: DriverCommand): Promise<Outcome> {
    const d = command.device;
    switch (command.kind) {
      case 'update-state': {
        const reply = await this.directive(d, 'UpdateDeviceStates', { state: command.state }, command.deadline);
        if (reply.kind !== 'ok') return this.failed(d, reply, ErrorCode.DEVICE_UPDATE_FAILED);
        // What the device now is: the command resolved against the known state, cleaned as a report.
        const next = resolveCommand(command.state, d.state);
        return { ok: true, state: sanitizeReport(d.capabilities, next).state };
      }
      case 'query-state': {
        const reply = await this.directive(d, 'QueryDeviceStates', { state: command.query }, command.deadline);
        if (reply.kind !== 'ok') return this.failed(d, reply, ErrorCode.DEVICE_UPDATE_FAILED);
        const result = isObject(reply.payload.state) ? reply.payload.state : {};
        // The result goes out as one event: bounded like any state (catalog/limits.ts).
        const large = tooLarge(result, deviceLimits.stateChars, 'the query result');
        if (large)
          return this.failed(d, { kind: 'failed', reason: large, offline: false }, ErrorCode.DEVICE_UPDATE_FAILED);
        const known = new Set(d.capabilities.map((c: CapabilityObject) => c.capability));
        const state: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(result)) if (known.has(k)) state[k] = v;
        return { ok: true, state };
      }
      case 'configure': {
        const reply = await this.directive(
          d,
          'ConfigureDeviceCapabilities',
          { capabilities: command.capabilities },
          command.deadline,
        );
        if (reply.kind !== 'ok') return this.failed(d, reply, ErrorCode.DEVICE_CONFIG_FAILED);
        return { ok: true };
      }
      case 'remove':
        // The spec has no directive for a removal: the service learns of it when its device is gone.
        return { ok: true };
    }
  }

  private directive(
    d: DeviceRecord,
    name: string,
    payload: Record<string, unknown>,
    deadline?: number,
  ): Promise<DirectiveReply> {
    const version = typeof d.extra.version === 'string' ? d.extra.version : '1';
    // The service address may carry a password: the logger takes it out of every line.
    this.log?.debug(
      { serial_number: d.serial_number, directive: name, address: d.service_address },
      'third-party directive',
    );
    this.log?.trace?.({ serial_number: d.serial_number, directive: name, payload }, 'third-party directive payload');
    return this.client.send(
      d.service_address ?? '',
      name,
      version,
      { serial_number: d.serial_number, third_serial_number: d.third_serial_number ?? '', tags: d.tags ?? {} },
      payload,
      deadline === undefined ? undefined : deadline - this.clock.now(),
    );
  }

  private failed(d: DeviceRecord, reply: Exclude<DirectiveReply, { kind: 'ok' }>, code: ErrorCodeValue): Outcome {
    if (reply.kind === 'failed') {
      // The activity log says that it failed; the reason (refused, an HTTP status, a timeout) is at
      // debug level only (issue 16: a network map is not kept where more eyes read), and the client
      // gets SERVICE_FAILED only.
      this.log?.info({ serial_number: d.serial_number }, `third-party directive failed: ${d.name}`);
      this.log?.debug({ serial_number: d.serial_number, reason: reply.reason }, 'third-party directive failed');
      return {
        ok: false,
        code: ErrorCode.THIRD_PARTY_UNREACHABLE,
        message: `${errorMessages[ErrorCode.THIRD_PARTY_UNREACHABLE]}: ${SERVICE_FAILED}`,
        offline: reply.offline,
      };
    }
    const why = reply.description ? `${reply.type} (${reply.description})` : reply.type;
    const c = OFFLINE_TYPES.has(reply.type) ? ErrorCode.DEVICE_OFFLINE : code;
    return { ok: false, code: c, message: `${errorMessages[c]}: the service answered ${why}` };
  }

  /** The host this driver feeds (set at start). */
  get registry(): DriverHost {
    if (!this.host) throw new Error('the third-party driver is not started');
    return this.host;
  }
}
