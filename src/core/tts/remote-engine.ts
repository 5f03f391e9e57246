/**
 * An engine registered by a third party (RegisterTTSEngine), spoken to with directives to its
 * service address through the same directive client as third-party devices: the same 3 s limit
 * and the same reading of replies (COMPAT.md). The public TTS add-on answers both directives on
 * one callback address, wrapped as `{event:{header, payload}}` with header name `Response`.
 *
 * - `SyncTTSAudioList`, payload `{}`: reply payload `{audio_list: [{url, label}]}`.
 * - `SynthesizeSpeech`, payload `{text, label?, language?}`: reply payload `{audio: {url, label}}`.
 */

import { SERVICE_FAILED } from '../../catalog/errors.ts';
import { isObject } from '../../lib/object.ts';
import type { AudioRef, SpeechEngine, Synthesis, SynthesisRequest, TtsContext, TtsOutcome, Voice } from './engine.ts';
import type { TtsEngine } from './engines.ts';

/** How a directive ended; the shape of the directive client's reply (src/drivers/thirdparty/directives.ts). */
export type DirectiveResult =
  | { kind: 'ok'; payload: Record<string, unknown> }
  | { kind: 'error'; type: string; description?: string }
  | { kind: 'failed'; reason: string; offline: boolean };

/** Sends one directive without an endpoint (TTS directives address the service, not a device). */
export interface DirectiveSender {
  send(
    address: string,
    name: string,
    version: string,
    endpoint: undefined,
    payload: Record<string, unknown>,
    waitMs?: number,
  ): Promise<DirectiveResult>;
}

function httpUrl(v: unknown): string | undefined {
  if (typeof v !== 'string' || v.length > 2048) return undefined;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The label of an audio item: as sent, else the last part of its URL path. */
function labelOf(label: unknown, url: string): string {
  if (typeof label === 'string' && label.trim() !== '') return label.slice(0, 256);
  return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || url;
}

export class RemoteEngine implements SpeechEngine {
  readonly id: string;
  readonly name: string;

  constructor(
    private readonly record: TtsEngine,
    private readonly directives: DirectiveSender,
    private readonly now: () => number,
  ) {
    this.id = record.id;
    this.name = record.name;
  }

  async voices(): Promise<Voice[]> {
    return [];
  }

  async audioList(ctx: TtsContext): Promise<TtsOutcome<AudioRef[]>> {
    const r = await this.send('SyncTTSAudioList', {}, ctx);
    if (!r.ok) return r;
    const list = r.value.audio_list;
    if (!Array.isArray(list))
      return { ok: false, kind: 'bad_reply', message: `engine ${this.name}: the reply has no audio_list array` };
    const out: AudioRef[] = [];
    // Items without a usable URL are left out rather than failing the whole list.
    for (const item of list) {
      const url = isObject(item) ? httpUrl(item.url) : undefined;
      if (url) out.push({ url, label: labelOf((item as Record<string, unknown>).label, url) });
    }
    return { ok: true, value: out };
  }

  async synthesize(req: SynthesisRequest, ctx: TtsContext): Promise<TtsOutcome<Synthesis>> {
    const payload: Record<string, unknown> = { text: req.text };
    if (req.label !== undefined) payload.label = req.label;
    if (req.language !== undefined) payload.language = req.language;
    const r = await this.send('SynthesizeSpeech', payload, ctx);
    if (!r.ok) return r;
    const audio = r.value.audio;
    const url = isObject(audio) ? httpUrl(audio.url) : undefined;
    if (!url)
      return {
        ok: false,
        kind: 'bad_reply',
        message: `engine ${this.name}: the reply has no audio.url (http or https)`,
      };
    return { ok: true, value: { url, label: labelOf((audio as Record<string, unknown>).label, url) } };
  }

  private async send(
    name: string,
    payload: Record<string, unknown>,
    ctx: TtsContext,
  ): Promise<TtsOutcome<Record<string, unknown>>> {
    const reply = await this.directives.send(
      this.record.service_address,
      name,
      '1',
      undefined,
      payload,
      ctx.deadline - this.now(),
    );
    if (reply.kind === 'ok') return { ok: true, value: reply.payload };
    if (reply.kind === 'error')
      return {
        ok: false,
        kind: 'engine_error',
        message: `engine ${this.name} answered ${reply.type}${reply.description ? ` (${reply.description})` : ''}`,
      };
    // The reason is in the directive client's debug log only (SERVICE_FAILED says why).
    return { ok: false, kind: 'unreachable', message: `engine ${this.name}: ${SERVICE_FAILED}` };
  }
}
