/**
 * Worker threads for work that would hold the event loop (decoding audio, checking a restored
 * store): every client waits while one request computes for a second. A worker's module is
 * `src/<name>.ts`, named `*-worker.ts`; the build makes it `dist/<name>.js` (scripts/build.mjs).
 * Both are found from the package root (src/lib/package-root.ts) and loaded through
 * worker-entry.mjs, which registers tsx when the gateway itself runs from source.
 */
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { fromPackageRoot } from './package-root.ts';

/** Whether this code runs from src/ under tsx (its own module is TypeScript) rather than from the bundle. */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** The file of the worker `name` (`core/audio/decode-worker`) in this installation. */
export function workerFile(name: string): string {
  return FROM_SOURCE ? fromPackageRoot('src', `${name}.ts`) : fromPackageRoot('dist', `${name}.js`);
}

/** Starts the worker `name`; `data` reaches it as `workerData.data`. */
export function startWorker(name: string, data?: unknown): Worker {
  return new Worker(fromPackageRoot('src', 'lib', 'worker-entry.mjs'), {
    workerData: { entry: pathToFileURL(workerFile(name)).href, data },
    // The gateway's own flags (a heap size, a preload) are not the worker's business.
    execArgv: [],
  });
}

/**
 * Runs the worker `name` for one answer: it gets `data` and posts one message back, which this
 * resolves with; the worker ends then. Rejects when it fails or ends without an answer.
 */
export function runWorker<T>(name: string, data: unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const worker = startWorker(name, data);
    let answered = false;
    worker.once('message', (answer: T) => {
      answered = true;
      resolve(answer);
      void worker.terminate();
    });
    worker.once('error', (err) => {
      answered = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the ${name} worker ended (code ${code}) without an answer`));
    });
  });
}
