/**
 * Two copies of the service on one PostgreSQL database (test/process.ts: real processes): one works a
 * batch, and when it is killed with SIGKILL the other takes it over within the contract's 60 s, with
 * the default lease, and finishes it, every line answered exactly once. Beside lotes-restart.test.ts
 * (one process killed and started again), in a file of its own so that the two run side by side.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { storeKinds } from './stores.js';
import { database, fillDemo } from './databases.js';
import { testConfig } from './service-env.js';
import { addUser } from './users.js';
import { TEST_PASSWORD, tokenFor } from './clients.js';
import type { Listening } from './process.js';
import { ASK_EVERY_MS } from './lifetime.js';
import { waitFor } from './process.js';
import type { Lote } from './lotes-restart-fixture.js';
import { EVERY_LINE, LINES, catalogue, finished, started } from './lotes-restart-fixture.js';

describe('lotes with two copies of the service (postgres)', { skip: !(await storeKinds()).includes('postgres') }, () => {
  test('one copy works a batch; killed, the other takes it over within 60 s; every line exactly once', async (t) => {
    const db = await database(t, 'postgres', fillDemo);
    await addUser(testConfig({ DATABASE_URL: db.url }), 'broker', TEST_PASSWORD);
    // The default lease (20 s), not the restart tests' 4 s: the holder is alive here, and a slice on a
    // loaded machine must never outlast its lease (the other copy would take the batch from a live
    // holder; with 8 s it did, on a machine running three suites at once).
    // The service's own polls at their defaults (2 s, not the tests' 200 ms): nothing here waits on a
    // version, a replaced store or a watch list, and the copies idle some 20 s waiting for the lease.
    const env = {
      DATABASE_URL: db.url,
      PG_STATEMENT_TIMEOUT_MS: '120000',
      LOTES_LEASE_S: '20',
      DATASET_VERSIONS_CHECK_MS: '2000',
      RELOAD_CHECK_MS: '2000',
      VIGILANCIAS_CHECK_MS: '2000',
    };
    // Started together, as a deployment's copies are (their schema work is serialised by an advisory lock).
    const copies = await Promise.all([started(t, env), started(t, env)]);
    const token = await tokenFor(copies[0].base, 'broker', TEST_PASSWORD);
    const headers = { authorization: `Bearer ${token}` };
    const sent = await fetch(`${copies[0].base}/api/v1/lotes?pais_origen=USA`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/csv' },
      body: catalogue(),
    });
    assert.equal(sent.status, 202);
    const { id } = (await sent.json()) as Lote;
    const takes = (copy: Listening): number => copy.lines.filter((l) => l.msg === 'batch taken' && l['lote'] === id).length;
    let seen: Lote | undefined;
    await waitFor(
      'the first slices committed',
      async () => {
        seen = (await (await fetch(`${copies[1].base}/api/v1/lotes/${id}`, { headers })).json()) as Lote;
        return seen.procesadas > 0;
      },
      300_000,
      ASK_EVERY_MS,
    );
    assert.ok(seen!.procesadas < LINES, `the batch was still running (${seen!.procesadas} of ${LINES})`);
    const holders = copies.filter((c) => takes(c) > 0);
    assert.equal(holders.length, 1, 'one copy alone took the batch');
    const holder = holders[0]!;
    const other = copies.find((c) => c !== holder)!;
    holder.child.kill('SIGKILL');
    const killed = Date.now();
    assert.equal(await holder.exited, 'SIGKILL');

    // The other copy takes the batch once the dead holder's lease has run out (some 20 s): watched in its
    // log, which costs no request, before its state is asked over HTTP until the batch ends.
    const takenBy = (copy: Listening) => copy.lines.find((l) => l.msg === 'batch taken' && l['lote'] === id);
    await waitFor('the other copy to take the batch', () => takenBy(other) !== undefined, 600_000, 100);
    const done = await finished(other.base, id, headers, 'the batch finished by the other copy');
    const taken = takenBy(other);
    assert.ok(taken, 'the other copy took the batch');
    const tookAfter = Number(taken['time']) - killed;
    t.diagnostic(`taken over ${(tookAfter / 1000).toFixed(1)} s after the kill`);
    assert.ok(tookAfter < 60_000, `taken over ${tookAfter} ms after the kill`);
    assert.ok(Number(taken['desde']) > 0, 'the other copy went on from the last committed line');
    assert.equal(done.lote.procesadas, LINES);
    assert.deepEqual(done.lines, EVERY_LINE);
  });
});
