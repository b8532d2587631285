/**
 * The batches' worker threads (src/lotes/threaded.ts): a thread idle for its time ends and gives its
 * memory back, and the next slice starts it again with the same answers; LOTES_HILOS `auto` leaves
 * each process's event loop a core.
 */
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { lotesThreads } from '../../src/config-values.js';
import type { RawLine } from '../../src/lotes/columns.js';
import { ThreadChecker } from '../../src/lotes/threaded.js';
import { waitFor } from '../lifetime.js';
import { database } from '../databases.js';
import { TEST_SECRET } from '../service-env.js';

test('an idle thread ends, and the next slice starts it again with the same answers', { timeout: 300_000 }, async (t) => {
  // The fixture, not the demo: each of the two threads builds its search structures at each start (four
  // builds here), and what is tested is that a restarted thread answers as before, which the fixture's
  // descriptions and fractions show (searched candidates, a fraction's records) as the demo's would.
  const db = await database(t, 'sqlite');
  const config = loadConfig({ DATABASE_URL: db.url, JWT_SECRET: TEST_SECRET });
  const checker = new ThreadChecker(config, 2, 300);
  t.after(() => checker.close());
  const lines: RawLine[] = ['descripcion texto cafe', 'tornillos de acero', 'cafe nino', ''].map((descripcion, i) => ({
    linea: i + 1,
    values: { descripcion, fraccion: i === 3 ? '01012101' : '' },
    extra: {},
  }));
  const parameters = { fecha: '2026-01-15', paisOrigen: null };
  const first = await checker.check(null, true, parameters, lines);
  assert.equal(first.length, lines.length);
  assert.ok(
    first.some((r) => (JSON.parse(r.datos) as { candidatas: unknown[] }).candidatas.length > 0),
    'the answers hold searched candidates',
  );
  assert.ok(checker.running >= 1, 'a thread answered');
  await waitFor('the idle threads to end', () => checker.running === 0, 60_000);
  const again = await checker.check(null, true, parameters, lines);
  assert.deepEqual(again, first);
});

test('LOTES_HILOS auto leaves the event loop a core, at least one thread', () => {
  const cores = availableParallelism();
  const auto = lotesThreads(loadConfig({ JWT_SECRET: TEST_SECRET, WORKERS: '1' }));
  assert.equal(auto, Math.max(1, cores - 1));
  assert.equal(lotesThreads(loadConfig({ JWT_SECRET: TEST_SECRET, WORKERS: String(cores) })), 1);
  assert.equal(lotesThreads(loadConfig({ JWT_SECRET: TEST_SECRET, LOTES_HILOS: '3' })), 3);
});
