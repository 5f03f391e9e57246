/**
 * D3's answer kept ready, plain and gzip, and patched by the registry's changes instead of built
 * again at each request (issue 29): a home of 10,000 devices has a list of some 6 MB, read by
 * every client at its start and by some at every poll, while its devices report state all the
 * time.
 *
 * The list is cut into segments of up to SEGMENT devices, in the registry's order. A segment keeps
 * its devices' JSON as bytes (each device's text preceded by a comma), and how many bytes each
 * device has there; a change marks the device, and the next answer writes only the marked
 * devices again (and copies the others' bytes). A removed device's bytes are cut out at once.
 *
 * gzip: each segment is compressed apart, as a raw deflate stream flushed to a byte boundary
 * without ending (what a compressor that runs in parallel does), so that the pieces of the
 * segments, the envelope and the commas between them, one after another, are one deflate stream;
 * the gzip header, the end block and the trailer (CRC-32 and length of the whole) go around
 * them. Compressing runs on libuv's threads, not on the event loop.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { DeviceRegistry } from '../../core/devices/registry.ts';
import { toWire } from '../../core/devices/wire.ts';

/** Devices per segment: a change writes one device again and copies the segment's other bytes. */
export const SEGMENT = 256;
/** gzip level: 4 compresses a device list about as well as the default (6) in half the time. */
const LEVEL = 4;

const deflateRaw = promisify(zlib.deflateRaw) as (buf: Buffer, opts: zlib.ZlibOptions) => Promise<Buffer>;
const FLUSHED: zlib.ZlibOptions = { level: LEVEL, finishFlush: zlib.constants.Z_SYNC_FLUSH };

const HEAD = Buffer.from('{"error":0,"data":{"device_list":[');
const TAIL = Buffer.from(']},"message":"success"}');
const COMMA = Buffer.from(',');
/** A gzip member's header: deflate, no name, no time, unknown OS. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** The last block of a deflate stream: final, fixed Huffman codes, empty. */
const LAST_BLOCK = Buffer.from([3, 0]);

/** The answer as parts to write in order, and their length in all. */
export interface Answer {
  parts: Buffer[];
  length: number;
}

interface Segment {
  serials: string[];
  /** Bytes of each device's text in `raw` (0 for a device added since). */
  lengths: number[];
  /** `,{device},{device}...`: what was last written (a device changed since still has its old text). */
  raw: Buffer;
  /** Devices changed or added since `raw` was written. */
  changed: Set<string>;
  /** `raw` without its first comma, compressed (once asked for, until the segment changes). */
  gzip?: Promise<Buffer>;
}

export class DeviceListAnswer {
  private segments: Segment[] = [];
  private readonly where = new Map<string, Segment>();
  /** Whether the segments must be made again from the registry (at first, after a reload). */
  private reset = true;
  private plain: Answer | undefined;
  private gzip: Promise<Answer> | undefined;

  constructor(private readonly registry: DeviceRegistry) {
    registry.watch((serial, gone) => this.changed(serial, gone));
  }

  private changed(serial: string | null, gone: boolean): void {
    this.plain = undefined;
    this.gzip = undefined;
    if (serial === null) {
      this.reset = true;
      return;
    }
    if (this.reset) return;
    const seg = this.where.get(serial);
    if (gone) {
      if (seg) this.cut(seg, serial);
      return;
    }
    if (seg) {
      seg.changed.add(serial);
      seg.gzip = undefined;
      return;
    }
    // A new device goes last, as the registry lists it.
    let last = this.segments.at(-1);
    if (!last || last.serials.length >= SEGMENT) {
      last = { serials: [], lengths: [], raw: Buffer.alloc(0), changed: new Set() };
      this.segments.push(last);
    }
    last.serials.push(serial);
    last.lengths.push(0);
    last.changed.add(serial);
    last.gzip = undefined;
    this.where.set(serial, last);
  }

  /** Cuts a removed device's text out of its segment (and the segment out of the list when empty). */
  private cut(seg: Segment, serial: string): void {
    this.where.delete(serial);
    const i = seg.serials.indexOf(serial);
    let at = 0;
    for (let j = 0; j < i; j++) at += seg.lengths[j] as number;
    const len = seg.lengths[i] as number;
    seg.raw = Buffer.concat([seg.raw.subarray(0, at), seg.raw.subarray(at + len)]);
    seg.serials.splice(i, 1);
    seg.lengths.splice(i, 1);
    seg.changed.delete(serial);
    seg.gzip = undefined;
    if (seg.serials.length === 0) this.segments.splice(this.segments.indexOf(seg), 1);
  }

  /** Makes every segment again from the registry's list. */
  private rebuild(): void {
    this.segments = [];
    this.where.clear();
    this.reset = false;
    for (const d of this.registry.list()) this.changed(d.serial_number, false);
  }

  /** Writes the changed devices of a segment again, copying the others' bytes. */
  private refresh(seg: Segment): void {
    if (seg.changed.size === 0) return;
    const parts: Buffer[] = [];
    let at = 0;
    for (const [i, serial] of seg.serials.entries()) {
      const len = seg.lengths[i] as number;
      if (seg.changed.has(serial)) {
        const record = this.registry.get(serial);
        const text = record ? Buffer.from(`,${JSON.stringify(toWire(record))}`) : Buffer.alloc(0);
        parts.push(text);
        seg.lengths[i] = text.length;
      } else parts.push(seg.raw.subarray(at, at + len));
      at += len;
    }
    seg.raw = Buffer.concat(parts);
    seg.changed.clear();
  }

  /** The plain answer: the envelope around every device, as parts (no copy of the whole list). */
  answer(): Answer {
    if (this.plain) return this.plain;
    if (this.reset) this.rebuild();
    const parts: Buffer[] = [HEAD];
    let length = HEAD.length + TAIL.length;
    for (const [i, seg] of this.segments.entries()) {
      this.refresh(seg);
      if (i > 0) parts.push(COMMA);
      const body = seg.raw.subarray(1);
      parts.push(body);
      length += body.length + (i > 0 ? 1 : 0);
    }
    parts.push(TAIL);
    this.plain = { parts, length };
    return this.plain;
  }

  /** The same answer gzip-compressed: the segments' compressed pieces, kept until they change. */
  gzipped(): Promise<Answer> {
    this.gzip ??= this.compress(this.answer());
    return this.gzip;
  }

  private async compress(plain: Answer): Promise<Answer> {
    const pieces = this.segments.map((seg) => {
      seg.gzip ??= deflateRaw(seg.raw.subarray(1), FLUSHED);
      return seg.gzip;
    });
    const [[head, comma, tail], segs] = await Promise.all([envelope(), Promise.all(pieces)]);
    const parts: Buffer[] = [GZIP_HEADER, head];
    for (const [i, piece] of segs.entries()) {
      if (i > 0) parts.push(comma);
      parts.push(piece);
    }
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc32(plain.parts), 0);
    trailer.writeUInt32LE(plain.length % 2 ** 32, 4);
    parts.push(tail, LAST_BLOCK, trailer);
    return { parts, length: parts.reduce((n, p) => n + p.length, 0) };
  }
}

let compressedEnvelope: Promise<[Buffer, Buffer, Buffer]> | undefined;

/** The envelope's head, the comma and the tail, compressed as the segments are (once, when first asked for). */
function envelope(): Promise<[Buffer, Buffer, Buffer]> {
  compressedEnvelope ??= Promise.all([
    deflateRaw(HEAD, FLUSHED),
    deflateRaw(COMMA, FLUSHED),
    deflateRaw(TAIL, FLUSHED),
  ]);
  return compressedEnvelope;
}

let table: Int32Array | undefined;

/** CRC-32 of the parts one after another: zlib's own where Node has it (20.15 and later), else a table. */
function crc32(parts: readonly Buffer[]): number {
  const native = (zlib as { crc32?: (data: Buffer, value?: number) => number }).crc32;
  if (native) return parts.reduce((crc, p) => native(p, crc), 0);
  table ??= Int32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c;
  });
  let crc = -1;
  for (const p of parts)
    for (let i = 0; i < p.length; i++) crc = (table[(crc ^ (p[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
