/**
 * The audio decoder's worker thread (decoder.ts): decodes one file at a time, as it is asked,
 * off the gateway's event loop. Messages: `{id, bytes, maxSeconds}` in; `{id, rate, samples}` or
 * `{id, error, format}` out (`format`: the file is not playable audio, the message says why).
 */
import { parentPort } from 'node:worker_threads';
import { decodeAudio } from './decode.ts';
import { AudioFormatError } from './wav.ts';

const port = parentPort;
if (!port) throw new Error('decode-worker runs as a worker thread');
port.on('message', async (job: { id: number; bytes: Uint8Array; maxSeconds: number }) => {
  try {
    const pcm = await decodeAudio(job.bytes, job.maxSeconds);
    // A copy of exactly the samples (they may be a view of a larger buffer), handed over without another.
    const samples = pcm.samples.slice();
    port.postMessage({ id: job.id, rate: pcm.rate, samples }, [samples.buffer]);
  } catch (err) {
    port.postMessage({ id: job.id, error: (err as Error).message, format: err instanceof AudioFormatError });
  }
});
