/**
 * The batches' worker thread: answers slices of lines on a store of its own, so that the service's
 * event loop never waits for a batch's work (SQLite reads are synchronous, and on either store a
 * search is planned and ranked in memory) and the batch's memo is bounded by the thread's heap. The thread opens the version it is asked for the way the service does
 * (src/store/datasets.ts: the newest import is the main store, an older version a store of its own).
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config.js';
import { storeKind } from '../config-values.js';
import { loadTables } from '../contribuciones/tables.js';
import { recordSets } from '../record-sets/index.js';
import { driverFor } from '../store/drivers.js';
import type { Store } from '../store/store.js';
import type { VersionInfo } from '../store/versions.js';
import type { LoteParameters } from './answer.js';
import { LineChecker, sliceResult } from './answer.js';
import type { RawLine } from './columns.js';

export interface SliceRequest {
  readonly id: number;
  /** The version to answer on; null: the main store (no catalog). */
  readonly version: VersionInfo | null;
  /** Whether `version` is the newest import, held by the main store. */
  readonly newest: boolean;
  readonly parameters: LoteParameters;
  readonly lines: readonly RawLine[];
}

/**
 * The thread's SQLite page cache: at most 1 MiB. The search ranks in memory (src/buscar/ranking.ts), so
 * the file is read only for a page of hits and a fraction's records: a 10,000-line batch ran as fast
 * with 1 MiB as with 4 (19.5 s against 23 s, on a busy machine) and better-sqlite3's 16 held 13 MiB more.
 */
const THREAD_CACHE_KIB = 1024;
const given = (workerData as { config: Config }).config;
const config: Config = { ...given, SQLITE_CACHE_KB: Math.min(given.SQLITE_CACHE_KB, THREAD_CACHE_KIB) };
/** On PostgreSQL a slice's distinct searches are asked two at a time: one's page is read while the next is ranked. */
const checker = new LineChecker(recordSets, loadTables(), storeKind(config) === 'postgres' ? 2 : 1);

/**
 * The thread yields the cores to the service's event loop: with one thread per core, a batch would
 * otherwise hold both cores from lookups (p99 73 ms during a 10,000-line batch against 23 ms idle, on a
 * busy machine). A nice of 10 gives the event loop about nine times the thread's share when both want a
 * core, and the thread all of a core the loop does not use. Linux names a thread by its id under
 * /proc/thread-self; elsewhere the thread keeps the process's priority.
 */
const THREAD_NICE = 10;
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), THREAD_NICE);
} catch {
  // No per-thread priority here (not Linux, or not allowed): the thread runs as the process does.
}
const stores = new Map<string, Store>();
/** Versions kept open: a batch's and the one before it. */
const KEPT = 2;

function storeFor(request: SliceRequest): Store {
  const key = request.version === null || request.newest ? `main ${request.version?.version ?? ''}` : request.version.version;
  let store = stores.get(key);
  if (!store) {
    const driver = driverFor(config);
    store = request.version === null || request.newest ? driver.open(config) : driver.openVersion(config, request.version);
    stores.set(key, store);
    for (const [old, kept] of stores) {
      if (stores.size <= KEPT) break;
      stores.delete(old);
      void kept.close();
    }
  }
  return store;
}

parentPort?.on('message', (request: SliceRequest) => {
  void (async () => {
    try {
      const results = (await checker.check(storeFor(request), request.parameters, request.lines)).map(sliceResult);
      parentPort?.postMessage({ id: request.id, results });
    } catch (error) {
      parentPort?.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
    }
  })();
});
