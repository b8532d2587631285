/** The bounded statement cache of a SQLite connection, and the ranking SQL whose text does not multiply with a query's shape. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { RankingDialect } from '../../src/buscar/ranking.js';
import { rankingSql } from '../../src/buscar/ranking.js';
import type { QueryGroup } from '../../src/buscar/vocabulary.js';
import { MAX_CODES, MAX_GROUPS, MAX_PRIMARY, MAX_SECONDARY } from '../../src/buscar/vocabulary.js';
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

describe('the ranking SQL', () => {
  const dialect: RankingDialect = {
    param: (i) => `@p${i}`,
    indexQuery: (terms) => terms.map((t) => t.term).join(' OR '),
    indexMatch: (query) => `MATCH ${query}`,
    member: (terms, bind) => `IN (${bind(terms.length === 0 ? null : terms.map((t) => t.term).join(' '), 'text')})`,
    codeOrder: '',
    listHas: (list, value) => `instr(${list}, ${value}) > 0`,
  };

  test(`has at most ${MAX_GROUPS + 1} x ${MAX_CODES + 1} texts, whatever the words and their alternatives`, () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const words = (n: number): string[] => Array.from({ length: n }, () => `w${random(1000)}${random(2) === 0 ? ' ' : ''}`);
    const texts = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const groups: QueryGroup[] = Array.from({ length: random(MAX_GROUPS + 1) }, () => ({
        primary: words(random(MAX_PRIMARY + 1)),
        secondary: words(random(MAX_SECONDARY + 1)),
        weight: 1 + random(100),
        matched: random(2) === 0 ? 0 : 1_000_000,
      }));
      const codes = Array.from({ length: random(MAX_CODES + 1) }, () => String(1000 + random(9000)));
      // However many headings the head names and codes a quantity marks, the text stays the same.
      const headings = Array.from({ length: random(12) }, () => ({ heading: String(1000 + random(9000)), bonus: random(30_000_000) }));
      const quantityCodes = random(2) === 0 ? '' : ` ${words(random(20)).join(' ')} `;
      const sql = rankingSql({ groups, codes, marks: [], headings, quantityCodes }, random(100), 1 + random(100), dialect);
      if (sql !== null) texts.add(sql.page.text).add(sql.total.text);
    }
    const pages = [...texts].filter((t) => t.includes('RELEVANCIA')).length;
    assert.ok(pages <= (MAX_GROUPS + 1) * (MAX_CODES + 1), `${pages} page texts`);
  });
});
