/**
 * A batch survives `kill -9`: the service is a real process (test/process.ts), killed with SIGKILL
 * while a batch runs, then started again; the new process (on PostgreSQL, any copy) takes the batch
 * once the dead one's lease runs out and finishes it, every line answered exactly once. The tests set
 * a short lease on PostgreSQL (LOTES_LEASE_S, 4 s) so as not to wait out the default's 20 s; the
 * setting itself keeps any lease a deployment may set within the contract's 60 s (tested here). Two
 * copies at once, one killed while it works a batch, are lotes-copies.test.ts: a file of its own, so
 * that the two run side by side in `npm test`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { openWorkDb } from '../src/store/work.js';
import { storeKinds } from './stores.js';
import { database, fillDemo } from './databases.js';
import { addUser, testConfig } from './servers.js';
import { TEST_PASSWORD, tokenFor } from './clients.js';
import { waitFor } from './process.js';
import type { Lote } from './lotes-restart-fixture.js';
import { EVERY_LINE, LINES, catalogue, finished, started } from './lotes-restart-fixture.js';

for (const kind of await storeKinds()) {
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

test('the lease keeps a takeover within the contract’s 60 s: 20 s by default, at most 55 (the next look for work comes within 1 s)', () => {
  assert.equal(loadConfig({}).LOTES_LEASE_S, 20);
  assert.equal(loadConfig({ LOTES_LEASE_S: '55' }).LOTES_LEASE_S, 55);
  assert.throws(() => loadConfig({ LOTES_LEASE_S: '56' }), /LOTES_LEASE_S/);
  assert.throws(() => loadConfig({ LOTES_LEASE_S: '1' }), /LOTES_LEASE_S/);
});
