/**
 * Batches of different users move on together (round-robin by account, LotesTables.take), on both
 * stores: a small batch sent after a large one of another user finishes first, where one queue in the
 * order sent would finish it last.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ended } from './batch-end.js';
import { storeKinds } from './stores.js';
import { database } from './databases.js';
import { serve } from './servers.js';
import { addUser } from './users.js';
import { TEST_PASSWORD, tokenFor } from './clients.js';

interface Lote {
  id: string;
  estado: string;
  lineas: number;
  procesadas: number;
  terminado: string | null;
}

/** The large batch's lines. */
const LARGE = 1000;

/** `n` lines that all differ (no answer is reused from an earlier line). */
function catalogue(n: number): string {
  let csv = 'referencia,fraccion\n';
  for (let i = 0; i < n; i++) csv += `R${i},${String(1012101 + ((i * 7919) % 97_000_000)).padStart(8, '0')}\n`;
  return csv;
}

for (const kind of await storeKinds()) {
  describe(`lotes of several users (${kind})`, () => {
    test('a small batch sent after another user’s large one finishes first; the large one finishes too', async (t) => {
      const db = await database(t, kind);
      const server = await serve(t, { DATABASE_URL: db.url });
      await addUser(server.config, 'ana', TEST_PASSWORD);
      await addUser(server.config, 'otro', TEST_PASSWORD);
      const send = async (user: string, body: string): Promise<{ id: string; headers: Record<string, string> }> => {
        const headers = { authorization: `Bearer ${await tokenFor(server.base, user, TEST_PASSWORD)}` };
        const sent = await fetch(`${server.base}/api/v1/lotes`, { method: 'POST', headers: { ...headers, 'content-type': 'text/csv' }, body });
        assert.equal(sent.status, 202);
        return { id: ((await sent.json()) as Lote).id, headers };
      };
      const state = async (batch: { id: string; headers: Record<string, string> }): Promise<Lote> =>
        (await (await fetch(`${server.base}/api/v1/lotes/${batch.id}`, { headers: batch.headers })).json()) as Lote;
      // 10 slices of 100 lines against one: one queue in the order sent would finish the small batch after
      // all ten, round-robin within a slice or two of the large one's (30 slices proved no more, at three times the lines).
      const large = await send('ana', catalogue(LARGE));
      const small = await send('otro', catalogue(3));
      const done = await ended('the small batch finished', () => state(small));
      const last = await ended('the large batch finished', () => state(large));
      assert.equal(last.procesadas, LARGE);
      assert.equal(done.procesadas, 3);
      t.diagnostic(
        `3 lines of one user finished ${Date.parse(last.terminado!) - Date.parse(done.terminado!)} ms before another user's ${LARGE} sent just before them`,
      );
      assert.ok(done.terminado! < last.terminado!, `the small batch finished at ${done.terminado}, the large one at ${last.terminado}`);
    });
  });
}
