/**
 * Search by description on the embedded store. Every load writes the search tables (buscar/
 * index-build.ts) and an FTS5 index over the documents' term fields; the terms are already folded and
 * stemmed by the service, so FTS5's plain unicode61 tokenizer keeps them as they are. Searches are
 * ranked by the service over the posting lists it reads from the search table once (buscar/ranking.ts),
 * exactly as on PostgreSQL; the store reads the page's rows. The FTS5 index is still written: it tells
 * a file of this version from an older one (hasFullText), though the ranking no longer asks it.
 */
import type Database from 'better-sqlite3';
import type { EnglishRow, LineRow } from '../buscar/documents.js';
import { ENGLISH_SQL, LINES_SQL, SEARCH_COLUMNS } from '../buscar/documents.js';
import { buildSearchIndex, shippedReferences } from '../buscar/index-build.js';
import type { EvidenceRow, RangeRow } from '../buscar/evidence.js';
import type { PhraseRow } from '../buscar/phrases.js';
import type { StoredPostings } from '../buscar/postings.js';
import { POSTINGS_TABLE, postingsColumns } from '../buscar/postings.js';
import { PostingIndex, planReading } from '../buscar/ranking.js';
import type { Reference } from '../buscar/references.js';
import type { Suggestion } from '../buscar/vocabulary.js';
import { Vocabulary } from '../buscar/vocabulary.js';
import type { FullTextHit, FullTextQuery, FullTextResult } from './fulltext.js';
import { codeSearchSql, orderedPage, pageSql } from './fulltext.js';
import type { StatementLimits } from './sqlite-statements.js';
import { StatementCache } from './sqlite-statements.js';
import type { CacheStats } from './store.js';
import { DATASET_SELECT } from './core.js';
import { sharedByLoad } from './shared-search.js';

const COLUMNS = SEARCH_COLUMNS;

/** Run on the new database of every load, after its record sets are complete. */
export function buildSqliteFullText(db: Database.Database, references: readonly Reference[] = shippedReferences()): void {
  const lines = db.prepare(LINES_SQL).all() as LineRow[];
  const index = buildSearchIndex(lines, db.prepare(ENGLISH_SQL).iterate() as Iterable<EnglishRow>, references);
  db.exec(`CREATE TABLE "buscar" (${COLUMNS.map((c) => `"${c}" TEXT${c === 'CODIGO' ? ' NOT NULL UNIQUE' : ''}`).join(', ')})`);
  db.exec(`CREATE TABLE "buscar_terminos" ("TERMINO" TEXT PRIMARY KEY, "DF" INTEGER NOT NULL)`);
  db.exec(`CREATE TABLE "buscar_palabras" ("PALABRA" TEXT PRIMARY KEY, "TERMINO" TEXT NOT NULL, "FRECUENCIA" INTEGER NOT NULL)`);
  db.exec(`CREATE TABLE "buscar_sinonimos" ("TERMINOS" TEXT NOT NULL, "EXPANSION" TEXT NOT NULL)`);
  db.exec(`CREATE TABLE "buscar_frases" ("FRASE" TEXT NOT NULL, "LINEAS" INTEGER NOT NULL, "IDIOMA" TEXT NOT NULL)`);
  db.exec(`CREATE TABLE "buscar_partidas" ("TERMINO" TEXT PRIMARY KEY, "ES" TEXT NOT NULL, "EN" TEXT NOT NULL, "IDIOMA" TEXT NOT NULL)`);
  db.exec(`CREATE TABLE "buscar_rangos" ("CODIGO" TEXT PRIMARY KEY, "RANGOS" TEXT NOT NULL)`);
  const insert = (table: string, columns: readonly string[], rows: readonly object[]): void => {
    const statement = db.prepare(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
    db.transaction(() => {
      for (const row of rows) statement.run(row);
    })();
  };
  insert('buscar', COLUMNS, index.documents);
  insert('buscar_terminos', ['TERMINO', 'DF'], index.terms);
  insert('buscar_palabras', ['PALABRA', 'TERMINO', 'FRECUENCIA'], index.words);
  insert('buscar_sinonimos', ['TERMINOS', 'EXPANSION'], index.synonyms);
  insert('buscar_frases', ['FRASE', 'LINEAS', 'IDIOMA'], index.phrases);
  insert('buscar_partidas', ['TERMINO', 'ES', 'EN', 'IDIOMA'], index.evidence);
  insert('buscar_rangos', ['CODIGO', 'RANGOS'], index.ranges);
  db.exec(`CREATE TABLE "${POSTINGS_TABLE}" (${postingsColumns('TEXT', 'BLOB')})`);
  insert(POSTINGS_TABLE, ['CODIGOS', 'TERMINOS', 'LARGOS', 'DOCUMENTOS'], [index.postings]);
  db.exec(`CREATE VIRTUAL TABLE "buscar_fts" USING fts5("TERMINOS", content = 'buscar', tokenize = 'unicode61', prefix = '3 4 5 6 7')`);
  db.exec(`INSERT INTO "buscar_fts" ("buscar_fts") VALUES ('rebuild')`);
}

/** The page's codes, bound as one JSON array: the statement's text is the same for every page. */
const PAGE_SQL = pageSql(`SELECT "value" FROM json_each(?)`);

/** The search structures of a load (shared-search.ts), read from `db`: the connection of whichever store is using them at the moment. */
interface SharedSearch {
  db: Database.Database;
  vocabulary?: Vocabulary;
  index?: PostingIndex;
}

function sharedSearch(db: Database.Database): SharedSearch {
  const key = loadKey(db);
  return key === null ? { db } : sharedByLoad(`sqlite ${key}`, () => ({ db }));
}

/** What names the load that wrote the file's search tables, or null for a file without a dataset info row. */
function loadKey(db: Database.Database): string | null {
  if (db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'dataset_info'`).get() === undefined) return null;
  const info = db.prepare(DATASET_SELECT).get();
  if (info === undefined) return null;
  return JSON.stringify([info, db.prepare('SELECT COUNT(*) AS "n" FROM "buscar"').get()]);
}

export class SqliteFullText {
  private readonly statements: StatementCache;
  private readonly prepare: (sql: string) => Database.Statement;
  private shared: SharedSearch | undefined;

  constructor(
    private readonly db: Database.Database,
    limits?: StatementLimits,
  ) {
    this.statements = new StatementCache(db, limits);
    this.prepare = this.statements.prepare;
  }

  statementStats(): CacheStats {
    return this.statements.stats();
  }

  /** This load's structures, reading from this store's connection while it uses them. */
  private structures(): SharedSearch {
    const shared = (this.shared ??= sharedSearch(this.db));
    shared.db = this.db;
    return shared;
  }

  /** Built on the first search or suggestion, not when the store opens: a start stays quick. */
  get vocabulary(): Vocabulary {
    const shared = this.structures();
    shared.vocabulary ??= new Vocabulary({
      documents: (shared.db.prepare('SELECT COUNT(*) AS "n" FROM "buscar"').get() as { n: number }).n,
      terms: shared.db.prepare('SELECT "TERMINO", "DF" FROM "buscar_terminos"').all() as { TERMINO: string; DF: number }[],
      words: shared.db.prepare('SELECT "PALABRA", "TERMINO", "FRECUENCIA" FROM "buscar_palabras"').all() as {
        PALABRA: string;
        TERMINO: string;
        FRECUENCIA: number;
      }[],
      synonyms: shared.db.prepare('SELECT "TERMINOS", "EXPANSION" FROM "buscar_sinonimos"').all() as { TERMINOS: string; EXPANSION: string }[],
      // A file written before the heading evidence existed still searches, word by word as before.
      evidence: has(shared.db, 'buscar_partidas')
        ? (shared.db.prepare('SELECT "TERMINO", "ES", "EN", "IDIOMA" FROM "buscar_partidas"').all() as EvidenceRow[])
        : [],
      ranges: has(shared.db, 'buscar_rangos') ? (shared.db.prepare('SELECT "CODIGO", "RANGOS" FROM "buscar_rangos"').all() as RangeRow[]) : [],
      // Read later, from the connection of the store that asks then (the first may be closed by then).
      codes: () => shared.db.prepare('SELECT "CODIGO", "DESCRIPCION" FROM "buscar"').all() as { CODIGO: string; DESCRIPCION: string | null }[],
      // A file written before the phrases existed still searches; its suggestions complete words alone.
      phrases: () =>
        has(shared.db, 'buscar_frases') ? (shared.db.prepare('SELECT "FRASE", "LINEAS", "IDIOMA" FROM "buscar_frases"').all() as PhraseRow[]) : [],
    });
    return shared.vocabulary;
  }

  /** Read with the vocabulary's first use: the documents' tagged terms as posting lists (buscar/postings.ts). */
  get index(): PostingIndex {
    const shared = this.structures();
    shared.index ??= new PostingIndex(
      // As the load stored them; a file written before it stored them builds them from the search table.
      has(shared.db, POSTINGS_TABLE)
        ? (shared.db.prepare(`SELECT "CODIGOS", "TERMINOS", "LARGOS", "DOCUMENTOS" FROM "${POSTINGS_TABLE}"`).get() as StoredPostings)
        : (shared.db.prepare('SELECT "CODIGO", "TERMINOS" FROM "buscar"').iterate() as Iterable<{ CODIGO: string; TERMINOS: string | null }>),
    );
    return shared.index;
  }

  search(query: FullTextQuery): FullTextResult {
    if (query.code !== null) {
      const sql = codeSearchSql(query, '?', '');
      return {
        hits: this.prepare(sql.page.text).all(...sql.page.values) as FullTextHit[],
        total: (this.prepare(sql.total.text).get(...sql.total.values) as { total: number }).total,
        marks: [],
      };
    }
    const plan = this.vocabulary.plan(query.text);
    const { page, total } = this.index.rank(plan, query.skip, query.limit);
    if (page.length === 0) return { hits: [], total, marks: plan.marks };
    const rows = this.prepare(PAGE_SQL).all(JSON.stringify(page.map((p) => p.CODIGO))) as Omit<FullTextHit, 'RELEVANCIA'>[];
    return { hits: orderedPage(rows, page), total, marks: plan.marks };
  }

  reading(query: FullTextQuery): string {
    return query.code !== null ? `code ${query.code}` : planReading(this.vocabulary.plan(query.text));
  }

  suggest(q: string): Suggestion[] {
    return this.vocabulary.suggest(q);
  }
}

const has = (db: Database.Database, table: string): boolean => db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(table) !== undefined;

/** Whether the file holds the search tables this version writes (a file from an older version does not). */
export function hasFullText(db: Database.Database): boolean {
  if (db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'buscar_fts'`).get() === undefined) return false;
  const present = new Set((db.prepare(`SELECT "name" FROM pragma_table_info('buscar')`).all() as { name: string }[]).map((c) => c.name));
  return COLUMNS.every((c) => present.has(c));
}
