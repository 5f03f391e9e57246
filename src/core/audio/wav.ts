/**
 * RIFF/WAVE reading and writing. Writing is always the gateway's own format (mono 16-bit PCM);
 * reading accepts what engines and servers send: integer PCM of 8, 16, 24 or 32 bits, 32/64-bit
 * float, WAVE_FORMAT_EXTENSIBLE, any channel count (mixed down), any rate (resampled), and a data
 * size that is wrong or "unknown" (streamed WAV, as `espeak-ng --stdout` writes it).
 */
import { downmix, fromFloat, type Pcm } from './pcm.ts';

/** Raised for bytes that are not a WAV file this gateway can play; the message says why. */
export class AudioFormatError extends Error {}

/** Bytes of the canonical 44-byte header. */
export const WAV_HEADER_BYTES = 44;

/** The 44-byte header of mono 16-bit PCM; `dataBytes` past 4 GiB, or unknown, is written as the maximum. */
export function wavHeader(rate: number, dataBytes: number): Buffer {
  const data = Math.min(dataBytes, 0xffffffff - 36);
  const b = Buffer.alloc(WAV_HEADER_BYTES);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVE', 8, 'ascii');
  b.write('fmt ', 12, 'ascii');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'ascii');
  b.writeUInt32LE(data, 40);
  return b;
}

/** Whether this machine keeps numbers little-endian, as WAV does (x86, ARM as Linux runs it). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The PCM bytes of `pcm`, little-endian. On a little-endian machine a copy of the samples' own
 * bytes (one memcpy: ten minutes of audio are 26 MB, and a loop over them held the event loop for
 * a tenth of a second); elsewhere each sample is written in order.
 */
export function pcmBytes(pcm: Pcm): Buffer {
  const s = pcm.samples;
  if (LITTLE_ENDIAN) return Buffer.from(new Uint8Array(s.buffer, s.byteOffset, s.byteLength));
  const b = Buffer.alloc(s.length * 2);
  for (let i = 0; i < s.length; i++) b.writeInt16LE(s[i] as number, i * 2);
  return b;
}

/** A complete WAV file of `pcm`. */
export function encodeWav(pcm: Pcm): Buffer {
  const data = pcmBytes(pcm);
  return Buffer.concat([wavHeader(pcm.rate, data.length), data]);
}

/** True when the bytes start like a RIFF/WAVE file. */
export function looksLikeWav(bytes: Uint8Array): boolean {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 12));
  return b.length >= 12 && b.toString('ascii', 0, 4) === 'RIFF' && b.toString('ascii', 8, 12) === 'WAVE';
}

interface Format {
  tag: number;
  channels: number;
  rate: number;
  bits: number;
}

const PCM = 1;
const FLOAT = 3;
const EXTENSIBLE = 0xfffe;

/** Decodes a WAV file to mono 16-bit PCM at its own rate. Throws AudioFormatError with the reason. */
export function decodeWav(bytes: Uint8Array): Pcm {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (!looksLikeWav(b)) throw new AudioFormatError('not a WAV file (no RIFF/WAVE header)');
  let pos = 12;
  let fmt: Format | undefined;
  while (pos + 8 <= b.length) {
    const id = b.toString('ascii', pos, pos + 4);
    const size = b.readUInt32LE(pos + 4);
    const body = pos + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > b.length) throw new AudioFormatError('WAV fmt chunk is truncated');
      let tag = b.readUInt16LE(body);
      if (tag === EXTENSIBLE && size >= 26 && body + 26 <= b.length) tag = b.readUInt16LE(body + 24);
      fmt = {
        tag,
        channels: b.readUInt16LE(body + 2),
        rate: b.readUInt32LE(body + 4),
        bits: b.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!fmt) throw new AudioFormatError('WAV data chunk comes before its fmt chunk');
      // A streamed WAV says "unknown" (or too much): take what is there.
      const end = Math.min(b.length, body + size);
      return decodeData(b.subarray(body, end), fmt);
    }
    // Chunks are padded to an even size.
    pos = body + size + (size % 2);
  }
  throw new AudioFormatError(fmt ? 'WAV file has no data chunk' : 'WAV file has no fmt chunk');
}

function decodeData(data: Buffer, f: Format): Pcm {
  if (f.channels < 1 || f.channels > 32) throw new AudioFormatError(`WAV has ${f.channels} channels`);
  if (f.rate < 1000 || f.rate > 384000) throw new AudioFormatError(`WAV sample rate ${f.rate} Hz is not playable`);
  const bytesPer = f.bits / 8;
  const supported =
    (f.tag === PCM && [8, 16, 24, 32].includes(f.bits)) || (f.tag === FLOAT && (f.bits === 32 || f.bits === 64));
  if (!supported) throw new AudioFormatError(`WAV encoding ${f.tag} with ${f.bits} bits is not supported`);
  const frames = Math.floor(data.length / (bytesPer * f.channels));
  const read = (off: number): number => {
    if (f.tag === FLOAT) return f.bits === 32 ? data.readFloatLE(off) : data.readDoubleLE(off);
    switch (f.bits) {
      case 8:
        return ((data[off] as number) - 128) / 128;
      case 16:
        return data.readInt16LE(off) / 32768;
      case 24:
        return data.readIntLE(off, 3) / 8388608;
      default:
        return data.readInt32LE(off) / 2147483648;
    }
  };
  if (f.channels === 1 && f.tag === PCM && f.bits === 16) {
    const out = new Int16Array(frames);
    for (let i = 0; i < frames; i++) out[i] = data.readInt16LE(i * 2);
    return { rate: f.rate, samples: out };
  }
  const channels: Float32Array[] = [];
  for (let c = 0; c < f.channels; c++) {
    const ch = new Float32Array(frames);
    for (let i = 0; i < frames; i++) {
      const v = read((i * f.channels + c) * bytesPer);
      ch[i] = Number.isFinite(v) ? v : 0;
    }
    channels.push(ch);
  }
  return fromFloat(downmix(channels, frames), f.rate);
}
