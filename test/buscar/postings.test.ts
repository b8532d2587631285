/**
 * The posting lists a load stores (src/buscar/postings.ts): read back, they are the lists built from the
 * search table; a store searches the same with them as a dataset loaded before they were stored (no
 * table `buscar_indice`: built from the search table) does, on both stores.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { buildPostings, readPostings, storedPostings } from '../../src/buscar/postings.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/drivers.js';
import { database } from '../databases.js';
import { defer } from '../lifetime.js';
import { storeKinds } from '../stores.js';

const plain = (lists: readonly Int32Array[]): number[][] => lists.map((l) => [...l]);

describe('stored posting lists', () => {
  test('read back, they are the lists built: documents in code order, terms in byte order, each document once per term', () => {
    const rows = [
      { CODIGO: '0102', TERMINOS: '3vac 3vac 1bovin  3lech' },
      { CODIGO: '0101', TERMINOS: '1caball 3vivo 3vac' },
      { CODIGO: '9801', TERMINOS: null },
      { CODIGO: '0103', TERMINOS: '' },
      { CODIGO: '01022', TERMINOS: '1Ñandu 3vivo' },
    ];
    const built = buildPostings(rows);
    assert.deepEqual(built.codes, ['0101', '0102', '01022', '0103', '9801']);
    assert.deepEqual(built.terms, ['1bovin', '1caball', '1Ñandu', '3lech', '3vac', '3vivo'].sort());
    const of = (term: string): number[] => [...built.lists[built.terms.indexOf(term)]!];
    assert.deepEqual(of('3vac'), [0, 1]);
    assert.deepEqual(of('3vivo'), [0, 2]);
    const read = readPostings(storedPostings(built));
    assert.deepEqual(read.codes, built.codes);
    assert.deepEqual(read.terms, built.terms);
    assert.deepEqual(plain(read.lists), plain(built.lists));
  });

  test('an empty load, and a stored row whose parts disagree, which is refused rather than read wrong', () => {
    const empty = readPostings(storedPostings(buildPostings([])));
    assert.deepEqual(empty, { codes: [], terms: [], lists: [] });
    const stored = storedPostings(buildPostings([{ CODIGO: '0101', TERMINOS: '1caball 3vivo' }]));
    assert.throws(() => readPostings({ ...stored, TERMINOS: '1caball' }), /2 lengths/);
    assert.throws(() => readPostings({ ...stored, DOCUMENTOS: stored.DOCUMENTOS.subarray(0, 6) }), /not of 32-bit integers/);
  });
});

/** Drops the stored lists and marks the load as another one, so that no store shares the first's structures (shared-search.ts). */
async function asLoadedBefore(url: string): Promise<void> {
  const statements = ['DROP TABLE "buscar_indice"', `UPDATE "dataset_info" SET "imported_at" = '2000-01-01T00:00:00.000Z'`];
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length));
    for (const statement of statements) db.exec(statement);
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

const QUERIES = ['caballos', 'caballos reproductores de raza pura', 'animales vivos', 'leche', 'carne de bovino congelada', 'horses', 'automóviles'];

for (const kind of await storeKinds()) {
  describe(`search with stored posting lists (${kind})`, () => {
    test('finds what a dataset loaded before they were stored finds, in the same order with the same relevance', async (t) => {
      const [stored, older] = [await database(t, kind), await database(t, kind)];
      await asLoadedBefore(older.url);
      const [withLists, without] = [openStore(loadConfig({ DATABASE_URL: stored.url })), openStore(loadConfig({ DATABASE_URL: older.url }))];
      defer(t, () => withLists.close());
      defer(t, () => without.close());
      let found = 0;
      for (const text of QUERIES) {
        const query = { text, code: null, skip: 0, limit: 20 };
        const expected = await without.fullText(query);
        found += expected.hits.length;
        assert.deepEqual(await withLists.fullText(query), expected, text);
      }
      assert.ok(found > 0, 'the queries find something in the fixture');
    });
  });
}
