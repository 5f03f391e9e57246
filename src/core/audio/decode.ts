/**
 * Turns fetched audio bytes into the gateway's PCM: WAV (wav.ts) and MP3, recognised by their
 * first bytes, never by a file name or Content-Type (servers get those wrong). MP3 is decoded by
 * mpg123 compiled to WebAssembly (the `mpg123-decoder` package, MIT; mpg123 is LGPL-2.1): no
 * system library or ffmpeg is needed.
 */
import { downmix, fromFloat, type Pcm, resample, SAMPLE_RATE } from './pcm.ts';
import { AudioFormatError, decodeWav, looksLikeWav } from './wav.ts';

/** Input handed to the MP3 decoder at a time; between pieces the event loop runs. */
const MP3_PIECE = 64 * 1024;

/** True for an ID3 tag or an MPEG audio frame header at the start. */
export function looksLikeMp3(b: Uint8Array): boolean {
  if (b.length >= 3 && b[0] === 0x49 && b[1] === 0x44 && b[2] === 0x33) return true; // "ID3"
  // Frame sync (11 bits), a valid layer, and a bitrate index that is not "bad".
  return (
    b.length >= 4 &&
    b[0] === 0xff &&
    ((b[1] as number) & 0xe0) === 0xe0 &&
    ((b[1] as number) & 0x06) !== 0 &&
    ((b[2] as number) & 0xf0) !== 0xf0
  );
}

/** Which format the bytes are in, if one this gateway plays. */
export function sniffAudio(b: Uint8Array): 'wav' | 'mp3' | undefined {
  return looksLikeWav(b) ? 'wav' : looksLikeMp3(b) ? 'mp3' : undefined;
}

/** Decodes MP3 to mono PCM at SAMPLE_RATE, keeping at most `maxSeconds`. */
export async function decodeMp3(bytes: Uint8Array, maxSeconds = Number.POSITIVE_INFINITY): Promise<Pcm> {
  // Loaded on the first MP3 (its WebAssembly with it): most gateways never play one.
  const { MPEGDecoder } = await import('mpg123-decoder');
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const parts: Int16Array[] = [];
    let rate = 0;
    let frames = 0;
    for (let at = 0; at < bytes.length; at += MP3_PIECE) {
      const out = decoder.decode(bytes.subarray(at, at + MP3_PIECE));
      if (out.samplesDecoded > 0) {
        if (rate !== 0 && out.sampleRate !== rate) throw new AudioFormatError('MP3 changes its sample rate midway');
        rate = out.sampleRate;
        parts.push(fromFloat(downmix(out.channelData, out.samplesDecoded), rate).samples);
        frames += out.samplesDecoded;
        if (frames / rate >= maxSeconds) break;
      }
      // A long file must not hold the gateway's event loop for its whole decoding.
      await new Promise((r) => setImmediate(r));
    }
    if (frames === 0) throw new AudioFormatError('MP3 has no decodable audio frames');
    const all = new Int16Array(Math.min(frames, Math.floor(maxSeconds * rate) || frames));
    let pos = 0;
    for (const p of parts) {
      if (pos >= all.length) break;
      all.set(p.subarray(0, all.length - pos), pos);
      pos += p.length;
    }
    return resample({ rate, samples: all }, SAMPLE_RATE);
  } finally {
    decoder.free();
  }
}

/** Decodes WAV or MP3 bytes to mono PCM at SAMPLE_RATE; throws AudioFormatError saying why not. */
export async function decodeAudio(bytes: Uint8Array, maxSeconds = Number.POSITIVE_INFINITY): Promise<Pcm> {
  const format = sniffAudio(bytes);
  if (format === 'mp3') return decodeMp3(bytes, maxSeconds);
  // Never the bytes themselves: they may be a page of whatever server the URL named (issue 24).
  if (format !== 'wav') throw new AudioFormatError('not WAV or MP3 audio');
  const pcm = resample(decodeWav(bytes), SAMPLE_RATE);
  const max = Math.floor(maxSeconds * SAMPLE_RATE);
  return pcm.samples.length > max ? { rate: pcm.rate, samples: pcm.samples.subarray(0, max) } : pcm;
}
