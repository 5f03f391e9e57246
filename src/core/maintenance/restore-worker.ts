/**
 * A restore's checks in a worker thread (store-restore.ts): reading, checking and migrating a
 * store of tens of MB held a running gateway's event loop for over a second. `workerData.data` is
 * `{path, stage, name}`; the answer is the RestoreCheck.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { prepareRestore } from './store-restore.ts';

const { path, stage, name } = workerData.data as { path: string; stage: string; name: string };
parentPort?.postMessage(prepareRestore(path, stage, name));
