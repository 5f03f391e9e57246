/**
 * Decoding audio off the event loop. An 8 MiB WAV takes over half a second to decode and resample,
 * eight at once two seconds: on the event loop, every client of the gateway waited that long
 * (issue 24). Files up to INLINE_BYTES are decoded in place (a few milliseconds); larger ones in
 * one worker thread (decode-worker.ts), one after another, started when there is one to decode and
 * ended when none is left, so an idle gateway holds no thread. Errors are those of decodeAudio.
 */
import type { Worker } from 'node:worker_threads';
import type { Log } from '../../lib/log.ts';
import { startWorker } from '../../lib/workers.ts';
import { decodeAudio } from './decode.ts';
import type { Pcm } from './pcm.ts';
import { AudioFormatError } from './wav.ts';

/** Files up to this size are decoded on the event loop: at most a few milliseconds of work. */
export const INLINE_BYTES = 64 * 1024;

interface Job {
  id: number;
  bytes: Uint8Array;
  maxSeconds: number;
  resolve(pcm: Pcm): void;
  reject(err: Error): void;
}

type Answer = { id: number; rate: number; samples: Int16Array } | { id: number; error: string; format: boolean };

export class AudioDecoder {
  private worker: Worker | undefined;
  private readonly queue: Job[] = [];
  private current: Job | undefined;
  private nextId = 0;
  private closed = false;

  constructor(private readonly opts: { log?: Log; inlineBytes?: number } = {}) {}

  /** Whether a worker thread runs now (one does only while there is audio to decode). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Decodes WAV or MP3 bytes to mono PCM at SAMPLE_RATE; rejects with AudioFormatError saying why not. */
  decode(bytes: Uint8Array, maxSeconds = Number.POSITIVE_INFINITY): Promise<Pcm> {
    if (bytes.length <= (this.opts.inlineBytes ?? INLINE_BYTES)) return decodeAudio(bytes, maxSeconds);
    if (this.closed) return Promise.reject(new AudioFormatError('the gateway is stopping'));
    return new Promise<Pcm>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, bytes, maxSeconds, resolve, reject });
      this.next();
    });
  }

  /** Ends the worker; audio waiting to be decoded is refused. */
  async close(): Promise<void> {
    this.closed = true;
    const waiting = this.queue.splice(0);
    for (const job of waiting) job.reject(new AudioFormatError('the gateway is stopping'));
    const worker = this.worker;
    this.worker = undefined;
    this.current?.reject(new AudioFormatError('the gateway is stopping'));
    this.current = undefined;
    await worker?.terminate();
  }

  private next(): void {
    if (this.current) return;
    const job = this.queue.shift();
    if (!job) {
      // Nothing left: no thread is kept for the next file, which may come days from now.
      const idle = this.worker;
      this.worker = undefined;
      void idle?.terminate();
      return;
    }
    this.current = job;
    const worker = this.worker ?? this.start();
    // A copy (a Buffer's slice() would be a view): the fetched bytes may share their memory with
    // other buffers, which must stay here when this one is handed over.
    const bytes = new Uint8Array(job.bytes);
    worker.postMessage({ id: job.id, bytes, maxSeconds: job.maxSeconds }, [bytes.buffer]);
  }

  private start(): Worker {
    const worker = startWorker('core/audio/decode-worker');
    worker.on('message', (a: Answer) => {
      const job = this.current;
      if (!job || job.id !== a.id) return;
      this.current = undefined;
      if ('samples' in a) job.resolve({ rate: a.rate, samples: a.samples });
      else job.reject(a.format ? new AudioFormatError(a.error) : new Error(a.error));
      this.next();
    });
    const fail = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.opts.log?.error({ err }, 'the audio decoder stopped');
      const job = this.current;
      this.current = undefined;
      job?.reject(new AudioFormatError('the audio could not be decoded'));
      if (!this.closed) this.next();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the decoder's thread ended (code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
