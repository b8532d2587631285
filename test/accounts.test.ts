/**
 * Users own their batches and watch lists by an account that no later user of the same name shares
 * (src/store/accounts.ts), on both stores: removing a user deletes their work and a new user of the
 * name starts with none of it; disabling one stops their batches and deliveries until enabled; rows
 * written before accounts existed go to the account of their user, and to no one when that user is gone.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { LotesTables } from '../src/lotes/tables.js';
import { closeAccount, reopenAccount } from '../src/store/accounts.js';
import { openWorkDb } from '../src/store/work.js';
import { Sender } from '../src/vigilancias/deliveries.js';
import { Vigilancias } from '../src/vigilancias/vigilancias.js';
import { defer, waitFor } from './lifetime.js';
import type { Estado } from './batch-end.js';
import { ended } from './batch-end.js';
import { storeKinds } from './stores.js';
import { database } from './databases.js';
import { serve } from './servers.js';
import { testConfig } from './service-env.js';
import { addUser } from './users.js';
import { TEST_PASSWORD, TEST_USER, clientFor, tokenFor } from './clients.js';
import { cliInProcess } from './commands.js';

const ENV = { VIGILANCIAS_HOSTS_PERMITIDOS: '127.0.0.1', AUTH_USER_CACHE_SECONDS: '0', LOG_LEVEL: 'silent' };
const CSV = 'fraccion,descripcion\n01012101,caballos\n01013001,asnos\n';

/** The service over `env`'s database, with or without its batches' worker, closed when the test ends; its users are the test's own. */
async function serveOn(t: TestContext, env: Record<string, string>, lotesWorker: boolean): Promise<string> {
  return (await serve(t, env, { user: false, app: { lotesWorker } })).base;
}

const users = (env: Record<string, string>, ...args: string[]) => cliInProcess(['users', ...args], { ...env });

for (const kind of await storeKinds()) {
  describe(`accounts (${kind})`, () => {
    test('a removed user’s batches and watch lists are deleted, and a new user of the same name starts with none of them', async (t) => {
      const db = await database(t, kind);
      const env = { DATABASE_URL: db.url, ...ENV };
      await addUser(testConfig(env), 'ana', TEST_PASSWORD);
      // No worker: the batch is here to be deleted with its user, worked or not; a worker would start a
      // thread, which builds the search structures, for a batch no assertion reads.
      const base = await serveOn(t, env, false);
      const ana = await clientFor(base, 'ana');
      const lote = await ana.call<{ id: string }>('POST', '/api/v1/lotes', CSV, 'text/csv');
      assert.equal(lote.status, 202);
      const lista = await ana.call<{ id: string }>('POST', '/api/v1/vigilancias', {
        nombre: 'a',
        fracciones: ['01'],
        webhook: { url: 'https://erp.example.com/' },
      });
      assert.equal(lista.status, 201);

      const oldToken = await tokenFor(base, 'ana', TEST_PASSWORD);
      // Tokens carry the second they were issued: one issued in the second the new ana is created would still pass.
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
      const removed = await users(env, 'remove', 'ana');
      assert.equal(removed.code, 0, removed.stderr);
      assert.equal(removed.stdout.trim(), 'removed user ana (1 batch and 1 watch list deleted)');
      await addUser(testConfig(env), 'ana', TEST_PASSWORD);
      const again = await clientFor(base, 'ana');
      // A token the first ana was given admits no one: not the new ana either.
      const stale = await fetch(`${base}/api/v1/lotes`, { headers: { authorization: `Bearer ${oldToken}` } });
      assert.equal(stale.status, 401);
      assert.deepEqual(await stale.json(), { detail: 'Could not validate credentials' });
      assert.deepEqual((await again.call('GET', '/api/v1/lotes')).body, { items: [], total: 0, skip: 0, limit: 100 });
      assert.equal((await again.call('GET', `/api/v1/lotes/${lote.body.id}`)).status, 404);
      assert.equal((await again.call('GET', '/api/v1/vigilancias')).body['total'], 0);
      assert.equal((await again.call('GET', `/api/v1/vigilancias/${lista.body.id}`)).status, 404);
      // Nothing of the first ana is left in the working tables.
      const work = openWorkDb(testConfig(env));
      defer(t, () => work.close());
      assert.deepEqual(await work.all('SELECT id FROM lotes'), []);
      assert.deepEqual(await work.all('SELECT id FROM vigilancias'), []);
      // The new ana's batches count against her own limit only, and are hers.
      assert.equal((await again.call('POST', '/api/v1/lotes', CSV, 'text/csv')).status, 202);
      assert.equal((await again.call<{ total: number }>('GET', '/api/v1/lotes')).body.total, 1);
    });

    test('a disabled user’s queued batch is not worked while another user’s is; enabled again, it is', async (t) => {
      const db = await database(t, kind);
      const env = { DATABASE_URL: db.url, ...ENV };
      await addUser(testConfig(env), 'ana', TEST_PASSWORD);
      await addUser(testConfig(env), 'otro', TEST_PASSWORD);
      // Sent while no worker runs: the batch waits, queued.
      const quiet = await serveOn(t, env, false);
      const queued = await (await clientFor(quiet, 'ana')).call<{ id: string }>('POST', '/api/v1/lotes', CSV, 'text/csv');
      assert.equal(queued.status, 202);
      assert.equal((await users(env, 'disable', 'ana')).code, 0);

      const base = await serveOn(t, env, true);
      const otro = await clientFor(base, 'otro');
      const later = await otro.call<{ id: string }>('POST', '/api/v1/lotes', CSV, 'text/csv');
      await ended('the other user’s batch finished', async () => (await otro.call<Estado>('GET', `/api/v1/lotes/${later.body.id}`)).body);
      // The disabled user's batch is older: first in line, were it taken at all.
      const tables = new LotesTables(openWorkDb(testConfig(env)));
      defer(t, () => tables.db.close());
      const waiting = await tables.byId(queued.body.id);
      assert.equal(waiting?.estado, 'en_cola');
      assert.equal(waiting?.procesadas, 0);

      assert.equal((await users(env, 'enable', 'ana')).code, 0);
      const ana = await clientFor(base, 'ana');
      await ended('the enabled user’s batch finished', async () => (await ana.call<Estado>('GET', `/api/v1/lotes/${queued.body.id}`)).body);
    });

    test('a disabled user’s pending deliveries are not taken while another user’s are; enabled again, they are sent', async (t) => {
      const db = await database(t, kind);
      const config = testConfig({ DATABASE_URL: db.url, ...ENV });
      const received: string[] = [];
      const hook = Fastify();
      hook.post('/:who', (request, reply) => {
        received.push((request.params as { who: string }).who);
        return reply.code(204).send();
      });
      await hook.listen({ host: '127.0.0.1', port: 0 });
      defer(t, () => hook.close());
      const url = (who: string): string => `http://127.0.0.1:${(hook.server.address() as AddressInfo).port}/${who}`;
      const work = openWorkDb(config);
      const sender = new Sender(work, {
        waits: [60_000],
        policy: { hosts: new Set(['127.0.0.1']), ports: new Set([443]) },
        concurrency: 4,
        log: Fastify({ logger: false }).log,
      });
      defer(t, async () => {
        await sender.close();
        await work.close();
      });
      const lists = new Vigilancias(work, () => sender.wake());
      const made = async (cuenta: string): Promise<string> => {
        const result = await lists.create(cuenta, cuenta, { nombre: cuenta, fracciones: ['01'], conjuntos: [], url: url(cuenta) }, 10);
        assert.ok('vigilancia' in result);
        return result.vigilancia.id;
      };
      const anaList = await made('cta_ana');
      const otroList = await made('cta_otro');
      await closeAccount(work, 'cta_ana', 'ana', 'deshabilitada');
      const anaDelivery = await lists.test('cta_ana', anaList);
      await lists.test('cta_otro', otroList);
      sender.start();
      await waitFor('the open account’s delivery sent', async () => (await lists.deliveries('cta_otro', otroList, 0, 1))?.items[0]?.estado === 'entregada');
      // Both were due at once and taken in one statement, had the closed account's not been left out.
      const [held] = await work.all<{ intentos: number; tomada_por: string | null }>(
        `SELECT "intentos", "tomada_por" FROM "vigilancias_entregas" WHERE "id" = ${work.dialect.placeholder(1)}`,
        [anaDelivery!.id],
      );
      assert.deepEqual({ intentos: Number(held?.intentos), tomada_por: held?.tomada_por }, { intentos: 0, tomada_por: null });
      assert.deepEqual(received, ['cta_otro']);

      await reopenAccount(work, 'cta_ana');
      sender.wake();
      await waitFor('the reopened account’s delivery sent', async () => (await lists.deliveries('cta_ana', anaList, 0, 1))?.items[0]?.estado === 'entregada');
      assert.deepEqual(received, ['cta_otro', 'cta_ana']);
    });

    test('rows written before accounts existed go to their user’s account; a removed user’s, or older than the user, to no one', async (t) => {
      const db = await database(t, kind);
      const env = { DATABASE_URL: db.url, ...ENV };
      const config = testConfig(env);
      await addUser(config, TEST_USER, TEST_PASSWORD);
      const created = Date.now();
      // The working tables as the version before accounts made them, with rows of the present user, of a
      // user removed since, and of a user of the same name removed before the present one was created.
      const work = openWorkDb(config);
      const { bigint, boolean, text } = work.types;
      await work.run(`CREATE TABLE lotes (
        id ${text} PRIMARY KEY, usuario ${text} NOT NULL, nombre ${text} NOT NULL, estado ${text} NOT NULL,
        lineas ${bigint} NOT NULL, procesadas ${bigint} NOT NULL DEFAULT 0, revisar ${bigint} NOT NULL DEFAULT 0,
        errores ${bigint} NOT NULL DEFAULT 0, fecha ${text} NOT NULL, pais_origen ${text}, version ${text},
        creado ${text} NOT NULL, iniciado ${text}, terminado ${text}, hecho_hasta ${bigint} NOT NULL DEFAULT 0,
        columnas_extra ${text} NOT NULL, orden ${bigint} NOT NULL, dueno ${text}, lease_hasta ${bigint})`);
      await work.run(`CREATE TABLE "vigilancias" ("id" TEXT PRIMARY KEY, "usuario" TEXT NOT NULL, "nombre" TEXT NOT NULL, "fracciones" TEXT NOT NULL,
        "conjuntos" TEXT NOT NULL, "url" TEXT NOT NULL, "secreto" TEXT NOT NULL, "activa" ${boolean} NOT NULL, "creada" ${bigint} NOT NULL, "actualizada" ${bigint} NOT NULL)`);
      const p = (n: number): string => Array.from({ length: n }, (_, i) => work.dialect.placeholder(i + 1)).join(', ');
      const batch = (id: string, usuario: string, at: number): Promise<number> =>
        work.run(`INSERT INTO lotes (id, usuario, nombre, estado, lineas, procesadas, fecha, creado, terminado, columnas_extra, orden) VALUES (${p(11)})`, [
          id,
          usuario,
          id,
          'terminado',
          0,
          0,
          '2026-01-01',
          new Date(at).toISOString(),
          new Date(at).toISOString(),
          '[]',
          at * 1000,
        ]);
      const list = (id: string, usuario: string, at: number): Promise<number> =>
        work.run(
          `INSERT INTO "vigilancias" ("id", "usuario", "nombre", "fracciones", "conjuntos", "url", "secreto", "activa", "creada", "actualizada") VALUES (${p(10)})`,
          [id, usuario, id, '["01"]', '["fracciones"]', 'https://erp.example.com/', 'whsec_x', work.bool(true), at, at],
        );
      await batch('mine', TEST_USER, created + 1000);
      await batch('before-me', TEST_USER, created - 60_000);
      await batch('ghost', 'ghost', created);
      await list('vig_mine', TEST_USER, created + 1000);
      await list('vig_before', TEST_USER, created - 60_000);
      await list('vig_ghost', 'ghost', created);
      await work.close();

      const base = await serveOn(t, env, true);
      const tester = await clientFor(base, TEST_USER);
      await waitFor('the batches handed over', async () => (await tester.call<{ total: number }>('GET', '/api/v1/lotes')).body.total > 0);
      await waitFor('the watch lists handed over', async () => (await tester.call<{ total: number }>('GET', '/api/v1/vigilancias')).body.total > 0);
      const lotes = await tester.call<{ items: { id: string }[] }>('GET', '/api/v1/lotes');
      assert.deepEqual(
        lotes.body.items.map((l) => l.id),
        ['mine'],
      );
      const vigilancias = await tester.call<{ items: { id: string }[] }>('GET', '/api/v1/vigilancias');
      assert.deepEqual(
        vigilancias.body.items.map((v) => v.id),
        ['vig_mine'],
      );
      // The others are kept, owned by no one.
      const after = openWorkDb(config);
      defer(t, () => after.close());
      assert.equal((await after.all('SELECT id FROM lotes')).length, 3);
      assert.equal((await after.all('SELECT id FROM vigilancias')).length, 3);
    });
  });
}
