/**
 * Firmware updates on the gateway's own coordinator, through zigbee-herdsman's OTA code (the same
 * Zigbee2MQTT runs): a check notifies the device (Image Notify), reads what it runs from its Query
 * Next Image Request and looks the index up; an update then serves the image block by block and
 * ends with the device's Upgrade End Request and its announce after the reboot.
 *
 * The index is the user's (`zigbee.ota_index`: a folder, a file or a URL, resolved by
 * src/zigbee/ota-index.ts into `<zigbee dir>/ota-index.json`), or the public zigbee-OTA index,
 * fetched only when a check or an update is asked for. Progress is read off the device's own
 * block requests (their file offset), told at most every `progressEveryMs` on the gateway's clock.
 * A device asking for an image by itself (it does so now and then) is answered that there is none,
 * unless a check or an update of it runs: it asks again later, as with Zigbee2MQTT.
 */
import { join } from 'node:path';
import type { Controller } from 'zigbee-herdsman';
import type { MessagePayload } from 'zigbee-herdsman/dist/controller/events.js';
import { ErrorCode } from '../../catalog/errors.ts';
import type {
  FirmwareCheck,
  FirmwareInfo,
  FirmwareProgress,
  FirmwareUpdated,
  Result,
} from '../../core/zigbee-upkeep/contract.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { type OtaIndexEntry, resolveOtaIndex } from '../../zigbee/index.ts';
import { errorText, type ZhDevice } from './converters.ts';
import type { Node } from './nodes.ts';
import { within } from './within.ts';

/** zigbee-herdsman's status of "no image available" (ZCL 0x98). */
const NO_IMAGE_AVAILABLE = 0x98;
/** A check waits at most this long for the device's query (herdsman's own wait is 60 s). */
const CHECK_MS = 75_000;

export interface OtaOptions {
  /** `zigbee.ota_index` ('' for the public index). */
  index: string;
  /** The Zigbee data folder (the resolved index is written there). */
  dir: string;
  clock: Clock;
  log: Log;
  /** Zigbee2MQTT's defaults: a block request may take 150 s to come, 250 ms between blocks, 50 bytes a block. */
  requestTimeoutMs?: number;
  responseDelayMs?: number;
  blockBytes?: number;
  /** At most one progress report this often (the last one always). */
  progressEveryMs?: number;
}

interface Running {
  /** The index's images (the user's index), to learn the size of the image served. */
  entries: OtaIndexEntry[];
  size?: number;
  started: number;
  told: number;
  percent: number;
  progress(p: FirmwareProgress): void;
}

export class HerdsmanOta {
  /** Devices a check or an update runs for: their own image requests are theirs. */
  private readonly busy = new Set<string>();
  private readonly running = new Map<string, Running>();
  /** What is known of each device's firmware (the last check, an update's end). */
  private readonly known = new Map<string, Omit<FirmwareInfo, 'supported'>>();

  constructor(private readonly o: OtaOptions) {}

  /** Follows a controller's messages: block requests (progress), a device's own image requests. */
  attach(controller: Controller): void {
    controller.on('message', (m: MessagePayload) => {
      try {
        this.onMessage(m);
      } catch (err) {
        this.o.log.debug({ err: errorText(err) }, 'zigbee: an OTA message could not be handled');
      }
    });
  }

  private onMessage(m: MessagePayload): void {
    if (m.cluster !== 'genOta') return;
    const ieee = m.device.ieeeAddr;
    if (m.type === 'commandImageBlockRequest' || m.type === 'commandImagePageRequest') {
      const run = this.running.get(ieee);
      const offset = Number((m.data as { fileOffset?: unknown }).fileOffset);
      if (run?.size && Number.isFinite(offset)) this.advance(run, (offset / run.size) * 100);
      return;
    }
    if (m.type === 'commandQueryNextImageRequest') {
      const run = this.running.get(ieee);
      // The image served is the newest one for what the device runs (as herdsman picks it).
      const q = m.data as { manufacturerCode?: number; imageType?: number; fileVersion?: number };
      if (run)
        run.size = run.entries
          .filter(
            (e) =>
              e.manufacturerCode === q.manufacturerCode &&
              e.imageType === q.imageType &&
              e.fileVersion > Number(q.fileVersion),
          )
          .sort((a, b) => b.fileVersion - a.fileVersion)[0]?.fileSize;
    }
    if (m.type === 'commandQueryNextImageRequest' && !this.busy.has(ieee)) {
      const tsn = m.meta.zclTransactionSequenceNumber;
      m.endpoint
        .commandResponse('genOta', 'queryNextImageResponse', { status: NO_IMAGE_AVAILABLE }, undefined, tsn)
        .catch((err) => this.o.log.debug({ err: errorText(err), ieee_address: ieee }, 'zigbee: OTA answer failed'));
    }
  }

  private advance(run: Running, percent: number): void {
    const p = Math.max(0, Math.min(100, Math.floor(percent)));
    const now = this.o.clock.now();
    if (p <= run.percent || (p < 100 && now - run.told < (this.o.progressEveryMs ?? 5000))) return;
    run.percent = p;
    run.told = now;
    const elapsed = (now - run.started) / 1000;
    const remaining = p > 0 ? Math.round((elapsed / p) * (100 - p)) : undefined;
    run.progress({ percent: p, ...(remaining !== undefined ? { remaining } : {}) });
  }

  /** What is known of a device's firmware. */
  info(node: Node): FirmwareInfo {
    return { supported: Boolean(node.definition.ota), ...this.known.get(node.ieee) };
  }

  /** The source herdsman reads the index from: the user's, resolved, or its default. */
  private async source(): Promise<Result<{ source: { url?: string }; entries: OtaIndexEntry[] }>> {
    if (this.o.index === '') return { ok: true, value: { source: {}, entries: [] } };
    const r = await resolveOtaIndex(this.o.index, join(this.o.dir, 'ota-index.json'), this.o.clock);
    return r.ok
      ? { ok: true, value: { source: { url: r.file }, entries: r.entries } }
      : { ok: false, code: ErrorCode.SERVER_ERROR, message: `zigbee.ota_index: ${r.message}` };
  }

  private extraMetas(node: Node) {
    const ota = node.definition.ota;
    return typeof ota === 'object' ? ota : {};
  }

  async check(node: Node, device: ZhDevice): Promise<Result<FirmwareCheck>> {
    const source = await this.source();
    if (!source.ok) return source;
    this.busy.add(node.ieee);
    try {
      const r = await within(
        this.o.clock,
        device.checkOta(source.value.source, undefined, this.extraMetas(node) as never),
        CHECK_MS,
      );
      if (!r.ok) return { ok: false, code: ErrorCode.DEVICE_UPDATE_FAILED, message: `Zigbee: ${r.message}` };
      const installed = r.value.current.fileVersion;
      const latest = r.value.availableMeta?.fileVersion ?? installed;
      this.known.set(node.ieee, {
        state: r.value.available ? 'available' : 'idle',
        installed_version: installed,
        latest_version: latest,
      });
      return {
        ok: true,
        value: { available: r.value.available, installed_version: installed, latest_version: latest },
      };
    } finally {
      this.busy.delete(node.ieee);
    }
  }

  /** Stops the update of a device, at its next block request (zigbee-herdsman answers it ABORT); false when none runs. */
  abort(node: Node, device: ZhDevice): boolean {
    if (!this.running.has(node.ieee)) return false;
    device.abortOta();
    // The image is still there to install, as once the update has failed.
    const { progress: _p, remaining: _r, ...known } = this.known.get(node.ieee) ?? {};
    this.known.set(node.ieee, { ...known, state: 'available' });
    return true;
  }

  async update(
    node: Node,
    device: ZhDevice,
    progress: (p: FirmwareProgress) => void,
  ): Promise<Result<FirmwareUpdated>> {
    const source = await this.source();
    if (!source.ok) return source;
    const ieee = node.ieee;
    this.busy.add(ieee);
    const before = this.known.get(ieee);
    const run: Running = { entries: source.value.entries, started: this.o.clock.now(), told: 0, percent: -1, progress };
    this.running.set(ieee, run);
    this.known.set(ieee, { ...before, state: 'updating' });
    try {
      const [from, to] = await device.updateOta(
        source.value.source,
        undefined,
        undefined,
        this.extraMetas(node) as never,
        (percent, remaining) => {
          // herdsman's own reports: its estimate at the start, then every 30 s, 100 at the end.
          if (percent === 0 && run.percent < 0) {
            run.percent = 0;
            run.told = this.o.clock.now();
            progress({ percent: 0, remaining: Math.round(remaining) });
          } else this.advance(run, percent);
        },
        {
          requestTimeout: this.o.requestTimeoutMs ?? 150_000,
          responseDelay: this.o.responseDelayMs ?? 250,
          baseSize: this.o.blockBytes ?? 50,
        },
      );
      if (!to) {
        this.known.set(ieee, { state: 'idle', installed_version: from.fileVersion, latest_version: from.fileVersion });
        return { ok: false, code: ErrorCode.DEVICE_UPDATE_FAILED, message: 'Zigbee: no image currently available' };
      }
      this.known.set(ieee, { state: 'idle', installed_version: to.fileVersion, latest_version: to.fileVersion });
      // What it runs now, as Zigbee2MQTT reads it after an update (herdsman keeps the answer).
      const basic = device.endpoints.find((e) => e.supportsInputCluster('genBasic'));
      const read = basic
        ? await within(this.o.clock, basic.read('genBasic', ['swBuildId', 'dateCode']), 10_000)
        : undefined;
      const build = read?.ok ? (read.value as { swBuildId?: unknown }).swBuildId : undefined;
      return {
        ok: true,
        value: {
          from_version: from.fileVersion,
          to_version: to.fileVersion,
          ...(typeof build === 'string' && build !== '' ? { firmware_version: build } : {}),
        },
      };
    } catch (err) {
      // The image is still there to install: a failed (or interrupted) update leaves it available.
      this.known.set(ieee, { ...before, state: 'available' });
      return { ok: false, code: ErrorCode.DEVICE_UPDATE_FAILED, message: `Zigbee: ${errorText(err)}` };
    } finally {
      this.running.delete(ieee);
      this.busy.delete(ieee);
    }
  }
}
