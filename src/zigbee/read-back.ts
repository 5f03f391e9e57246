/**
 * Reads device state back after the gateway connects, shared by the Zigbee drivers. Neither
 * Zigbee2MQTT (device state messages are not retained) nor a coordinator tells the current state
 * of a device after a gateway start, a reconnect or the backend coming back, so the gateway asks
 * each device for its mapped readable attributes instead of waiting for its next report, paced so
 * that a large network is not flooded (each read is a Zigbee request). Sleeping end devices are
 * not asked: they would not answer, and report on their own.
 */
import type { Clock } from '../lib/clock.ts';

/** One read to send: who, and how. */
export interface ReadRequest {
  /** Identifies the device (one queued read per device). */
  key: string;
  /** Sends the read; false when the device should not be asked now (offline, gone). */
  send(): boolean;
}

export class ReadBackQueue {
  private readonly queue = new Map<string, ReadRequest>();
  private cancel: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly paceMs: number,
    private readonly clock: Clock,
  ) {}

  /** Queues a read (replacing one queued for the same device). */
  add(request: ReadRequest): void {
    if (this.stopped) return;
    this.queue.delete(request.key);
    this.queue.set(request.key, request);
    this.schedule(0);
  }

  /** Forgets the reads of devices for which `drop` holds. */
  drop(drop: (key: string) => boolean): void {
    for (const key of [...this.queue.keys()]) if (drop(key)) this.queue.delete(key);
  }

  get size(): number {
    return this.queue.size;
  }

  stop(): void {
    this.stopped = true;
    this.queue.clear();
    this.cancel?.();
    this.cancel = undefined;
  }

  private schedule(ms: number): void {
    if (this.cancel !== undefined || this.queue.size === 0) return;
    this.cancel = this.clock.setTimer(ms, () => {
      this.cancel = undefined;
      this.next();
    });
  }

  private next(): void {
    // Skip the devices that are not to be asked now without spending a pace interval on them.
    for (const [key, request] of this.queue) {
      this.queue.delete(key);
      if (request.send()) break;
    }
    this.schedule(this.paceMs);
  }
}
