/**
 * The device events of T1 (spec 4.4): DiscoveryRequest, DeviceStatesChangeReport,
 * DeviceOnlineChangeReport, DeviceInformationUpdatedReport. Each is validated as a whole before
 * anything is applied (its shape by the compiled catalog schema below, like every other body; the
 * service address, display category, capabilities and sizes by what knows them), and applied in
 * one transaction.
 */

import { type Check, compileStrict } from '../../catalog/compile-strict.ts';
import { ErrorCode } from '../../catalog/errors.ts';
import {
  applySettingsUpdate,
  type CapabilityObject,
  capabilitiesTooLarge,
  deviceLimits,
  isDisplayCategory,
  sanitizeReport,
  tooLarge,
  validateCapabilities,
  validateTags,
} from '../../catalog/index.ts';
import { any, arr, bool, obj, optOrNull, type Schema, str } from '../../catalog/schema.ts';
import {
  type DeviceAnnouncement,
  DeviceLimitReached,
  type DeviceRecord,
  type DriverHost,
} from '../../core/devices/contract.ts';
import type { DeviceEventInbox, InboundEvent, InboundResult } from '../../core/devices/inbox.ts';
import type { Log } from '../../lib/log.ts';
import { isObject } from '../../lib/object.ts';
import { checkServiceAddress } from '../../lib/service-address.ts';
import { THIRDPARTY_DRIVER } from './driver.ts';

/** At most this many endpoints in one DiscoveryRequest. */
export const MAX_DISCOVERY_ENDPOINTS = 1000;
const MAX_STRING = deviceLimits.endpointStringChars;

function fmt(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function invalid(errors: string[]): InboundResult {
  const shown = errors.slice(0, 10);
  if (errors.length > shown.length) shown.push(`and ${errors.length - shown.length} more`);
  return { ok: false, code: ErrorCode.INVALID_PARAMETERS, message: shown.join('; ') };
}

const text = str({ maxLength: MAX_STRING });
const anObject = obj({}, { open: true });

/** What each event's payload (and the endpoint it names) must be; open: senders add fields of their own. */
const SCHEMAS = {
  discovery: obj(
    {
      endpoints: arr(
        obj(
          {
            third_serial_number: str({ maxLength: MAX_STRING, nonEmpty: true }),
            name: text,
            manufacturer: text,
            model: text,
            firmware_version: text,
            hostname: optOrNull(text),
            mac_address: optOrNull(text),
            // Checked by what knows them: the address (no private ranges it may not reach), the
            // category (no cameras), the capabilities (the catalog), the sizes (catalog/limits.ts).
            service_address: any(),
            display_category: any(),
            capabilities: any(),
            tags: optOrNull(anObject),
            state: optOrNull(anObject),
          },
          { open: true },
        ),
        { minItems: 1, maxItems: MAX_DISCOVERY_ENDPOINTS },
      ),
    },
    { open: true },
  ),
  endpoint: obj(
    { serial_number: optOrNull(str()), third_serial_number: optOrNull(str()) },
    { open: true, atLeastOne: ['serial_number', 'third_serial_number'] },
  ),
  states: obj({ state: anObject }, { open: true }),
  online: obj({ online: bool() }, { open: true }),
  information: obj({ capabilities: any(), tags: optOrNull(anObject) }, { open: true }),
} satisfies Record<string, Schema>;

const CHECKS = Object.fromEntries(Object.entries(SCHEMAS).map(([k, v]) => [k, compileStrict(v)])) as Record<
  keyof typeof SCHEMAS,
  Check
>;

/** The messages of `value` against one of the schemas, at `path`. */
function check(which: keyof typeof SCHEMAS, value: unknown, path: string): string[] {
  const errors: string[] = [];
  CHECKS[which](value, path, errors);
  return errors;
}

export class ThirdPartyInbox implements DeviceEventInbox {
  readonly eventNames = [
    'DiscoveryRequest',
    'DeviceStatesChangeReport',
    'DeviceOnlineChangeReport',
    'DeviceInformationUpdatedReport',
  ] as const;

  constructor(
    private readonly host: DriverHost,
    private readonly log?: Log,
  ) {}

  handle(event: InboundEvent): InboundResult {
    if (!isObject(event.payload)) return invalid([`payload: expected an object, got ${fmt(event.payload)}`]);
    switch (event.name) {
      case 'DiscoveryRequest':
        return this.discovery(event, event.payload);
      case 'DeviceStatesChangeReport':
      case 'DeviceOnlineChangeReport':
      case 'DeviceInformationUpdatedReport': {
        const found = this.find(event);
        if (!found.ok) return found;
        if (event.name === 'DeviceStatesChangeReport') return this.states(found.device, event.payload);
        if (event.name === 'DeviceOnlineChangeReport') return this.online(found.device, event.payload);
        return this.information(found.device, event.payload);
      }
      default:
        return invalid([`header.name: ${fmt(event.name)} is not one of ${this.eventNames.join(', ')}`]);
    }
  }

  private batch<T>(fn: () => T): T {
    return this.host.batch ? this.host.batch(fn) : fn();
  }

  private discovery(event: InboundEvent, payload: Record<string, unknown>): InboundResult {
    const shape = check('discovery', payload, 'payload');
    const list = payload.endpoints;
    // A list that is not one, empty or too long: nothing of its items is read.
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_DISCOVERY_ENDPOINTS) return invalid(shape);
    const errors: string[] = [];
    const announcements: DeviceAnnouncement[] = [];
    for (const [i, e] of list.entries()) {
      const p = `payload.endpoints.${i}`;
      const own = shape.filter((m) => m.startsWith(`${p}.`) || m.startsWith(`${p}:`));
      errors.push(...own);
      if (!isObject(e)) continue;
      const before = errors.length - own.length;
      const third = e.third_serial_number as string;
      const checked = checkServiceAddress(e.service_address, `${p}.service_address`);
      if (!checked.ok) errors.push(checked.message);
      const address = checked.ok ? checked.url : undefined;
      const category = e.display_category;
      if (category === 'camera') errors.push(`${p}.display_category: cameras cannot be synced by DiscoveryRequest`);
      else if (!isDisplayCategory(category))
        errors.push(`${p}.display_category: ${fmt(category)} is not a display category`);
      // Sizes first: what one device may carry bounds every event about it (catalog/limits.ts).
      const large = [
        capabilitiesTooLarge(e.capabilities, `${p}.capabilities`),
        tooLarge(e.tags, deviceLimits.tagsChars, `${p}.tags`),
        tooLarge(e.state, deviceLimits.stateChars, `${p}.state`),
      ].filter((x) => x !== undefined);
      if (large.length > 0) {
        errors.push(...large);
        continue;
      }
      const caps = validateCapabilities(e.capabilities, `${p}.capabilities`);
      if (!caps.ok) errors.push(...caps.errors);
      if (errors.length > before || !caps.ok) continue;
      const tags = isObject(e.tags) ? this.verbatimTags(e.tags, `${p}.tags`) : undefined;
      const capabilities = caps.value;
      const clean = sanitizeReport(capabilities, isObject(e.state) ? e.state : {});
      if (clean.warnings.length > 0)
        this.log?.warn({ third_serial_number: third, warnings: clean.warnings }, 'DiscoveryRequest state cleaned');
      announcements.push({
        driver_ref: `${event.token.id}/${third}`,
        third_serial_number: third,
        service_address: address as string,
        name: e.name as string,
        manufacturer: e.manufacturer as string,
        model: e.model as string,
        firmware_version: e.firmware_version as string,
        hostname: (e.hostname ?? undefined) as string | undefined,
        mac_address: (e.mac_address ?? undefined) as string | undefined,
        app_name: event.token.app_name ?? undefined,
        display_category: category as string,
        capabilities,
        state: clean.state,
        tags,
        online: true,
        extra: { version: event.version },
      });
    }
    if (errors.length > 0) return invalid(errors);
    // One transaction: the devices are listed by D3 before this reply is sent, all or none.
    let devices: DeviceRecord[];
    try {
      devices = this.batch(() => announcements.map((a) => this.host.deviceFound(THIRDPARTY_DRIVER, a)));
    } catch (err) {
      if (!(err instanceof DeviceLimitReached)) throw err;
      const added = announcements.filter((a) => !this.host.findByRef(THIRDPARTY_DRIVER, a.driver_ref)).length;
      return invalid([`payload.endpoints: ${added} new devices: ${err.message}`]);
    }
    return {
      ok: true,
      payload: {
        endpoints: devices.map((d) => ({
          serial_number: d.serial_number,
          third_serial_number: d.third_serial_number,
        })),
      },
    };
  }

  /** The device an endpoint names: by serial_number, else by third_serial_number (this token's first). */
  private find(event: InboundEvent): { ok: true; device: DeviceRecord } | (InboundResult & { ok: false }) {
    const ep = event.endpoint;
    const problems = check('endpoint', ep, 'endpoint');
    if (problems.length > 0 || !isObject(ep)) return invalid(problems) as InboundResult & { ok: false };
    const serial = (ep.serial_number ?? undefined) as string | undefined;
    const third = (ep.third_serial_number ?? undefined) as string | undefined;
    let device: DeviceRecord | undefined;
    if (serial) {
      const d = this.host.get(serial);
      if (d?.driver === THIRDPARTY_DRIVER) device = d;
    } else if (third) {
      device = this.host.findByRef(THIRDPARTY_DRIVER, `${event.token.id}/${third}`);
      if (!device) {
        // A service that got a new token still reports for the devices it synced with the old one.
        const all = this.host.listByDriver(THIRDPARTY_DRIVER).filter((d) => d.third_serial_number === third);
        if (all.length === 1) device = all[0];
      }
    }
    if (!device) {
      const which = serial ? `serial_number ${fmt(serial)}` : `third_serial_number ${fmt(third)}`;
      return invalid([`endpoint: no third-party device with ${which}`]) as InboundResult & { ok: false };
    }
    return { ok: true, device };
  }

  private states(d: DeviceRecord, payload: Record<string, unknown>): InboundResult {
    const problems = check('states', payload, 'payload');
    if (problems.length > 0 || !isObject(payload.state)) return invalid(problems);
    const large = tooLarge(payload.state, deviceLimits.stateChars, 'payload.state');
    if (large) return invalid([large]);
    const clean = sanitizeReport(d.capabilities, payload.state);
    if (clean.warnings.length > 0) {
      // Nothing usable in a non-empty report is an error the sender should see; a partly bad one is cleaned.
      if (Object.keys(clean.state).length === 0) return invalid(clean.warnings.map((w) => `payload.${w}`));
      this.log?.warn({ serial_number: d.serial_number, warnings: clean.warnings }, 'state report cleaned');
    }
    this.batch(() => {
      // A state report brings an offline device back online (spec 3).
      this.host.onlineChanged(d.serial_number, true);
      this.host.stateReported(d.serial_number, clean.state);
    });
    return { ok: true, payload: {} };
  }

  private online(d: DeviceRecord, payload: Record<string, unknown>): InboundResult {
    const problems = check('online', payload, 'payload');
    if (problems.length > 0 || typeof payload.online !== 'boolean') return invalid(problems);
    this.host.onlineChanged(d.serial_number, payload.online);
    return { ok: true, payload: {} };
  }

  private information(d: DeviceRecord, payload: Record<string, unknown>): InboundResult {
    const errors = check('information', payload, 'payload');
    let capabilities: CapabilityObject[] | undefined;
    const large = [
      capabilitiesTooLarge(payload.capabilities, 'payload.capabilities'),
      tooLarge(payload.tags, deviceLimits.tagsChars, 'payload.tags'),
    ].filter((x) => x !== undefined);
    if (large.length > 0) return invalid(large);
    if (payload.capabilities !== undefined) {
      const r = applySettingsUpdate(d.capabilities, payload.capabilities, { source: 'report' }, 'payload.capabilities');
      if (r.ok) capabilities = r.value;
      else errors.push(...r.errors);
    }
    if (errors.length > 0) return invalid(errors);
    // `tags: null` is "no change", not "delete every tag": gateway-to-gateway sync add-ons forward
    // an updateDeviceInfo event's `tags: null` here (COMPAT.md). `{}` removes every tag.
    const tags = isObject(payload.tags) ? this.verbatimTags(payload.tags, 'payload.tags') : undefined;
    this.host.infoUpdated(d.serial_number, { capabilities, tags });
    return { ok: true, payload: {} };
  }

  /**
   * Tags are the provider's own data and round-trip verbatim (COMPAT.md): keys of fixed meaning
   * (`toggle`, `temperature_unit`) that do not follow spec 2.7 are kept and only logged.
   */
  private verbatimTags(tags: Record<string, unknown>, path: string): Record<string, unknown> {
    const t = validateTags(tags, path);
    if (!t.ok) this.log?.warn({ warnings: t.errors }, 'tags kept verbatim although they do not follow spec 2.7');
    return tags;
  }
}
