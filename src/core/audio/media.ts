/**
 * Audio by URL (`POST media/audio-player`, and the audio of remote TTS engines): checked, fetched
 * within limits, decoded and handed to the arbiter. The fetching itself is a driver
 * (src/drivers/audio/http-fetch.ts); this service only sees its outcome.
 */
import type { AudioArbiter, Layer, Playing } from './arbiter.ts';
import { decodeAudio } from './decode.ts';
import type { Pcm } from './pcm.ts';
import { AudioFormatError } from './wav.ts';

export type FetchOutcome = { ok: true; bytes: Buffer } | { ok: false; reason: string };

/** Fetches a URL's body, at most `maxBytes`, within `timeoutMs`. Never throws. */
export interface AudioFetcher {
  fetch(url: URL, limits: { maxBytes: number; timeoutMs: number }): Promise<FetchOutcome>;
}

export interface MediaLimits {
  /** Largest audio file fetched, bytes. */
  maxBytes: number;
  /** Longest a fetch may take, ms. */
  timeoutMs: number;
  /** Longest audio kept after decoding, seconds. */
  maxSeconds: number;
}

export type LoadOutcome = { ok: true; pcm: Pcm } | { ok: false; reason: string };
/** `refused`: the audio was fine, but the arbiter did not play it (something above it plays). */
export type MediaOutcome = { ok: true; playing: Playing } | { ok: false; reason: string; refused?: boolean };

/** Longest URL accepted. */
export const MAX_URL_LENGTH = 2048;

/** Parses an audio URL: http or https only. Returns the URL, or the reason it is refused. */
export function checkAudioUrl(raw: unknown): URL | string {
  if (typeof raw !== 'string' || raw.trim() === '') return 'must be a non-empty string';
  if (raw.length > MAX_URL_LENGTH) return `longer than ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return `${JSON.stringify(raw.slice(0, 200))} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `${url.protocol} URLs are not fetched (http and https only)`;
  return url;
}

export interface MediaDeps {
  fetcher: AudioFetcher;
  arbiter: AudioArbiter;
  limits: MediaLimits;
  /** Audio the gateway itself serves (synthesised speech), found without a request to itself. */
  local?: (url: URL) => Pcm | undefined;
}

export class MediaPlayer {
  constructor(private readonly deps: MediaDeps) {}

  /** Fetches and decodes the audio at `url`; `timeoutMs` shortens the fetch limit (a caller's deadline). */
  async load(url: URL, timeoutMs = this.deps.limits.timeoutMs): Promise<LoadOutcome> {
    const local = this.deps.local?.(url);
    if (local) return { ok: true, pcm: local };
    const { maxBytes, maxSeconds } = this.deps.limits;
    const wait = Math.min(timeoutMs, this.deps.limits.timeoutMs);
    if (wait <= 0) return { ok: false, reason: 'no time was left to fetch the audio' };
    const got = await this.deps.fetcher.fetch(url, { maxBytes, timeoutMs: wait });
    if (!got.ok) return got;
    try {
      return { ok: true, pcm: await decodeAudio(got.bytes, maxSeconds) };
    } catch (err) {
      if (err instanceof AudioFormatError) return { ok: false, reason: err.message };
      throw err;
    }
  }

  /** Fetches, decodes and plays the audio at `url` once, at media priority unless told otherwise. */
  async play(
    url: URL,
    opts: { layer?: Layer; volume?: number; name?: string; timeoutMs?: number } = {},
  ): Promise<MediaOutcome> {
    const loaded = await this.load(url, opts.timeoutMs);
    if (!loaded.ok) return loaded;
    const played = this.deps.arbiter.play({
      layer: opts.layer ?? 'media',
      name: opts.name ?? url.href,
      clip: loaded.pcm,
      volume: opts.volume,
    });
    return played.ok ? played : { ...played, refused: true };
  }
}
