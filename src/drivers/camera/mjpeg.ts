/**
 * Motion JPEG as cameras serve it over HTTP (`multipart/x-mixed-replace`, one JPEG per part) and
 * the size of a JPEG picture (its SOF marker, ITU-T T.81 B.2.2). Used by the ESP32-CAM probe, by
 * snapshots taken from a stream, and by the live view that re-streams frames to viewers.
 */

/** Largest frame accepted; a part larger than this is dropped (a camera frame is well under 1 MB). */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;

/** The boundary of a `multipart/x-mixed-replace; boundary=...` content type, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^\s*multipart\/x-mixed-replace\b/i.test(contentType)) return undefined;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const b = m?.[1] ?? m?.[2];
  // Some cameras declare the boundary with its leading dashes; searching without them finds both forms.
  return b ? b.replace(/^--/, '') : undefined;
}

/** Splits a multipart/x-mixed-replace byte stream into its parts' bodies (JPEG frames). */
export class MultipartReader {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly delimiter: Buffer;
  /** Body length of the part being read (from Content-Length), or -1 when read up to the next delimiter. */
  private state: { kind: 'seek' } | { kind: 'body'; length: number } = { kind: 'seek' };

  constructor(
    boundary: string,
    private readonly onFrame: (frame: Buffer) => void,
  ) {
    this.delimiter = Buffer.from(`--${boundary}`);
  }

  /** Feeds bytes; calls onFrame for each complete part. */
  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (this.state.kind === 'seek') {
        const at = this.buffer.indexOf(this.delimiter);
        if (at < 0) {
          // Keep only a tail that may hold the start of a delimiter.
          const keep = this.delimiter.length;
          if (this.buffer.length > keep) this.buffer = this.buffer.subarray(this.buffer.length - keep);
          return;
        }
        const headEnd = this.buffer.indexOf('\r\n\r\n', at);
        if (headEnd < 0) {
          if (this.buffer.length - at > 16 * 1024) this.buffer = this.buffer.subarray(at + this.delimiter.length);
          return;
        }
        const head = this.buffer.subarray(at, headEnd).toString('latin1');
        const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        const length = m ? Number(m[1]) : -1;
        this.buffer = this.buffer.subarray(headEnd + 4);
        this.state = { kind: 'body', length: length > MAX_FRAME_BYTES ? -1 : length };
        continue;
      }
      const { length } = this.state;
      if (length >= 0) {
        if (this.buffer.length < length) return;
        const frame = Buffer.from(this.buffer.subarray(0, length));
        this.buffer = this.buffer.subarray(length);
        this.state = { kind: 'seek' };
        this.onFrame(frame);
        continue;
      }
      const next = this.buffer.indexOf(this.delimiter);
      if (next < 0) {
        if (this.buffer.length > MAX_FRAME_BYTES) {
          this.buffer = Buffer.alloc(0);
          this.state = { kind: 'seek' };
        }
        return;
      }
      let end = next;
      if (end >= 2 && this.buffer[end - 2] === 0x0d && this.buffer[end - 1] === 0x0a) end -= 2;
      const frame = Buffer.from(this.buffer.subarray(0, end));
      this.buffer = this.buffer.subarray(next);
      this.state = { kind: 'seek' };
      if (frame.length > 0) this.onFrame(frame);
    }
  }
}

/** Start-of-frame markers that carry the picture size (SOF0-3, 5-7, 9-11, 13-15; not DHT, JPG, DAC). */
function isSof(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** The width and height of a JPEG picture, or undefined when the bytes are not a JPEG. */
export function jpegSize(data: Uint8Array): { width: number; height: number } | undefined {
  if (data.length < 4 || data[0] !== 0xff || data[1] !== 0xd8) return undefined;
  let i = 2;
  while (i + 4 <= data.length) {
    if (data[i] !== 0xff) return undefined;
    const marker = data[i + 1] as number;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined;
    const len = ((data[i + 2] as number) << 8) | (data[i + 3] as number);
    if (len < 2) return undefined;
    if (isSof(marker)) {
      if (i + 9 > data.length) return undefined;
      const height = ((data[i + 5] as number) << 8) | (data[i + 6] as number);
      const width = ((data[i + 7] as number) << 8) | (data[i + 8] as number);
      return width > 0 && height > 0 ? { width, height } : undefined;
    }
    i += 2 + len;
  }
  return undefined;
}

/** Whether bytes look like a whole JPEG (SOI at the start, EOI at the end, give or take padding). */
export function isJpeg(data: Uint8Array): boolean {
  if (data.length < 4 || data[0] !== 0xff || data[1] !== 0xd8) return false;
  for (let i = data.length - 2; i >= Math.max(2, data.length - 64); i--)
    if (data[i] === 0xff && data[i + 1] === 0xd9) return true;
  return false;
}
