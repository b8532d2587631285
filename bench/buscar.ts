/**
 * `npm run bench:buscar`: how well and how fast `/api/v1/buscar` finds the goods. Runs the project's
 * query set (bench/buscar-queries.csv: realistic queries with their correct HS codes, written before
 * any result was seen) against the demo dataset on SQLite and, when one answers, PostgreSQL, beside a
 * plain SQL LIKE baseline computed in the same run, and prints hit@1, hit@5, hit@10, MRR, the share
 * of empty answers, and the latency of uncached searches and suggestions.
 *
 * A hit counts when the returned fraction (8 digits + NICO) starts with one of the query's codes.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import { buildDemoDatabase } from '../src/data/startup.js';
import { isStopWord, stem, words } from '../src/buscar/analysis.js';
import { queryCode } from '../src/store/fulltext.js';
import { PostgresStore } from '../src/store/postgres.js';
import { SqliteStore } from '../src/store/sqlite.js';
import type { Store } from '../src/store/store.js';
import { demoPostgres } from './postgres.js';

/** The groups of the query set, reported apart: what people type differs, and so does how well search does. */
const GROUPS = ['short', 'invoice', 'colloquial', 'english', 'misspelt'] as const;
type Group = (typeof GROUPS)[number];
const GROUP_NAMES: Readonly<Record<Group, string>> = {
  short: 'short Spanish',
  invoice: 'invoice lines',
  colloquial: 'colloquial Mexican',
  english: 'English',
  misspelt: 'misspelt',
};

/**
 * The two halves of the query set, by a fixed rule on the query's own text: the FNV-1a hash (32 bits)
 * of its UTF-8 bytes, even for the development half, odd for the held-aside half. Mechanisms are
 * developed on the first; the second is reported apart and never edited to fit results. A query added
 * later falls in a half by the same rule, whoever adds it.
 */
export type Half = 'development' | 'held-aside';
export function halfOf(query: string): Half {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(query, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash % 2 === 0 ? 'development' : 'held-aside';
}
const HALVES: readonly Half[] = ['development', 'held-aside'];

interface Query {
  readonly section: string;
  readonly query: string;
  readonly expected: readonly string[];
  readonly group: Group;
  readonly half: Half;
}

type Engine = (q: string) => Promise<string[]>;

const queries: Query[] = parse<Record<string, string>>(readFileSync(new URL('../../bench/buscar-queries.csv', import.meta.url), 'utf8'), {
  columns: true,
  skip_empty_lines: true,
})
  .map((r) => {
    const group = r['group'] as Group;
    if (!GROUPS.includes(group)) throw new Error(`bench/buscar-queries.csv: ${r['query']}: unknown group ${r['group']}`);
    const query = r['query'] ?? '';
    return { section: r['section'] ?? '', query, expected: (r['expected'] ?? '').split(';').filter(Boolean), group, half: halfOf(query) };
  })
  // BENCH_FROM / BENCH_TO: only the queries of those rows (1 is the first query), to measure the newest
  // queries alone (fresh text) with the same bench; each still falls in its half by its own text.
  .filter((_, i) => i + 1 >= Number(process.env['BENCH_FROM'] ?? 1) && i + 1 <= Number(process.env['BENCH_TO'] ?? Infinity));

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

interface Quality {
  readonly n: number;
  readonly hit1: number;
  readonly hit5: number;
  readonly hit10: number;
  readonly mrr: number;
  readonly empty: number;
}

interface Measured {
  readonly all: Quality;
  readonly byGroup: ReadonlyMap<Group, Quality>;
  /** Each half alone, overall and per group. */
  readonly byHalf: ReadonlyMap<Half, { all: Quality; byGroup: ReadonlyMap<Group, Quality> }>;
  readonly misses: readonly string[];
}

/** The rank of the first right answer of each query (0: none in the first ten), and whether it was empty. */
function summary(ranks: readonly { rank: number; empty: boolean }[]): Quality {
  const n = Math.max(1, ranks.length);
  const share = (test: (r: { rank: number; empty: boolean }) => boolean): number => ranks.filter(test).length / n;
  return {
    n: ranks.length,
    hit1: share((r) => r.rank === 1),
    hit5: share((r) => r.rank >= 1 && r.rank <= 5),
    hit10: share((r) => r.rank >= 1 && r.rank <= 10),
    mrr: ranks.reduce((sum, r) => sum + (r.rank >= 1 ? 1 / r.rank : 0), 0) / n,
    empty: share((r) => r.empty),
  };
}

async function quality(engine: Engine): Promise<Measured> {
  const ranks: { rank: number; empty: boolean; group: Group; half: Half }[] = [];
  const misses: string[] = [];
  for (const { query, expected, group, half } of queries) {
    const codes = await engine(query);
    const rank = codes.findIndex((c) => expected.some((e) => c.startsWith(e))) + 1;
    ranks.push({ rank, empty: codes.length === 0, group, half });
    // Only the development half's misses are shown: the held-aside half is measured, never studied.
    if ((rank < 1 || rank > 5) && half === 'development')
      misses.push(`[${group}] ${query} → ${codes.slice(0, 3).join(' ') || '(nothing)'} (want ${expected.join(' ')})`);
  }
  const byGroup = (list: typeof ranks): Map<Group, Quality> => new Map(GROUPS.map((g) => [g, summary(list.filter((r) => r.group === g))]));
  const byHalf = new Map(
    HALVES.map((h) => {
      const list = ranks.filter((r) => r.half === h);
      return [h, { all: summary(list), byGroup: byGroup(list) }] as const;
    }),
  );
  return { all: summary(ranks), byGroup: byGroup(ranks), byHalf, misses };
}

/** Milliseconds per call, every query `rounds` times, uncached (the store is called directly). */
async function latency(run: (q: string) => Promise<unknown>, inputs: readonly string[], rounds: number): Promise<{ p50: number; p99: number }> {
  for (const q of inputs) await run(q);
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of inputs) {
      const t = performance.now();
      await run(q);
      times.push(performance.now() - t);
    }
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

const storeEngine =
  (store: Store): Engine =>
  async (q) =>
    (await store.fullText({ text: q, code: queryCode(q), skip: 0, limit: 10 })).hits.map((h) => h.FRACCION + (h.NICO ?? ''));

/** The baseline: every word of three letters or more in the line's or its fraction's text, with SQL LIKE. */
function likeEngine(path: string): Engine {
  const db = new Database(path, { readonly: true });
  return (q) => {
    const terms = words(q).filter((w) => w.length >= 3 && !isStopWord(w));
    if (terms.length === 0) return Promise.resolve([]);
    const where = terms.map(() => `(f."DESCRIPCION" LIKE ? OR i."DESCRIPCION" LIKE ?)`).join(' AND ');
    const sql = `SELECT f."FRACCION" || coalesce(f."NICO", '') AS "code" FROM "fracciones" f
      LEFT JOIN "informacion_general" i ON i."FRACCION" = f."FRACCION" AND i."NICO" IS f."NICO" WHERE ${where} ORDER BY 1 LIMIT 10`;
    const rows = db.prepare(sql).all(...terms.flatMap((t) => [`%${t}%`, `%${t}%`])) as { code: string }[];
    return Promise.resolve(rows.map((r) => r.code));
  };
}

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

async function main(): Promise<void> {
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
  const path = join(tmpdir(), `tariff-bench-search-${process.pid}.sqlite`);
  console.log(`${queries.length} queries (bench/buscar-queries.csv); building the demo dataset…`);
  // Built by this script in a process of its own (--build): this one then opens the file as the service
  // does. A process that has built a database searches it faster than one that only opened it (the heap
  // threshold, store/sqlite.ts).
  execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--build', path], { stdio: 'inherit' });
  const typings: [string, Typing][] = [];
  const rows: [string, Measured, { p50: number; p99: number } | null, { p50: number; p99: number } | null][] = [];
  const results: Store[] = [];
  try {
    rows.push(['LIKE baseline (SQLite)', await quality(likeEngine(path)), null, null]);
    const sqlite = new SqliteStore(path);
    results.push(sqlite);
    rows.push([
      'buscar, SQLite',
      await quality(storeEngine(sqlite)),
      await latency(
        storeEngine(sqlite),
        queries.map((q) => q.query),
        rounds,
      ),
      await latency((q) => sqlite.suggest(q), prefixes(), rounds),
    ]);
    typings.push(['buscar/sugerencias, SQLite', await typing((q) => sqlite.suggest(q))]);
    const postgres = await demoPostgres('bench_search');
    if (postgres) {
      const store = new PostgresStore(loadConfig({ DATABASE_URL: postgres.url }));
      results.push(store);
      try {
        rows.push([
          'buscar, PostgreSQL',
          await quality(storeEngine(store)),
          await latency(
            storeEngine(store),
            queries.map((q) => q.query),
            rounds,
          ),
          await latency((q) => store.suggest(q), prefixes(), rounds),
        ]);
        typings.push(['buscar/sugerencias, PostgreSQL', await typing((q) => store.suggest(q))]);
      } finally {
        await store.close();
        await postgres.drop();
      }
    } else console.log('PostgreSQL not reachable (BENCH_DATABASE_URL): no PostgreSQL run');
  } finally {
    await results[0]?.close();
    rmSync(path, { force: true });
    rmSync(`${path}.versions`, { recursive: true, force: true });
  }
  console.log('\n| engine | queries | hit@1 | hit@5 | hit@10 | MRR | empty |');
  console.log('|---|---|---:|---:|---:|---:|---:|');
  for (const [name, measured] of rows) {
    const line = (label: string, q: Quality): void =>
      console.log(`| ${name} | ${label} (${q.n}) | ${pct(q.hit1)} | ${pct(q.hit5)} | ${pct(q.hit10)} | ${q.mrr.toFixed(3)} | ${pct(q.empty)} |`);
    line('all', measured.all);
    for (const g of GROUPS) line(GROUP_NAMES[g], measured.byGroup.get(g)!);
  }
  for (const half of HALVES) {
    console.log(`\n${half} half (FNV-1a of the query text ${half === 'development' ? 'even' : 'odd'})`);
    console.log('| engine | queries | hit@1 | hit@5 | hit@10 | MRR | empty |');
    console.log('|---|---|---:|---:|---:|---:|---:|');
    for (const [name, measured] of rows) {
      const part = measured.byHalf.get(half)!;
      const line = (label: string, q: Quality): void =>
        console.log(`| ${name} | ${label} (${q.n}) | ${pct(q.hit1)} | ${pct(q.hit5)} | ${pct(q.hit10)} | ${q.mrr.toFixed(3)} | ${pct(q.empty)} |`);
      line('all', part.all);
      for (const g of GROUPS) line(GROUP_NAMES[g], part.byGroup.get(g)!);
    }
  }
  console.log('\n| engine | search p50 / p99 ms | suggestions p50 / p99 ms |');
  console.log('|---|---:|---:|');
  for (const [name, , search, suggest] of rows) {
    if (!search) continue;
    const ms = (l: { p50: number; p99: number } | null): string => (l ? `${l.p50.toFixed(2)} / ${l.p99.toFixed(2)}` : '–');
    console.log(`| ${name} | ${ms(search)} | ${ms(suggest)} |`);
  }
  console.log(`\n${phrases.length} goods phrases typed letter by letter (bench/suggestion-phrases.txt)`);
  console.log('| engine | phrase suggested | letters typed when first suggested (median) | rank when first suggested (mean) |');
  console.log('|---|---:|---:|---:|');
  for (const [name, t] of typings) console.log(`| ${name} | ${pct(t.found)} | ${pct(t.typed)} | ${t.rank.toFixed(2)} |`);
  if (process.env['BENCH_MISSES']) for (const m of rows[1]?.[1].misses ?? []) console.log(`miss: ${m}`);
}

/** Goods phrases a person types in the search box (bench/suggestion-phrases.txt, one a line). */
const phrases = readFileSync(new URL('../../bench/suggestion-phrases.txt', import.meta.url), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter(Boolean);

/** What people type while searching: every start of each goods phrase, and code beginnings. */
function prefixes(): string[] {
  return [...phrases.flatMap((p) => [...p].map((_, i) => p.slice(0, i + 1))), '01', '0101', '8471', '87032', '6109'];
}

interface Typing {
  /** Share of phrases that appear among the suggestions before the whole phrase is typed. */
  readonly found: number;
  /** Median share of the phrase's letters typed when it first appears. */
  readonly typed: number;
  /** Mean rank (1 to 10) at which it first appears. */
  readonly rank: number;
}

/**
 * Each phrase typed letter by letter: the first start at which a suggestion holds the goods (every
 * word of the phrase that is not a stop word, by its stem), and at which rank.
 */
async function typing(suggest: (q: string) => Promise<{ SUGERENCIA: string }[]>): Promise<Typing> {
  const typed: number[] = [];
  const ranks: number[] = [];
  for (const phrase of phrases) {
    const goods = words(phrase)
      .filter((w) => !isStopWord(w))
      .map(stem);
    for (let i = 1; i <= phrase.length; i++) {
      const items = await suggest(phrase.slice(0, i));
      const rank = items.findIndex((s) => goods.every((g) => words(s.SUGERENCIA).some((w) => stem(w) === g))) + 1;
      if (rank > 0) {
        typed.push(i / phrase.length);
        ranks.push(rank);
        break;
      }
    }
  }
  typed.sort((a, b) => a - b);
  return { found: typed.length / phrases.length, typed: percentile(typed, 50), rank: ranks.reduce((a, b) => a + b, 0) / Math.max(1, ranks.length) };
}

if (process.argv[2] === '--build') await buildDemoDatabase(process.argv[3]!);
else await main();
