/**
 * Firmware requests of clients: a check of one device or of all, an update (queued one at a time
 * per network by FirmwareUpdates), and its cancel. Each names the device by serial number and is
 * checked first (it takes updates, it is online, nothing newer was found, one is queued already),
 * with messages `path: rule`.
 */
import { ErrorCode, failure } from '../../catalog/errors.ts';
import type { Log } from '../../lib/log.ts';
import { checkSerial, invalid } from './checks.ts';
import { type Answer, quoted, type UpkeepContext, type ZigbeeDevice } from './context.ts';
import type { FirmwareUpdates } from './firmware.ts';
import type { FirmwareView } from './views.ts';

export class FirmwareRequests {
  constructor(private readonly d: { ctx: UpkeepContext; firmware: FirmwareUpdates; log?: Log }) {}

  /** Asks a device what it runs and the index what there is (events `checking`, then `idle`/`available` or `failed`). */
  async check(body: unknown): Promise<Answer<FirmwareView>> {
    const z = this.updatable(body);
    if (!z.ok) return z;
    const { device, ability } = z.value;
    const serial = device.serial_number;
    const { checking } = this.d.firmware;
    if (checking.has(serial)) return invalid(`serial_number: a check of ${quoted(device.name)} is running`);
    checking.add(serial);
    let r: Awaited<ReturnType<typeof ability.checkFirmware>>;
    try {
      this.d.firmware.publish({ serial_number: serial, state: 'checking' });
      r = await ability.checkFirmware(device);
    } finally {
      // Before the events that end it: a console that reads the firmware on them sees it checked.
      checking.delete(serial);
    }
    const now = this.d.ctx.registry.get(serial) ?? device;
    if (!r.ok) {
      this.d.firmware.publish({ serial_number: serial, state: 'failed', reason: r.message });
      return { ok: false, ...failure(r.code, r.message) };
    }
    const info = {
      supported: true,
      state: r.value.available ? ('available' as const) : ('idle' as const),
      ...r.value,
    };
    this.d.firmware.remember(now, info, true);
    this.d.firmware.publish({
      serial_number: serial,
      state: info.state,
      ...(r.value.installed_version !== undefined ? { installed_version: r.value.installed_version } : {}),
      ...(r.value.latest_version !== undefined ? { latest_version: r.value.latest_version } : {}),
    });
    return { ok: true, value: this.d.firmware.view(this.d.ctx.registry.get(serial) ?? now, ability) };
  }

  /**
   * Checks every device that takes updates and is online, one after the other (mains-powered
   * first: a sleeping one answers only when it wakes, if at all); answers at once with the devices
   * it will check, the results come as events.
   */
  checkAll(): Answer<{ serial_numbers: string[] }> {
    const devices = this.d.ctx.sources().flatMap((s) =>
      this.d.ctx.registry
        .listByDriver(s.driverId)
        .filter((d) => d.online && s.ability.firmware(d)?.supported === true && !this.d.firmware.place(d.serial_number))
        .sort((a, b) => Number(s.ability.sleepy(a)) - Number(s.ability.sleepy(b))),
    );
    const serials = devices.map((d) => d.serial_number);
    void (async () => {
      for (const serial of serials) await this.check({ serial_number: serial });
    })().catch((err) => this.d.log?.error({ err }, 'zigbee: checking every device for firmware failed'));
    return { ok: true, value: { serial_numbers: serials } };
  }

  /**
   * Queues the update of a device (it starts at once when its network has none running); answers
   * with where it stands, the progress comes as events. Refused for a device that takes no
   * updates, is offline, is queued already, or whose last check found nothing newer.
   */
  update(body: unknown): Answer<FirmwareView> {
    const z = this.updatable(body);
    if (!z.ok) return z;
    const { device, ability, network } = z.value;
    const name = quoted(device.name);
    const place = this.d.firmware.place(device.serial_number);
    if (place?.state === 'updating') return invalid(`serial_number: ${name} is being updated`);
    if (place) return invalid(`serial_number: an update of ${name} is queued already (place ${place.position})`);
    const view = this.d.firmware.view(device, ability);
    if (view.state === 'idle' && view.checked_at)
      return invalid(
        `serial_number: there is no newer firmware for ${name}: the check of ${view.checked_at} found ${view.installed_version ?? 'its version'} installed and nothing newer (check again after adding images)`,
      );
    this.d.firmware.enqueue(device, network);
    return { ok: true, value: this.d.firmware.view(device, ability) };
  }

  /**
   * Stops a device's update: one queued leaves the queue; one running is stopped by its backend
   * (the device keeps the firmware it runs, the image stays available), answered once the backend
   * has taken the stop (the device hears it at its next block request: the event `cancelled`
   * follows). Refused when none is queued or running, or when the backend cannot stop one that
   * has started.
   */
  async cancel(body: unknown): Promise<Answer<FirmwareView>> {
    const errors = checkSerial(body);
    if (errors.length > 0) return invalid(...errors);
    const z = this.d.ctx.device((body as { serial_number: string }).serial_number, 'serial_number');
    if (!z.ok) return z;
    const { device, ability } = z.value;
    const serial = device.serial_number;
    const name = quoted(device.name);
    const place = this.d.firmware.place(serial);
    if (!place) return invalid(`serial_number: no update of ${name} is queued or running`);
    if (place.state === 'updating') {
      if (!ability.cancelFirmware)
        return invalid(`serial_number: the update of ${name} has started, and its network cannot stop one that runs`);
      this.d.firmware.cancel(serial);
      const r = await ability.cancelFirmware(device);
      if (!r.ok) {
        this.d.firmware.uncancel(serial);
        return { ok: false, ...failure(r.code, r.message) };
      }
    } else this.d.firmware.cancel(serial);
    return { ok: true, value: this.d.firmware.view(this.d.ctx.registry.get(serial) ?? device, ability) };
  }

  /** A device named in `body` that can be checked or updated: it takes updates and is online. */
  private updatable(body: unknown): Answer<ZigbeeDevice> {
    const errors = checkSerial(body);
    if (errors.length > 0) return invalid(...errors);
    const z = this.d.ctx.device((body as { serial_number: string }).serial_number, 'serial_number');
    if (!z.ok) return z;
    const { device, ability } = z.value;
    if (ability.firmware(device)?.supported !== true)
      return invalid(`serial_number: ${quoted(device.name)} (${device.model}) does not take firmware updates`);
    if (!device.online) return { ok: false, ...failure(ErrorCode.DEVICE_OFFLINE) };
    return z;
  }
}
