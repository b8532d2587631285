/**
 * A worker thread of the demo build (data/startup.ts): writes one version of the demo dataset into a
 * file of its own and answers with what the load committed. Versions are independent until they are
 * put together, so each can be built on a core of its own.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { writeDemoVersion } from '../startup.js';
import { demoVersions } from './index.js';

const { index, file, sourcesDir } = workerData as { index: number; file: string; sourcesDir: string };
const version = demoVersions(sourcesDir)[index];
if (!version) throw new Error(`the demo dataset has no version ${index}`);
parentPort?.postMessage(await writeDemoVersion(file, version));
