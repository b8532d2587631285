/**
 * The working tables (src/store/work.ts) on both stores: created once, written and read, a failed
 * transaction leaves nothing, and a row one transaction takes for work is skipped by another.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openWorkDb, workFilePath } from '../../src/store/work.js';
import type { WorkDb } from '../../src/store/work.js';
import { defer } from '../lifetime.js';
import { storeKinds } from '../stores.js';
import { database } from '../databases.js';
import { testConfig } from '../service-env.js';

const kinds = await storeKinds();

function jobsDdl(db: WorkDb): string[] {
  const t = db.types;
  return [`CREATE TABLE IF NOT EXISTS "prueba_trabajo" ("id" ${t.serial}, "nombre" ${t.text} NOT NULL, "hecho" ${t.boolean} NOT NULL, "n" ${t.bigint})`];
}

test('the SQLite working file sits beside the main one', () => {
  assert.equal(workFilePath('/srv/data/tariff.sqlite'), '/srv/data/tariff.trabajo.sqlite');
  assert.equal(workFilePath('/srv/data/base'), '/srv/data/base.trabajo.sqlite');
});

for (const kind of kinds) {
  describe(`working tables on ${kind}`, () => {
    test('rows written are read back; a failed transaction leaves none of its rows', async (t) => {
      const main = await database(t, kind);
      const db = openWorkDb(testConfig({ DATABASE_URL: main.url }));
      defer(t, () => db.close());
      const ddl = jobsDdl(db);
      await db.ensure(ddl);
      await db.ensure(ddl);
      const p = (i: number): string => db.dialect.placeholder(i);
      assert.equal(
        await db.run(`INSERT INTO "prueba_trabajo" ("nombre", "hecho", "n") VALUES (${p(1)}, ${p(2)}, ${p(3)})`, ['a', db.bool(false), 9007199254740991]),
        1,
      );
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.run(`INSERT INTO "prueba_trabajo" ("nombre", "hecho") VALUES (${p(1)}, ${p(2)})`, ['b', tx.bool(true)]);
          throw new Error('abandoned');
        }),
        /abandoned/,
      );
      const rows = await db.all<{ nombre: string; n: string | number }>('SELECT "nombre", "n" FROM "prueba_trabajo" ORDER BY "id"');
      assert.deepEqual(
        rows.map((r) => [r.nombre, String(r.n)]),
        [['a', '9007199254740991']],
      );
    });

    test('a row taken for work by one transaction is skipped by another until it ends', async (t) => {
      const main = await database(t, kind);
      const config = testConfig({ DATABASE_URL: main.url });
      const first = openWorkDb(config);
      const second = openWorkDb(config);
      defer(t, () => Promise.all([first.close(), second.close()]));
      await first.ensure(jobsDdl(first));
      const p = (i: number): string => first.dialect.placeholder(i);
      for (const nombre of ['uno', 'dos'])
        await first.run(`INSERT INTO "prueba_trabajo" ("nombre", "hecho") VALUES (${p(1)}, ${p(2)})`, [nombre, first.bool(false)]);
      const take = `SELECT "nombre" FROM "prueba_trabajo" WHERE "hecho" = ${p(1)} ORDER BY "id" LIMIT 1${first.lockRows}`;
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let taken!: (nombre: string) => void;
      const firstTook = new Promise<string>((resolve) => (taken = resolve));
      const holding = first.transaction(async (tx) => {
        const rows = await tx.all<{ nombre: string }>(take, [tx.bool(false)]);
        taken(rows[0]!.nombre);
        await held;
      });
      assert.equal(await firstTook, 'uno');
      if (kind === 'postgres') {
        // Another copy of the service, at the same moment, takes the next row instead of waiting.
        const other = await second.transaction((tx) => tx.all<{ nombre: string }>(take, [tx.bool(false)]));
        assert.deepEqual(
          other.map((r) => r.nombre),
          ['dos'],
        );
      }
      release();
      await holding;
    });
  });
}
