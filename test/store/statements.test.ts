/** The bounded statement cache of a SQLite connection, and the search's ranking over posting lists. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { PostingIndex } from '../../src/buscar/ranking.js';
import type { QueryGroup, QueryPlan } from '../../src/buscar/vocabulary.js';
import { StatementCache } from '../../src/store/sqlite-statements.js';

describe('StatementCache', () => {
  test('keeps the most recently used statements, within its number of entries', () => {
    const db = new Database(':memory:');
    const cache = new StatementCache(db, { maxEntries: 3, maxBytes: 1_000_000 });
    const sql = (n: number): string => `SELECT ${n} AS "n"`;
    const first = cache.prepare(sql(1));
    for (const n of [2, 3]) cache.prepare(sql(n));
    assert.equal(cache.prepare(sql(1)), first, 'a statement kept is reused');
    cache.prepare(sql(4));
    assert.deepEqual([cache.stats().entries, cache.stats().evictions], [3, 1]);
    assert.equal(cache.prepare(sql(1)), first, 'the one used most recently stayed');
    const before = cache.stats().evictions;
    cache.prepare(sql(2));
    assert.equal(cache.stats().evictions, before + 1, 'the least recently used (2) had gone and was prepared again');
    assert.equal((cache.prepare(sql(4)).get() as { n: number }).n, 4);
    db.close();
  });

  test('keeps its SQL text within its bytes, the statement just prepared always kept', () => {
    const db = new Database(':memory:');
    const cache = new StatementCache(db, { maxEntries: 1000, maxBytes: 100 });
    for (let n = 0; n < 50; n++) cache.prepare(`SELECT ${n} AS "a_rather_long_column_name_${n}"`);
    const stats = cache.stats();
    assert.ok(stats.bytes <= 100, `${stats.bytes} characters kept`);
    assert.ok(stats.entries >= 1 && stats.entries < 50);
    const huge = `SELECT 1 AS "${'x'.repeat(500)}"`;
    assert.equal((cache.prepare(huge).raw(true).get() as number[])[0], 1);
    assert.equal(cache.stats().entries, 1);
    db.close();
  });
});

describe('the ranking over posting lists', () => {
  // Three lines: tyres by their head word, rims by a line word, and a line under 4011 that names neither.
  const index = new PostingIndex([
    { CODIGO: '4011100100', TERMINOS: ' 2llant 3llant 4neumat ' },
    { CODIGO: '8708700100', TERMINOS: ' 3llant 3rued 4vehicul ' },
    { CODIGO: '4011200100', TERMINOS: ' 4neumat 3autobus ' },
  ]);
  const plan = (groups: QueryGroup[], extra: Partial<QueryPlan> = {}): QueryPlan => ({
    groups,
    codes: [],
    marks: [],
    headings: [],
    quantityCodes: '',
    ...extra,
  });
  const word = (primary: string[], weight = 100, secondary: string[] = []): QueryGroup => ({ primary, secondary, weight, matched: 1_000_000 });

  test('a word counts once per line, in the best field it is found in; the total counts every line found', () => {
    const { page, total } = index.rank(plan([word(['llant '])]), 0, 10);
    assert.deepEqual(
      page.map((p) => [p.CODIGO, p.RELEVANCIA]),
      [
        ['4011100100', 1_000_000 + 2 * 12 * 100],
        ['8708700100', 1_000_000 + 2 * 10 * 100],
      ],
    );
    assert.equal(total, 2);
  });

  test('a start of a word finds every term it begins; equal relevance is ordered by code; skip and limit cut the page', () => {
    const all = index.rank(plan([word(['neum'])]), 0, 10);
    assert.deepEqual(
      all.page.map((p) => p.CODIGO),
      ['4011100100', '4011200100'],
    );
    assert.deepEqual(
      index.rank(plan([word(['neum'])]), 1, 1).page.map((p) => p.CODIGO),
      ['4011200100'],
    );
  });

  test('the heading the head names and a typed code outrank the words; a quantity in range adds one word', () => {
    const headed = index.rank(plan([word(['llant '])], { headings: [{ heading: '8708', bonus: 20_000_000 }] }), 0, 10);
    assert.equal(headed.page[0]?.CODIGO, '8708700100');
    const coded = index.rank(plan([word(['llant '])], { codes: ['40112'] }), 0, 10);
    assert.deepEqual(
      coded.page.map((p) => p.CODIGO),
      ['4011200100', '4011100100', '8708700100'],
    );
    const ranged = index.rank(plan([word(['llant '])], { quantityCodes: ' 8708700100 ' }), 0, 10);
    assert.equal(ranged.page[0]?.CODIGO, '8708700100');
  });

  test('the lines of chapters 98 and 99 (a special treatment, no goods) are found by their codes, never by words', () => {
    const special = new PostingIndex([
      { CODIGO: '9801000100', TERMINOS: ' 1muestr 3muestr ' },
      { CODIGO: '4901100100', TERMINOS: ' 3muestr ' },
    ]);
    assert.deepEqual(
      special.rank(plan([word(['muestr '])]), 0, 10).page.map((p) => p.CODIGO),
      ['4901100100'],
    );
    assert.deepEqual(
      special.rank(plan([], { codes: ['9801'] }), 0, 10).page.map((p) => p.CODIGO),
      ['9801000100'],
    );
  });

  test('a plan with no words and no codes finds nothing', () => {
    assert.deepEqual(index.rank(plan([]), 0, 10), { page: [], total: 0 });
  });
});
