/**
 * Audio by URL (`POST media/audio-player`, and the audio of remote TTS engines): checked, fetched
 * within limits, decoded and handed to the arbiter. The fetching itself is a driver
 * (src/drivers/audio/http-fetch.ts); this service only sees its outcome.
 *
 * A client may name any URL, so the gateway's answer must not make it a scanner or a reader of
 * the network (issue 24): a failure is one of three sentences (REASONS), never what the server
 * sent or how the connection ended; the detail goes to the debug log.
 */
import type { Log } from '../../lib/log.ts';
import type { AudioArbiter, Layer, Playing } from './arbiter.ts';
import { decodeAudio } from './decode.ts';
import type { Pcm } from './pcm.ts';
import { AudioFormatError } from './wav.ts';

/** A fetch's outcome: the bytes, or the kind of failure and, for the debug log only, its detail. */
export type FetchOutcome =
  | { ok: true; bytes: Buffer }
  | { ok: false; kind: 'unreachable' | 'too_large' | 'not_audio'; detail: string };

/** What a client is told of a failed fetch or decode: the same words, whatever the server did. */
export const REASONS = {
  unreachable:
    'the audio could not be fetched (the server could not be reached, did not answer in time, or answered with an error or a redirect it may not take)',
  not_audio: 'the answer is not audio this gateway plays (WAV or MP3)',
  too_large: (maxBytes: number) => `the audio is larger than the ${maxBytes} bytes allowed (audio.media_max_bytes)`,
} as const;

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

/** `busy`: refused unfetched, as other audio was being fetched or decoded (MAX_LOADS). */
export type LoadOutcome = { ok: true; pcm: Pcm } | { ok: false; reason: string; busy?: boolean };
/** `refused`: the audio was fine, but the arbiter did not play it (something above it plays). */
export type MediaOutcome = { ok: true; playing: Playing } | { ok: false; reason: string; refused?: boolean };

/**
 * Audio URLs fetched and decoded at once. Each holds up to `audio.media_max_bytes` fetched and
 * ten minutes of samples (26 MB): a client sending many at once would otherwise hold that many
 * times as much. The speaker plays one media at a time anyway.
 */
export const MAX_LOADS = 2;

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
  /** Where the detail of a failure goes (at debug). */
  log?: Log;
  /** Decodes fetched bytes (default: on the event loop; the gateway's decodes large files in a worker, decoder.ts). */
  decode?: (bytes: Uint8Array, maxSeconds: number) => Promise<Pcm>;
}

export class MediaPlayer {
  private loading = 0;

  constructor(private readonly deps: MediaDeps) {}

  /** Fetches and decodes the audio at `url`; `timeoutMs` shortens the fetch limit (a caller's deadline). */
  async load(url: URL, timeoutMs = this.deps.limits.timeoutMs): Promise<LoadOutcome> {
    const local = this.deps.local?.(url);
    if (local) return { ok: true, pcm: local };
    if (this.loading >= MAX_LOADS)
      return {
        ok: false,
        busy: true,
        reason: `the gateway is fetching or decoding ${MAX_LOADS} other audio files: try again in a moment`,
      };
    this.loading++;
    try {
      return await this.fetchAndDecode(url, timeoutMs);
    } finally {
      this.loading--;
    }
  }

  private async fetchAndDecode(url: URL, timeoutMs: number): Promise<LoadOutcome> {
    const { maxBytes, maxSeconds } = this.deps.limits;
    const wait = Math.min(timeoutMs, this.deps.limits.timeoutMs);
    if (wait <= 0) return { ok: false, reason: 'no time was left to fetch the audio' };
    const got = await this.deps.fetcher.fetch(url, { maxBytes, timeoutMs: wait });
    if (!got.ok) {
      this.deps.log?.debug({ url: url.href, detail: got.detail }, 'audio fetch failed');
      return { ok: false, reason: got.kind === 'too_large' ? REASONS.too_large(maxBytes) : REASONS[got.kind] };
    }
    try {
      return { ok: true, pcm: await (this.deps.decode ?? decodeAudio)(got.bytes, maxSeconds) };
    } catch (err) {
      if (!(err instanceof AudioFormatError)) throw err;
      this.deps.log?.debug({ url: url.href, detail: err.message }, 'audio not decoded');
      return { ok: false, reason: REASONS.not_audio };
    }
  }

  /** Fetches, decodes and plays the audio at `url` once, at media priority unless told otherwise. */
  async play(
    url: URL,
    opts: { layer?: Layer; volume?: number; name?: string; timeoutMs?: number } = {},
  ): Promise<MediaOutcome> {
    const loaded = await this.load(url, opts.timeoutMs);
    // Busy is the client's to retry, as a URL that failed (a 400), not a fault of the gateway.
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
