/**
 * The batches' worker's bookkeeping (src/lotes/worker.ts, src/lotes/tables.ts) on each store's working
 * tables, with the slices' answers given by the test: a batch whose slice fails on every take ends
 * `fallido` after MAX_TAKES takes, keeping what was committed, while one whose slices fail now and then
 * is finished. The answers themselves are tested through the service (test/lotes.test.ts); here only
 * what the worker does when they fail. Time is the test's (`now`), so every lease has run out at the
 * next look and no test waits one out.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import type { RawLine } from '../../src/lotes/columns.js';
import { MAX_TAKES, LotesTables } from '../../src/lotes/tables.js';
import type { SliceResult } from '../../src/lotes/tables.js';
import { LotesWorker, SLICE_LINES } from '../../src/lotes/worker.js';
import type { Store } from '../../src/store/store.js';
import { openWorkDb } from '../../src/store/work.js';
import { newBatch } from '../batch-end.js';
import { database } from '../databases.js';
import { defer, waitFor } from '../lifetime.js';
import { testConfig } from '../service-env.js';
import { storeKinds } from '../stores.js';

const LINES = 2 * SLICE_LINES + 50;

/** A batch of `LINES` lines, stored as the route stores one. */
async function storedBatch(tables: LotesTables): Promise<string> {
  const lines = Array.from({ length: LINES }, (_, i) => `${i + 2}\t{"values":{"descripcion":"caballos ${i}"},"extra":{}}\n`);
  const batch = newBatch('ana');
  const file = {
    lines: LINES,
    extraColumns: [],
    stored: async function* () {
      yield await Promise.resolve(lines.join(''));
    },
  };
  assert.equal(await tables.create(batch, 3, file), 'stored');
  return batch.id;
}

/** A worker over `tables` whose slices are answered by `answer`; an hour passes between two looks at the clock. */
function workerOf(tables: LotesTables, answer: (lines: readonly RawLine[]) => SliceResult[]): LotesWorker {
  let clock = Date.parse('2024-01-01T00:00:00Z');
  return new LotesWorker({
    tables,
    versions: { on: () => ({ store: {} as Store, version: null }), storeFor: () => ({}) as Store },
    check: (_version, _store, _parameters, lines) => Promise.resolve().then(() => answer(lines)),
    log: Fastify({ logger: false }).log,
    retentionDays: 30,
    leaseMs: 20_000,
    now: () => new Date((clock += 3_600_000)),
  });
}

const answered = (lines: readonly RawLine[]): SliceResult[] => lines.map((line) => ({ linea: line.linea, revisar: false, error: false, datos: '{}' }));

for (const kind of await storeKinds()) {
  describe(`the batches' worker when a slice fails (${kind})`, () => {
    test(`a batch whose slice fails on every take is failed after ${MAX_TAKES} takes, its committed lines kept`, async (t) => {
      const db = await database(t, kind);
      const tables = new LotesTables(openWorkDb(testConfig({ DATABASE_URL: db.url })));
      defer(t, () => tables.db.close());
      const id = await storedBatch(tables);
      let slices = 0;
      let failedTakes = 0;
      const worker = workerOf(tables, (lines) => {
        if (++slices === 1) return answered(lines);
        failedTakes++;
        throw new Error('the thread died');
      });
      worker.start();
      defer(t, () => worker.stop());
      await waitFor('the batch failed', async () => (await tables.byId(id))?.estado === 'fallido');
      assert.equal(failedTakes, MAX_TAKES);
      const lote = await tables.byId(id);
      assert.equal(lote?.procesadas, SLICE_LINES);
      assert.notEqual(lote?.terminado, null);
      assert.equal((await tables.results(id, 0, LINES, false)).length, SLICE_LINES);
    });

    test('a batch whose slices fail now and then (once each, fewer than the bound) is finished, every line once', async (t) => {
      const db = await database(t, kind);
      const tables = new LotesTables(openWorkDb(testConfig({ DATABASE_URL: db.url })));
      defer(t, () => tables.db.close());
      const id = await storedBatch(tables);
      const tried = new Set<number>();
      const worker = workerOf(tables, (lines) => {
        const first = lines[0]!.linea;
        if (tried.has(first)) return answered(lines);
        tried.add(first);
        throw new Error('the thread died');
      });
      worker.start();
      defer(t, () => worker.stop());
      await waitFor('the batch finished', async () => (await tables.byId(id))?.estado === 'terminado');
      assert.equal(tried.size, 3);
      assert.equal((await tables.byId(id))?.procesadas, LINES);
      const results = await tables.results(id, 0, LINES + 1, false);
      assert.deepEqual(
        results.map((r) => r.linea),
        Array.from({ length: LINES }, (_, i) => i + 2),
      );
    });
  });
}
