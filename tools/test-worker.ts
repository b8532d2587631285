/**
 * One of `npm test`'s worker processes (tools/test.ts starts them). It asks its parent for a test file,
 * runs it as one suite named after the file, reports how long it took, and asks again until the parent
 * answers none. A process thus loads the service's modules (Fastify, its plugins, the search's stemmer,
 * TypeBox's compiled schemas: about 1.3 s of CPU) once for many files instead of once per file.
 *
 * It ends, and the parent starts another, once its heap is large (RETIRE_AT_BYTES). What files keep
 * for the files after them (tools/test-process.ts: one Chromium for all the page's tests) is closed
 * when it ends.
 *
 * Node's test runner reports as usual (the `spec` reporter on stdout); each file's tests sit under one
 * suite named by the file, and a file's top-level `before`/`after` hooks are that suite's.
 */
import { resolve } from 'node:path';
import { describe } from 'node:test';
import { pathToFileURL } from 'node:url';
import { closeKept, runsManyFiles } from './test-process.js';

/** What the parent sends: the next file to run (relative to the project's root), or null when there is none. */
export interface NextFile {
  readonly file: string | null;
}

/** What a worker sends: ready for a file, or done with one (in seconds), and whether it now ends (RETIRE_AT_BYTES). */
export type WorkerMessage = { readonly ready: true } | { readonly done: string; readonly seconds: number; readonly retiring: boolean };

function next(): Promise<string | null> {
  return new Promise((answer) => {
    process.once('message', (message: NextFile) => answer(message.file));
    process.send!({ ready: true } satisfies WorkerMessage);
  });
}

if (process.send === undefined) throw new Error('tools/test-worker.js is started by npm test (tools/test.js), with an IPC channel');

/**
 * A worker that holds this much heap after a file ends, and a new one takes over: the test runner keeps
 * every finished test (and what its closures hold: apps, servers' caches), and a heap of a gigabyte makes
 * every collection slower than a new process would be.
 */
const RETIRE_AT_BYTES = 384 * 2 ** 20;

/** A file whose tests have not ended after this long fails, and the worker goes on with the next (a hang is a failure, not a wait). */
const FILE_TIMEOUT_MS = 15 * 60 * 1000;

runsManyFiles();
for (let file = await next(); file !== null;) {
  const started = process.hrtime.bigint();
  const url = pathToFileURL(resolve(file)).href;
  await describe(file, { timeout: FILE_TIMEOUT_MS }, async () => {
    await import(url);
  });
  const retiring = process.memoryUsage().heapUsed > RETIRE_AT_BYTES;
  process.send({ done: file, seconds: Number(process.hrtime.bigint() - started) / 1e9, retiring } satisfies WorkerMessage);
  file = retiring ? null : await next();
}
// What the files kept for each other (test/browser.ts's Chromium) would otherwise keep the process alive.
await closeKept();
process.disconnect();
