/**
 * A TTS engine service on 127.0.0.1 that behaves as the public TTS add-on does: it registers
 * with the gateway (RegisterTTSEngine), answers SyncTTSAudioList and SynthesizeSpeech on one
 * callback address (`{event:{header:{name:"Response"}, payload}}`), and serves its WAV files.
 * Its "speech" is a tone whose pitch and length follow the text, so each synthesis is its own.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeWav } from '../../src/core/audio/wav.ts';
import { sine } from './audio.ts';
import { sendEvent } from './thirdparty.ts';

export type EngineMode = 'normal' | 'silent' | 'error' | 'no-audio' | 'bad-list' | 'dead-audio';

export interface FakeEngine {
  /** The callback address it registers. */
  url: string;
  base: string;
  /** Directives received, as parsed JSON. */
  directives: any[];
  /** Files it serves, by name. */
  files: Map<string, Buffer>;
  mode: EngineMode;
  /** Registers with the gateway; returns the engine id. */
  register(g: { url: string }, token: string, name?: string): Promise<string>;
  close(): Promise<void>;
}

/** The audio the fake engine makes for a text. */
export function fakeSpeech(text: string): Buffer {
  return encodeWav(sine(200 + (text.length % 50) * 10, 300 + text.length * 20, 0.4));
}

export async function startTtsEngine(): Promise<FakeEngine> {
  const files = new Map<string, Buffer>([['welcome.wav', fakeSpeech('Welcome home')]]);
  const labels = new Map<string, string>([['welcome.wav', 'Welcome home']]);
  let n = 0;
  const engine: FakeEngine = {
    url: '',
    base: '',
    directives: [],
    files,
    mode: 'normal',
    async register(g, token, name = 'TTS addon') {
      const r = await sendEvent(g, token, 'RegisterTTSEngine', { service_address: engine.url, name });
      if (r.json?.header?.name !== 'Response') throw new Error(`registration failed: ${r.text}`);
      return r.json.payload.engine_id as string;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
  const reply = (res: any, id: string, payload: unknown, name = 'Response') => {
    const body = JSON.stringify({ event: { header: { name, message_id: id, version: '1' }, payload } });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && req.url?.startsWith('/_audio/')) {
        const file = files.get(decodeURIComponent(req.url.slice('/_audio/'.length)));
        if (!file || engine.mode === 'dead-audio') {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': file.length });
        res.end(file);
        return;
      }
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      engine.directives.push(body);
      if (engine.mode === 'silent') return; // never answers
      const header = body?.directive?.header ?? {};
      if (engine.mode === 'error')
        return reply(
          res,
          header.message_id,
          { type: 'INTERNAL_ERROR', description: 'synthesis failed' },
          'ErrorResponse',
        );
      if (header.name === 'SyncTTSAudioList') {
        if (engine.mode === 'bad-list') return reply(res, header.message_id, { audio_list: 'none' });
        const audio_list = [...files.keys()].map((f) => ({
          url: `${engine.base}/_audio/${f}`,
          label: labels.get(f) ?? f,
        }));
        return reply(res, header.message_id, {
          audio_list: [...audio_list, { url: 'ftp://x/y.wav', label: 'bad' }, 7],
        });
      }
      if (header.name === 'SynthesizeSpeech') {
        if (engine.mode === 'no-audio') return reply(res, header.message_id, { audio: { label: 'x' } });
        const text = String(body.directive.payload?.text ?? '');
        const file = `${Date.now()}-${n++}.wav`;
        files.set(file, fakeSpeech(text));
        const label = body.directive.payload?.label ?? file;
        labels.set(file, label);
        return reply(res, header.message_id, { audio: { url: `${engine.base}/_audio/${file}`, label } });
      }
      return reply(
        res,
        header.message_id,
        { type: 'INVALID_PARAMETERS', description: 'invalid header name' },
        'ErrorResponse',
      );
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  engine.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  engine.url = `${engine.base}/api/v1/ihost/callback`;
  return engine;
}
