/**
 * The device events of T1 (spec 4.4): DiscoveryRequest, DeviceStatesChangeReport,
 * DeviceOnlineChangeReport, DeviceInformationUpdatedReport. Each is validated by the catalog as a
 * whole before anything is applied, and applied in one transaction.
 */
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
import type { DeviceAnnouncement, DeviceRecord, DriverHost } from '../../core/devices/contract.ts';
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
  return { ok: false, type: 'INVALID_PARAMETERS', description: shown.join('; ') };
}

function str(o: Record<string, unknown>, key: string, path: string, errors: string[], opts: { empty?: boolean } = {}) {
  const v = o[key];
  if (v === undefined) errors.push(`${path}.${key}: required`);
  else if (typeof v !== 'string') errors.push(`${path}.${key}: ${fmt(v)} is not a string`);
  else if (!opts.empty && v.trim() === '') errors.push(`${path}.${key}: must not be empty`);
  else if (v.length > MAX_STRING) errors.push(`${path}.${key}: longer than ${MAX_STRING} characters`);
  else return v;
  return undefined;
}

function optStr(o: Record<string, unknown>, key: string, path: string, errors: string[]): string | undefined {
  if (o[key] === undefined || o[key] === null) return undefined;
  return str(o, key, path, errors, { empty: true });
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
    const list = payload.endpoints;
    if (!Array.isArray(list)) return invalid([`payload.endpoints: expected an array, got ${fmt(list)}`]);
    if (list.length === 0) return invalid(['payload.endpoints: must not be empty']);
    if (list.length > MAX_DISCOVERY_ENDPOINTS)
      return invalid([`payload.endpoints: more than ${MAX_DISCOVERY_ENDPOINTS} endpoints in one request`]);
    const errors: string[] = [];
    const announcements: DeviceAnnouncement[] = [];
    for (const [i, e] of list.entries()) {
      const p = `payload.endpoints.${i}`;
      if (!isObject(e)) {
        errors.push(`${p}: expected an object, got ${fmt(e)}`);
        continue;
      }
      const before = errors.length;
      const third = str(e, 'third_serial_number', p, errors);
      const name = str(e, 'name', p, errors, { empty: true });
      const manufacturer = str(e, 'manufacturer', p, errors, { empty: true });
      const model = str(e, 'model', p, errors, { empty: true });
      const firmware = str(e, 'firmware_version', p, errors, { empty: true });
      const hostname = optStr(e, 'hostname', p, errors);
      const mac = optStr(e, 'mac_address', p, errors);
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
      let tags: Record<string, unknown> | undefined;
      if (e.tags !== undefined && e.tags !== null) {
        if (isObject(e.tags)) tags = this.verbatimTags(e.tags, `${p}.tags`);
        else errors.push(`${p}.tags: expected an object, got ${fmt(e.tags)}`);
      }
      if (e.state !== undefined && e.state !== null && !isObject(e.state))
        errors.push(`${p}.state: expected an object, got ${fmt(e.state)}`);
      if (errors.length > before || !caps.ok) continue;
      const capabilities = caps.value;
      const clean = sanitizeReport(capabilities, e.state ?? {});
      if (clean.warnings.length > 0)
        this.log?.warn({ third_serial_number: third, warnings: clean.warnings }, 'DiscoveryRequest state cleaned');
      announcements.push({
        driver_ref: `${event.token.id}/${third}`,
        third_serial_number: third as string,
        service_address: address as string,
        name: name as string,
        manufacturer: manufacturer as string,
        model: model as string,
        firmware_version: firmware as string,
        hostname,
        mac_address: mac,
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
    const devices = this.batch(() => announcements.map((a) => this.host.deviceFound(THIRDPARTY_DRIVER, a)));
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
    if (!isObject(ep))
      return invalid([`endpoint: expected an object, got ${fmt(ep)}`]) as InboundResult & { ok: false };
    const serial = ep.serial_number;
    const third = ep.third_serial_number;
    if (serial !== undefined && typeof serial !== 'string')
      return invalid([`endpoint.serial_number: ${fmt(serial)} is not a string`]) as InboundResult & { ok: false };
    if (third !== undefined && typeof third !== 'string')
      return invalid([`endpoint.third_serial_number: ${fmt(third)} is not a string`]) as InboundResult & { ok: false };
    if (serial === undefined && third === undefined)
      return invalid(['endpoint.serial_number: required']) as InboundResult & { ok: false };
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
    if (!isObject(payload.state)) return invalid([`payload.state: expected an object, got ${fmt(payload.state)}`]);
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
    if (typeof payload.online !== 'boolean')
      return invalid([
        `payload.online: ${payload.online === undefined ? 'required' : `${fmt(payload.online)} is not a boolean`}`,
      ]);
    this.host.onlineChanged(d.serial_number, payload.online);
    return { ok: true, payload: {} };
  }

  private information(d: DeviceRecord, payload: Record<string, unknown>): InboundResult {
    const errors: string[] = [];
    let capabilities: CapabilityObject[] | undefined;
    const large = [
      capabilitiesTooLarge(payload.capabilities, 'payload.capabilities'),
      tooLarge(payload.tags, deviceLimits.tagsChars, 'payload.tags'),
    ].filter((x) => x !== undefined);
    if (large.length > 0) return invalid(large);
    if (payload.capabilities === undefined) errors.push('payload.capabilities: required');
    else {
      const r = applySettingsUpdate(d.capabilities, payload.capabilities, { source: 'report' }, 'payload.capabilities');
      if (r.ok) capabilities = r.value;
      else errors.push(...r.errors);
    }
    // `tags: null` is "no change", not "delete every tag": gateway-to-gateway sync add-ons forward
    // an updateDeviceInfo event's `tags: null` here (COMPAT.md). `{}` removes every tag.
    let tags: Record<string, unknown> | undefined;
    if (payload.tags !== undefined && payload.tags !== null) {
      if (isObject(payload.tags)) tags = this.verbatimTags(payload.tags, 'payload.tags');
      else errors.push(`payload.tags: expected an object, got ${fmt(payload.tags)}`);
    }
    if (errors.length > 0) return invalid(errors);
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
