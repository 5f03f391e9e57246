/**
 * The OTA upgrade client of a fake device, as ZCL chapter 11 (Over-The-Air Upgrading) has a real
 * one behave, so that the coordinator side (zigbee-herdsman's OTA session, Zigbee2MQTT's OTA
 * extension, the gateway's herdsman driver) runs its real exchange against it:
 *
 * - an Image Notify from the coordinator is answered with a Query Next Image Request naming what
 *   the device runs (manufacturer code, image type, file version);
 * - a Query Next Image Response offering an image starts the download: Image Block Requests from
 *   offset 0, each sent once the previous block arrived, at most `maximumDataSize` bytes each;
 * - once every byte arrived, an Upgrade End Request (SUCCESS, or INVALID_IMAGE when the image is
 *   not an OTA file or a failure was asked for);
 * - the Upgrade End Response makes it "reboot" into the new version: its file version becomes the
 *   image's, its Basic cluster's swBuildId the image's header string (the fake's convention for
 *   "the build it now runs"), and it announces itself, as a device does after a reboot;
 * - an Image Block Response that is not SUCCESS (ABORT: the coordinator stopped the update) ends the
 *   download, and the device keeps what it runs.
 *
 * A test may hold the next download after its first block (`holdNext`), to act while an update
 * surely runs (stop it), then let it go on (`resume`).
 */
import type { HerdsmanZspec, ZclFrame } from './herdsman.ts';

/** How the next update of a device fails (a test asks for it). */
export type OtaFailure = 'invalid-image' | 'silent';

/** What the client needs of its device. */
export interface OtaClientDeps {
  zh: HerdsmanZspec;
  manufacturerCode: number;
  imageType: number;
  fileVersion: number;
  /** Sends a cluster command of the OTA cluster from the device (client to server). */
  send(endpoint: number, command: string, payload: Record<string, unknown>): void;
  /** The device now runs `build` (its Basic cluster's swBuildId). */
  rebooted(build: string): void;
  /** Runs `fn` after `ms` (the device's own timers, stopped with it). */
  later(ms: number, fn: () => void): void;
  /** A held download is waiting after its first block (a test asked for it). */
  held?(): void;
  /** Delay between a block received and the next request (a real device takes some ms). */
  blockDelayMs: number;
}

/** The OTA upgrade file identifier (ZCL 11.4.2.1), little-endian at offset 0. */
const FILE_IDENTIFIER = 0x0beef11e;
const MAX_DATA_SIZE = 50;

interface Download {
  endpoint: number;
  fileVersion: number;
  size: number;
  received: Buffer[];
  offset: number;
}

export class FakeOtaClient {
  /** The version it runs now. */
  fileVersion: number;
  /** Set by a test: how its next update fails. */
  failNext?: OtaFailure;
  /** Set by a test: its next download waits after the first block until resume(). */
  holdNext?: boolean;
  private download?: Download;
  private paused?: () => void;

  constructor(private readonly deps: OtaClientDeps) {
    this.fileVersion = deps.fileVersion;
  }

  /** A frame of the OTA cluster from the coordinator (server to client); true when it was one the client handles. */
  receive(endpoint: number, frame: ZclFrame): boolean {
    const payload = (frame.payload ?? {}) as Record<string, unknown>;
    const { Status } = this.deps.zh.Zcl;
    switch (frame.command.name) {
      case 'imageNotify':
        this.deps.later(this.deps.blockDelayMs, () => this.query(endpoint));
        return true;
      case 'queryNextImageResponse': {
        if (payload.status !== Status.SUCCESS) return true;
        const failure = this.failNext;
        this.failNext = failure === 'silent' ? undefined : failure;
        this.download = {
          endpoint,
          fileVersion: Number(payload.fileVersion),
          size: Number(payload.imageSize),
          received: [],
          offset: 0,
        };
        if (failure === 'silent') return true; // it never asks for a block
        this.deps.later(this.deps.blockDelayMs, () => this.requestBlock());
        return true;
      }
      case 'imageBlockResponse': {
        const d = this.download;
        if (!d) return true;
        if (payload.status !== Status.SUCCESS) {
          // ABORT (or another refusal): the download ends here.
          this.download = undefined;
          return true;
        }
        const data = Buffer.from(payload.data as Buffer);
        if (Number(payload.fileOffset) === d.offset) {
          d.received.push(data);
          d.offset += data.length;
        }
        const next = () => (d.offset >= d.size ? this.end(d) : this.requestBlock());
        if (this.holdNext) {
          this.holdNext = false;
          this.paused = next;
          this.deps.held?.();
          return true;
        }
        this.deps.later(this.deps.blockDelayMs, next);
        return true;
      }
      case 'upgradeEndResponse': {
        const d = this.download;
        this.download = undefined;
        if (!d) return true;
        const image = Buffer.concat(d.received);
        // The header string (32 bytes at offset 20) names the build, NULs and spaces trimmed.
        const build = image.toString('utf8', 20, 52).replace(/[\0\s]+$/g, '');
        this.deps.later(this.deps.blockDelayMs, () => {
          this.fileVersion = d.fileVersion;
          this.deps.rebooted(build);
        });
        return true;
      }
      default:
        return false;
    }
  }

  /** A held download goes on (its next block request). */
  resume(): void {
    const next = this.paused;
    this.paused = undefined;
    if (next) this.deps.later(this.deps.blockDelayMs, next);
  }

  private query(endpoint: number): void {
    this.deps.send(endpoint, 'queryNextImageRequest', {
      fieldControl: 0,
      manufacturerCode: this.deps.manufacturerCode,
      imageType: this.deps.imageType,
      fileVersion: this.fileVersion,
    });
  }

  private requestBlock(): void {
    const d = this.download;
    if (!d) return;
    this.deps.send(d.endpoint, 'imageBlockRequest', {
      fieldControl: 0,
      manufacturerCode: this.deps.manufacturerCode,
      imageType: this.deps.imageType,
      fileVersion: d.fileVersion,
      fileOffset: d.offset,
      maximumDataSize: MAX_DATA_SIZE,
    });
  }

  private end(d: Download): void {
    if (this.download !== d) return;
    const image = Buffer.concat(d.received);
    const valid = image.length >= 56 && image.readUInt32LE(0) === FILE_IDENTIFIER;
    const failed = this.failNext === 'invalid-image' || !valid;
    if (this.failNext === 'invalid-image') this.failNext = undefined;
    const { Status } = this.deps.zh.Zcl;
    if (failed) this.download = undefined;
    this.deps.send(d.endpoint, 'upgradeEndRequest', {
      status: failed ? Status.INVALID_IMAGE : Status.SUCCESS,
      manufacturerCode: this.deps.manufacturerCode,
      imageType: this.deps.imageType,
      fileVersion: d.fileVersion,
    });
  }
}
