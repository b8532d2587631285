/**
 * Memory stays bounded whatever clients search for: searches of every shape (one to ten words, none
 * to three codes, words cut short, every word a new mix) sent to the service in a process of its own,
 * whose resident memory and statement caches are read from its /metrics. Before issue 26 every new
 * shape of query kept one more prepared statement for the life of the process (2,000 queries: 1,712
 * statements, +256 MB). The caches are made small, so a few hundred searches fill them many times
 * over: an unbounded cache fails at once on its count, long before its memory would show.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { database, fillDemo } from './databases.js';
import { testConfig } from './service-env.js';
import { addUser } from './users.js';
import { TEST_PASSWORD, TEST_USER, tokenFor } from './clients.js';
import { runService } from './process.js';

/** Every shape (1 to 10 words by 0 to 3 codes) ten times over, each query a new mix of words. */
const SEARCHES = 400;
const CLIENTS = 8;
/**
 * Small bounds, so that both caches fill and evict all along: searches prepare about a dozen distinct
 * statements in all (the ranking SQL's text depends on the number of words and codes only), so each
 * statement cache keeps two and an unbounded one would show more than the bound of the three.
 */
const STATEMENTS_MAX = 2;
const ANSWERS_MAX = 100;
/** How far the resident memory after all the searches may be above its level halfway (MB, and a ratio). */
const SLACK_MB = 24;
const SLACK_RATIO = 1.1;

/** The words of the demo dataset's search vocabulary, most frequent first. */
function vocabulary(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('SELECT "PALABRA" FROM "buscar_palabras" ORDER BY "FRECUENCIA" DESC LIMIT 3000').all() as { PALABRA: string }[]).map((r) => r.PALABRA);
  } finally {
    db.close();
  }
}

/** Query `i`: 1 to 10 words drawn from the vocabulary, some cut short (a prefix), and 0 to 3 codes: each of the 40 shapes once in any 40 queries in a row. */
function query(words: readonly string[], i: number): string {
  let seed = i * 2654435761;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const parts = Array.from({ length: 1 + (i % 10) }, () => {
    const word = words[next(words.length)]!;
    return next(4) === 0 && word.length > 5 ? word.slice(0, 4 + next(word.length - 4)) : word;
  });
  for (let code = 0; code < Math.floor(i / 10) % 4; code++) parts.push(String(8400 + next(100)));
  return parts.join(' ');
}

/** A Prometheus sample's value, by its line's start. */
const sample = (text: string, line: string): number => Number(new RegExp(`^${line.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

describe('memory under searches of every shape', () => {
  test(`${SEARCHES} searches of every shape: statements within SQLITE_STATEMENTS_MAX, answers within RESPONSE_CACHE_ENTRIES, both evicting; resident memory at the end within ${SLACK_RATIO}x + ${SLACK_MB} MB of halfway`, async (t) => {
    const db = await database(t, 'sqlite', fillDemo);
    const path = db.url.slice('sqlite:'.length);
    await addUser(testConfig({ DATABASE_URL: db.url }), TEST_USER, TEST_PASSWORD);
    const words = vocabulary(path);
    assert.ok(words.length > 1000, `${words.length} words`);
    const service = await runService(t, {
      DATABASE_URL: db.url,
      LOG_LEVEL: 'warn',
      SQLITE_STATEMENTS_MAX: String(STATEMENTS_MAX),
      RESPONSE_CACHE_ENTRIES: String(ANSWERS_MAX),
      RESPONSE_CACHE_MB: '8',
    });
    const token = await tokenFor(service.base);
    const metrics = async (): Promise<string> => (await fetch(`${service.base}/metrics`)).text();
    let next = 0;
    const search = async (until: number): Promise<void> => {
      const client = async (): Promise<void> => {
        while (next < until) {
          const q = query(words, next++);
          const response = await fetch(`${service.base}/api/v1/buscar?q=${encodeURIComponent(q)}&limit=5`, { headers: { authorization: `Bearer ${token}` } });
          assert.equal(response.status, 200, q);
          await response.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, client));
    };
    const rssMb = async (): Promise<number> => sample(await metrics(), 'process_resident_memory_bytes') / 1e6;
    const levels: number[] = [];
    for (const until of [SEARCHES / 4, SEARCHES / 2, (3 * SEARCHES) / 4, SEARCHES]) {
      await search(until);
      levels.push(Math.round(await rssMb()));
    }
    const text = await metrics();
    const statements = sample(text, 'cache_entries{cache="sqlite_statements"}');
    const bound = sample(text, 'cache_max_entries{cache="sqlite_statements"}');
    const evicted = sample(text, 'cache_evictions_total{cache="sqlite_statements"}');
    const answers = sample(text, 'cache_entries{cache="response_answers"}');
    const answersEvicted = sample(text, 'cache_evictions_total{cache="response_answers"}');
    t.diagnostic(
      `resident memory after each quarter: ${levels.join(', ')} MB; ${statements} statements kept (bound ${bound}), ${evicted} evicted; ${answers} answers kept, ${answersEvicted} evicted`,
    );
    assert.equal(bound, 3 * STATEMENTS_MAX, 'three statement caches per SQLite file, each bounded');
    assert.ok(statements <= bound, `${statements} statements`);
    assert.ok(evicted > 0, 'the statement caches filled and evicted: the bound was reached');
    assert.ok(answers <= ANSWERS_MAX, `${answers} answers`);
    assert.ok(answersEvicted > 0, 'the answer cache filled and evicted');
    const [, half, , end] = levels as [number, number, number, number];
    assert.ok(end <= half * SLACK_RATIO + SLACK_MB, `resident memory ${half} MB halfway, ${end} MB at the end`);
  });
});
