// The first module of every worker thread the gateway starts (src/lib/workers.ts): it loads the
// worker's own module, given as a file URL. Under tsx (tests, `npm run dev`) that module is
// TypeScript, and a worker does not inherit the parent's loader hooks: tsx is registered here
// first. From the bundle (dist/) the module is JavaScript and nothing else is loaded.
// Plain JavaScript, so that node runs it as it is from src/ in both cases.
import { workerData } from 'node:worker_threads';

const entry = String(workerData?.entry ?? '');
if (entry.endsWith('.ts')) (await import('tsx/esm/api')).register();
await import(entry);
