/**
 * Speech synthesised by the built-in engine, kept in memory so that its URL can be fetched (by
 * clients, or by `media/audio-player`, which finds it here without a request to itself) and listed
 * by SyncTTSAudioList. Bounded by count and bytes; the oldest go first. Ids are random: the URL
 * is served without a token, as an add-on serves its files, so it must not be guessable.
 */
import { randomBytes } from 'node:crypto';
import type { Pcm } from '../audio/pcm.ts';
import { encodeWav } from '../audio/wav.ts';

export interface StoredClip {
  file: string;
  label: string;
  pcm: Pcm;
  wav: Buffer;
}

/** The path a stored clip is served at, under the REST tree of v1 (either version serves it). */
export function clipPath(file: string): string {
  return `/open-api/v1/rest/tts/audio/${file}`;
}

const PATH = /^\/open-api\/v\d+\/rest\/tts\/audio\/([0-9a-f]{32}\.wav)$/i;

export class ClipStore {
  private readonly clips = new Map<string, StoredClip>();
  private bytes = 0;

  constructor(
    private readonly maxClips = 50,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  /** Keeps a clip; returns it with its file name. */
  put(pcm: Pcm, label: string): StoredClip {
    const file = `${randomBytes(16).toString('hex')}.wav`;
    const clip = { file, label, pcm, wav: encodeWav(pcm) };
    this.clips.set(file, clip);
    this.bytes += clip.wav.length;
    for (const [k, c] of this.clips) {
      if (this.clips.size <= this.maxClips && this.bytes <= this.maxBytes) break;
      if (k === file) break;
      this.clips.delete(k);
      this.bytes -= c.wav.length;
    }
    return clip;
  }

  get(file: string): StoredClip | undefined {
    return this.clips.get(file.toLowerCase());
  }

  /** Every clip, newest first. */
  list(): StoredClip[] {
    return [...this.clips.values()].reverse();
  }

  /** The audio of a URL that points at a stored clip (any host: the gateway has many names). */
  resolve(url: URL): Pcm | undefined {
    const m = PATH.exec(url.pathname);
    return m ? this.get(m[1] as string)?.pcm : undefined;
  }
}
