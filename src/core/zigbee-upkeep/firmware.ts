/**
 * Firmware updates, one at a time per network: an update takes the radio for minutes (thousands
 * of image blocks), so a second one waits in a queue (its place told) rather than halving the
 * speed of both. Each device's firmware (installed and latest version, what the last check found)
 * is kept with the device in the store, and every step is an event on the bus:
 * `zigbee#firmware` with `checking`, `idle`/`available`, `queued`, `updating` (percent, seconds
 * left), `updated` or `failed` (the backend's reason; the device stays usable).
 */
import { ErrorCode } from '../../catalog/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { isObject } from '../../lib/object.ts';
import type { DeviceRecord } from '../devices/contract.ts';
import type { DeviceRegistry } from '../devices/registry.ts';
import type { EventBus } from '../event-bus.ts';
import type { FirmwareInfo, ZigbeeUpkeep } from './contract.ts';
import type { FirmwareEvent, FirmwareView } from './views.ts';

/** What is kept of a device's firmware in its extra (`extra.firmware`). */
interface Stored {
  supported?: boolean;
  state?: 'idle' | 'available';
  installed_version?: number;
  latest_version?: number;
  checked_at?: string;
}

interface Job {
  serial: string;
  driverId: string;
  network: string;
  /** Asked to stop while it ran: its end is told as `cancelled`, not `failed`. */
  cancelled?: boolean;
}

export interface FirmwareDeps {
  registry: DeviceRegistry;
  bus: EventBus;
  clock: Clock;
  log?: Log;
  /** The running Zigbee driver `driverId`'s ability. */
  ability(driverId: string): ZigbeeUpkeep | undefined;
}

const queueKey = (driverId: string, network: string) => `${driverId}\u0000${network}`;

function stored(device: DeviceRecord): Stored {
  const f = device.extra.firmware;
  return isObject(f) ? (f as Stored) : {};
}

export class FirmwareUpdates {
  private readonly queues = new Map<string, { running?: Job; waiting: Job[] }>();
  /** The last event of each device, so that a repeated report is not published again. */
  private readonly last = new Map<string, string>();
  /** The devices a check runs for (one at a time per device). */
  readonly checking = new Set<string>();
  private stopped = false;

  constructor(private readonly deps: FirmwareDeps) {}

  /**
   * Where a device's update stands: being installed, waiting (1: next), or neither (one stopped
   * by the user is neither while its backend ends it).
   */
  place(serial: string): { state: 'updating' } | { state: 'queued'; position: number } | undefined {
    for (const q of this.queues.values()) {
      if (q.running?.serial === serial && !q.running.cancelled) return { state: 'updating' };
      const i = q.waiting.findIndex((j) => j.serial === serial);
      if (i >= 0) return { state: 'queued', position: i + 1 };
    }
    return undefined;
  }

  /** Whether an update runs on the network. */
  busy(driverId: string, network: string): boolean {
    return this.queues.get(queueKey(driverId, network))?.running !== undefined;
  }

  /** The firmware of a device: what its driver knows now over what was kept. */
  view(device: DeviceRecord, ability: ZigbeeUpkeep | undefined): FirmwareView {
    const kept = stored(device);
    const live = ability?.firmware(device);
    const place = this.place(device.serial_number);
    const installed = live?.installed_version ?? kept.installed_version;
    const latest = live?.latest_version ?? kept.latest_version;
    return {
      serial_number: device.serial_number,
      supported: live?.supported ?? kept.supported ?? false,
      state:
        place?.state ??
        (this.checking.has(device.serial_number) ? 'checking' : (live?.state ?? kept.state ?? 'unknown')),
      ...(installed !== undefined ? { installed_version: installed } : {}),
      ...(latest !== undefined ? { latest_version: latest } : {}),
      ...(place?.state === 'updating' && live?.progress !== undefined ? { progress: live.progress } : {}),
      ...(place?.state === 'updating' && live?.remaining !== undefined ? { remaining: live.remaining } : {}),
      ...(place?.state === 'queued' ? { position: place.position } : {}),
      firmware_version: device.firmware_version,
      ...(kept.checked_at ? { checked_at: kept.checked_at } : {}),
    };
  }

  /** Keeps what a check or the network said of a device's firmware (in the store, with the device). */
  remember(device: DeviceRecord, info: FirmwareInfo, checked = false): void {
    const before = stored(device);
    const next: Stored = {
      ...before,
      supported: info.supported,
      ...(info.state === 'idle' || info.state === 'available' ? { state: info.state } : {}),
      ...(info.installed_version !== undefined ? { installed_version: info.installed_version } : {}),
      ...(info.latest_version !== undefined ? { latest_version: info.latest_version } : {}),
      ...(checked ? { checked_at: new Date(this.deps.clock.now()).toISOString() } : {}),
    };
    if (JSON.stringify(next) !== JSON.stringify(before))
      this.deps.registry.infoUpdated(device.serial_number, { extra: { firmware: next } });
  }

  /** What the network says of a device's firmware as it comes (Zigbee2MQTT's `update` state). */
  reported(device: DeviceRecord, info: FirmwareInfo): void {
    this.remember(device, info);
    const place = this.place(device.serial_number);
    if (place?.state === 'updating' && info.state === 'updating' && info.progress !== undefined)
      this.publish({
        serial_number: device.serial_number,
        state: 'updating',
        progress: info.progress,
        ...(info.remaining !== undefined ? { remaining: info.remaining } : {}),
        ...versions(info),
      });
    else if (!place && (info.state === 'idle' || info.state === 'available'))
      this.publish({ serial_number: device.serial_number, state: info.state, ...versions(info) });
  }

  /** Queues an update; it starts at once when its network has none running. */
  enqueue(device: DeviceRecord, network: string): { state: 'updating' } | { state: 'queued'; position: number } {
    const key = queueKey(device.driver, network);
    const q = this.queues.get(key) ?? { waiting: [] };
    this.queues.set(key, q);
    q.waiting.push({ serial: device.serial_number, driverId: device.driver, network });
    const position = q.waiting.length;
    if (!q.running) this.next(key);
    else this.publish({ serial_number: device.serial_number, state: 'queued', position });
    return this.place(device.serial_number) ?? { state: 'queued', position };
  }

  /** Publishes a firmware event, unless it repeats the device's last. */
  publish(payload: FirmwareEvent): void {
    const json = JSON.stringify(payload);
    if (this.last.get(payload.serial_number) === json) return;
    this.last.set(payload.serial_number, json);
    this.deps.bus.publish('zigbee#firmware', { payload });
  }

  /**
   * Takes a device's update out of its queue (`dequeued`: it never started), or marks the one
   * running as stopped by the user (`running`: its backend is asked to stop it, and its end is
   * told as `cancelled`); undefined when none is queued or running.
   */
  cancel(serial: string): 'dequeued' | 'running' | undefined {
    for (const q of this.queues.values()) {
      if (q.running?.serial === serial && !q.running.cancelled) {
        q.running.cancelled = true;
        return 'running';
      }
      const i = q.waiting.findIndex((j) => j.serial === serial);
      if (i < 0) continue;
      q.waiting.splice(i, 1);
      const device = this.deps.registry.get(serial);
      const view = device ? this.view(device, this.deps.ability(device.driver)) : undefined;
      this.publish({
        serial_number: serial,
        state: 'cancelled',
        ...(view?.installed_version !== undefined ? { installed_version: view.installed_version } : {}),
        ...(view?.latest_version !== undefined ? { latest_version: view.latest_version } : {}),
      });
      q.waiting.forEach((j, k) => {
        this.publish({ serial_number: j.serial, state: 'queued', position: k + 1 });
      });
      return 'dequeued';
    }
    return undefined;
  }

  /** Marks a running update as no longer stopped (its backend could not stop it). */
  uncancel(serial: string): void {
    for (const q of this.queues.values()) if (q.running?.serial === serial) q.running.cancelled = false;
  }

  /** No more updates start; those waiting are dropped (one running ends as its backend ends it). */
  stop(): void {
    this.stopped = true;
    for (const q of this.queues.values()) q.waiting.length = 0;
  }

  private next(key: string): void {
    const q = this.queues.get(key);
    if (!q || q.running || this.stopped) return;
    const job = q.waiting.shift();
    if (!job) return;
    q.running = job;
    // Those still waiting moved up one place.
    q.waiting.forEach((j, i) => {
      this.publish({ serial_number: j.serial, state: 'queued', position: i + 1 });
    });
    this.run(job)
      .catch((err) => this.deps.log?.error({ err, serial_number: job.serial }, 'zigbee: firmware update failed'))
      .finally(() => {
        q.running = undefined;
        this.next(key);
      });
  }

  private async run(job: Job): Promise<void> {
    const { registry, log } = this.deps;
    const device = registry.get(job.serial);
    const ability = this.deps.ability(job.driverId);
    if (!device || !ability) {
      this.publish({ serial_number: job.serial, state: 'failed', reason: 'the device or its driver is gone' });
      return;
    }
    const before = this.view(device, ability);
    const known = {
      ...(before.installed_version !== undefined ? { installed_version: before.installed_version } : {}),
      ...(before.latest_version !== undefined ? { latest_version: before.latest_version } : {}),
    };
    this.publish({ serial_number: job.serial, state: 'updating', progress: 0, ...known });
    log?.info({ serial_number: job.serial }, `firmware update of ${device.name}: started`);
    let r: Awaited<ReturnType<ZigbeeUpkeep['updateFirmware']>>;
    try {
      r = await ability.updateFirmware(device, (p) =>
        this.publish({
          serial_number: job.serial,
          state: 'updating',
          progress: Math.max(0, Math.min(100, p.percent)),
          ...(p.remaining !== undefined ? { remaining: Math.max(0, Math.round(p.remaining)) } : {}),
          ...known,
        }),
      );
    } catch (err) {
      r = { ok: false, code: ErrorCode.SERVER_ERROR, message: (err as Error).message };
      log?.error({ err, serial_number: job.serial }, 'zigbee: firmware update failed');
    }
    const now = registry.get(job.serial) ?? device;
    if (r.ok) {
      const to = r.value.to_version;
      this.remember(now, {
        supported: true,
        state: 'idle',
        ...(to !== undefined ? { installed_version: to, latest_version: to } : {}),
      });
      if (r.value.firmware_version && r.value.firmware_version !== now.firmware_version)
        registry.infoUpdated(job.serial, { firmware_version: r.value.firmware_version });
      const after = registry.get(job.serial) ?? now;
      this.publish({
        serial_number: job.serial,
        state: 'updated',
        ...(to !== undefined ? { installed_version: to, latest_version: to } : {}),
        firmware_version: after.firmware_version,
      });
      log?.info({ serial_number: job.serial, to_version: to }, `firmware update of ${now.name}: done`);
    } else if (job.cancelled) {
      // Stopped by the user: the device runs what it ran, and the image is still there to install.
      this.remember(now, { supported: true, state: 'available' });
      this.publish({ serial_number: job.serial, state: 'cancelled', ...known });
      log?.info({ serial_number: job.serial }, `firmware update of ${now.name}: cancelled`);
    } else {
      this.publish({ serial_number: job.serial, state: 'failed', reason: r.message, ...known });
      log?.warn({ serial_number: job.serial, reason: r.message }, `firmware update of ${now.name}: failed`);
    }
  }
}

function versions(info: FirmwareInfo): Pick<FirmwareEvent, 'installed_version' | 'latest_version'> {
  return {
    ...(info.installed_version !== undefined ? { installed_version: info.installed_version } : {}),
    ...(info.latest_version !== undefined ? { latest_version: info.latest_version } : {}),
  };
}
