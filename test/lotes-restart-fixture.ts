/**
 * What the batches' tests with real processes share (lotes-restart*.test.ts, lotes-copies.test.ts): a
 * catalogue whose lines all differ, the service started with time to spare, a batch read back once it
 * has ended, and the kill -9 test on either store (describeKilled), each store's in a file of its own
 * (lotes-restart.test.ts, lotes-restart-postgres.test.ts) so that `npm test` runs them side by side.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { StoreKind } from '../src/config-values.js';
import { openWorkDb } from '../src/store/work.js';
import { TEST_PASSWORD, tokenFor } from './clients.js';
import { database, fillDemo } from './databases.js';
import type { Listening } from './process.js';
import { ASK_EVERY_MS } from './lifetime.js';
import { ended } from './batch-end.js';
import { runService, waitFor } from './process.js';
import { testConfig } from './service-env.js';
import { addUser } from './users.js';

/** The service started as runService does, given longer to answer: a start on a busy machine is no failure here. */
export const started = (t: TestContext, env: Record<string, string>): Promise<Listening> => runService(t, env, [], 300_000);

export interface Lote {
  id: string;
  estado: string;
  lineas: number;
  procesadas: number;
}

export const LINES = 600;

/** A catalogue whose lines all differ (no answer is reused from an earlier line). */
export function catalogue(): string {
  const words = ['caballos', 'café', 'tornillos', 'acero', 'asnos', 'gallinas', 'carne', 'leche', 'vidrio', 'papel', 'algodón', 'motor'];
  let csv = 'referencia,descripcion,fraccion,valor_aduana\n';
  for (let i = 0; i < LINES; i++) {
    const fraction = String(1012101 + ((i * 7919) % 97_000_000)).padStart(8, '0');
    csv += `R${i},${words[i % words.length]!} ${words[(i * 5) % words.length]!} ${i},${fraction},${1000 + i}.00\n`;
  }
  return csv;
}

/** Waits for the batch to end on `base`, then reads every line it answered (NDJSON): their numbers in order. */
export async function finished(base: string, id: string, headers: Record<string, string>, what: string): Promise<{ lote: Lote; lines: number[] }> {
  const lote = await ended(what, async () => (await (await fetch(`${base}/api/v1/lotes/${id}`, { headers })).json()) as Lote, 600_000);
  const ndjson = await (await fetch(`${base}/api/v1/lotes/${id}/resultados?formato=ndjson`, { headers })).text();
  const lines = ndjson
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l) as { linea: number }).linea);
  return { lote, lines };
}

/** The line numbers of the catalogue's lines (the header is line 1). */
export const EVERY_LINE = Array.from({ length: LINES }, (_, i) => i + 2);

/**
 * A batch killed in the middle (SIGKILL, after its first slices are committed) goes on in the next
 * process on `kind`, which takes it once the dead one's lease runs out (on SQLite at once, at its
 * start) and finishes it, every line answered exactly once.
 */
export function describeKilled(kind: StoreKind): void {
  describe(`lotes after kill -9 (${kind})`, () => {
    test('a batch killed in the middle goes on in the next process; every line exactly once', async (t) => {
      const db = await database(t, kind, fillDemo);
      await addUser(testConfig({ DATABASE_URL: db.url }), 'broker', TEST_PASSWORD);
      // On PostgreSQL a short lease: the next process takes the batch 4 s after the kill instead of 20
      // (the default lease against the contract's 60 s is the subject of the two copies' test, lotes-copies.test.ts).
      // On SQLite the longest: the next process takes back a dead process's batch at start, not when its lease ends.
      const env = { DATABASE_URL: db.url, PG_STATEMENT_TIMEOUT_MS: '120000', LOTES_LEASE_S: kind === 'sqlite' ? '55' : '4' };
      const first = await started(t, env);
      const token = await tokenFor(first.base, 'broker', TEST_PASSWORD);
      const headers = { authorization: `Bearer ${token}` };
      const sent = await fetch(`${first.base}/api/v1/lotes?pais_origen=USA`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'text/csv' },
        body: catalogue(),
      });
      assert.equal(sent.status, 202);
      const { id } = (await sent.json()) as Lote;
      let seen: Lote | undefined;
      await waitFor(
        'the first slices committed',
        async () => {
          seen = (await (await fetch(`${first.base}/api/v1/lotes/${id}`, { headers })).json()) as Lote;
          return seen.procesadas > 0;
        },
        300_000,
        ASK_EVERY_MS,
      );
      first.child.kill('SIGKILL');
      assert.equal(await first.exited, 'SIGKILL');
      assert.ok(seen!.procesadas < LINES, `the batch was still running when killed (${seen!.procesadas} of ${LINES})`);

      const work = openWorkDb(testConfig(env));
      const [lease] = await work.all<{ lease_hasta: number | string | null }>('SELECT lease_hasta FROM lotes');
      await work.close();
      const second = await started(t, env);
      const done = await finished(second.base, id, headers, 'the batch finished by the next process');
      assert.equal(done.lote.procesadas, LINES);
      assert.equal(done.lote.lineas, LINES);
      assert.deepEqual(done.lines, EVERY_LINE);
      const taken = second.lines.filter((l) => l.msg === 'batch taken' && l['lote'] === id);
      assert.ok(taken.length >= 1);
      assert.ok(Number(taken[0]!['desde']) > 0, 'the next process went on from the last committed line');
      if (kind === 'sqlite') {
        assert.ok(Number(taken[0]!['time']) < Number(lease?.lease_hasta), 'taken back from the dead process before its lease ran out');
      }
    });
  });
}
