/**
 * Search by description on the embedded store: an FTS5 table built with every load from
 * `fracciones` and `informacion-general`. The unicode61 tokenizer folds case and accents
 * (`cafe` finds `café`); every term is matched as a word prefix. SQLite has no Spanish stemmer, so
 * word prefixes stand in for stemming here (PostgreSQL stems with its `spanish` configuration).
 */
import type Database from 'better-sqlite3';
import type { FullTextHit, FullTextQuery, FullTextResult } from './fulltext.js';
import { prefixUpperBound } from './sql.js';

export const FULLTEXT_TABLE = 'buscar';

/** Run on the new database of every load, after its record sets are complete. */
export const SQLITE_FULLTEXT_BUILD = [
  `CREATE VIRTUAL TABLE "${FULLTEXT_TABLE}" USING fts5(
  "CODIGO" UNINDEXED, "FRACCION" UNINDEXED, "NICO" UNINDEXED,
  "DESCRIPCION", "DESCRIPCIONFRACCION", "DESCRIPCIONSUBPARTIDA", "DESCRIPCIONPARTIDA", "DESCRIPCIONCAPITULO",
  tokenize = 'unicode61 remove_diacritics 2'
)`,
  `INSERT INTO "${FULLTEXT_TABLE}"
  SELECT f."FRACCION" || COALESCE(f."NICO", ''), f."FRACCION", f."NICO", f."DESCRIPCION",
         i."DESCRIPCION", i."DESCRIPCIONSUBPARTIDA", i."DESCRIPCIONPARTIDA", i."DESCRIPCIONCAPITULO"
  FROM "fracciones" f
  LEFT JOIN "informacion_general" i ON i."FRACCION" = f."FRACCION" AND i."NICO" IS f."NICO"
  WHERE f."FRACCION" IS NOT NULL`,
];

const COLUMNS = `"FRACCION", "NICO", "DESCRIPCION", "DESCRIPCIONFRACCION", "DESCRIPCIONSUBPARTIDA", "DESCRIPCIONPARTIDA", "DESCRIPCIONCAPITULO"`;
/** Weights per column, in table order: the line's own text counts most, the chapter's least. */
const BM25 = `bm25("${FULLTEXT_TABLE}", 0, 0, 0, 10, 6, 3, 2, 1)`;

const WORDS_SQL = `SELECT ${COLUMNS}, "DESCRIPCION" AS "DESCRIPCION_MARCADA", round(-${BM25}, 4) AS "RELEVANCIA"
FROM "${FULLTEXT_TABLE}" WHERE "${FULLTEXT_TABLE}" MATCH ? ORDER BY ${BM25}, "CODIGO" LIMIT ? OFFSET ?`;
const WORDS_COUNT_SQL = `SELECT COUNT(*) AS "total" FROM "${FULLTEXT_TABLE}" WHERE "${FULLTEXT_TABLE}" MATCH ?`;
const CODE_SQL = `SELECT ${COLUMNS}, "DESCRIPCION" AS "DESCRIPCION_MARCADA", 1 AS "RELEVANCIA"
FROM "${FULLTEXT_TABLE}" WHERE "CODIGO" >= ? AND "CODIGO" < ? ORDER BY "CODIGO" LIMIT ? OFFSET ?`;
const CODE_COUNT_SQL = `SELECT COUNT(*) AS "total" FROM "${FULLTEXT_TABLE}" WHERE "CODIGO" >= ? AND "CODIGO" < ?`;

/** Terms are letters and digits only (see fulltext.ts), so quoting them is enough to keep FTS5 syntax out. */
const matchExpression = (terms: readonly string[]): string => terms.map((t) => `"${t}"*`).join(' ');

export class SqliteFullText {
  private readonly words: Database.Statement;
  private readonly wordsCount: Database.Statement;
  private readonly code: Database.Statement;
  private readonly codeCount: Database.Statement;

  constructor(db: Database.Database) {
    this.words = db.prepare(WORDS_SQL);
    this.wordsCount = db.prepare(WORDS_COUNT_SQL);
    this.code = db.prepare(CODE_SQL);
    this.codeCount = db.prepare(CODE_COUNT_SQL);
  }

  search(query: FullTextQuery): FullTextResult {
    if (query.code !== null) {
      const range = [query.code, prefixUpperBound(query.code)];
      return {
        hits: this.code.all(...range, query.limit, query.skip) as FullTextHit[],
        total: (this.codeCount.get(...range) as { total: number }).total,
      };
    }
    if (query.terms.length === 0) return { hits: [], total: 0 };
    const match = matchExpression(query.terms);
    return {
      hits: this.words.all(match, query.limit, query.skip) as FullTextHit[],
      total: (this.wordsCount.get(match) as { total: number }).total,
    };
  }
}

export function hasFullText(db: Database.Database): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(FULLTEXT_TABLE) !== undefined;
}
