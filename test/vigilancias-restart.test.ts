/**
 * A webhook delivery in flight when its process is killed (`kill -9`) is sent again by the next process
 * at once, not when its 25 s lease runs out (the test pushes that lease an hour ahead): on SQLite every process using the working file runs on the
 * same host, so a process starting takes back the leases of those of its host that no longer run.
 */
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { openWorkDb } from '../src/store/work.js';
import { defer } from './lifetime.js';
import { database } from './databases.js';
import { testConfig } from './service-env.js';
import { addUser } from './users.js';
import { TEST_PASSWORD, tokenFor } from './clients.js';
import { runService, waitFor } from './process.js';

test('a delivery in flight at kill -9 is sent again as soon as the next process starts, with the same webhook-id (sqlite)', async (t) => {
  const db = await database(t, 'sqlite');
  const env = { DATABASE_URL: db.url, VIGILANCIAS_HOSTS_PERMITIDOS: '127.0.0.1' };
  await addUser(testConfig(env), 'ana', TEST_PASSWORD);
  // The first request is held unanswered (the attempt is in flight when the process dies); later ones are answered.
  const received: { at: number; headers: IncomingHttpHeaders }[] = [];
  const receiver = createServer((request, response) => {
    received.push({ at: Date.now(), headers: request.headers });
    request.resume();
    if (received.length > 1) response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  defer(t, () => {
    receiver.closeAllConnections();
    receiver.close();
  });
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/avisos`;

  const first = await runService(t, env);
  const headers = { authorization: `Bearer ${await tokenFor(first.base, 'ana', TEST_PASSWORD)}`, 'content-type': 'application/json' };
  const made = await fetch(`${first.base}/api/v1/vigilancias`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ nombre: 'x', fracciones: ['01'], webhook: { url } }),
  });
  assert.equal(made.status, 201);
  const { id } = (await made.json()) as { id: string };
  assert.equal(
    (await fetch(`${first.base}/api/v1/vigilancias/${id}/prueba`, { method: 'POST', headers: { authorization: headers.authorization } })).status,
    202,
  );
  await waitFor('the attempt in flight', () => received.length === 1);
  first.child.kill('SIGKILL');
  assert.equal(await first.exited, 'SIGKILL');
  // The dead process's lease is pushed an hour ahead: only taking back a dead holder's lease can send
  // the delivery again within the wait, however slow the machine is at starting the next process.
  const work = openWorkDb(testConfig(env));
  const [lease] = await work.all<{ tomada_hasta: number | string }>(`SELECT "tomada_hasta" FROM "vigilancias_entregas"`);
  assert.ok(Number(lease?.tomada_hasta) > Date.now(), 'the dead process still held the delivery');
  const leaseEnds = Date.now() + 3_600_000;
  await work.run(`UPDATE "vigilancias_entregas" SET "tomada_hasta" = ?`, [leaseEnds]);
  await work.close();

  await runService(t, env);
  await waitFor('the delivery sent again', () => received.length === 2, 300_000);
  assert.ok(received[1]!.at < leaseEnds, `sent again ${received[1]!.at - leaseEnds} ms after the dead process's lease would have run out`);
  assert.equal(received[1]!.headers['webhook-id'], received[0]!.headers['webhook-id']);
});
