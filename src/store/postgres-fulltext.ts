/**
 * Search by description on PostgreSQL: the same search tables as on SQLite (buscar/index-build.ts),
 * written by every load in its transaction, plus a `tsvector` of each document's terms computed once
 * by the load and kept under a GIN index. The terms are already folded and stemmed by the service,
 * so the `simple` configuration keeps them as they are. Searches are ranked by the service over the
 * posting lists it reads from the search table with the vocabulary (buscar/ranking.ts), exactly as on
 * SQLite; the store reads the page's rows in one statement.
 */
import type { PoolClient, QueryResultRow } from 'pg';
import type { EnglishRow, LineRow } from '../buscar/documents.js';
import { ENGLISH_SQL, LINES_SQL, SEARCH_COLUMNS } from '../buscar/documents.js';
import { SEARCH_TABLES, buildSearchIndex, shippedReferences } from '../buscar/index-build.js';
import type { StoredPostings } from '../buscar/postings.js';
import { POSTINGS_TABLE, postingsColumns } from '../buscar/postings.js';
import type { EvidenceRow, RangeRow } from '../buscar/evidence.js';
import type { PhraseRow } from '../buscar/phrases.js';
import { PostingIndex, planReading } from '../buscar/ranking.js';
import type { Reference } from '../buscar/references.js';
import type { Suggestion } from '../buscar/vocabulary.js';
import { Vocabulary } from '../buscar/vocabulary.js';
import type { FullTextHit, FullTextQuery, FullTextResult } from './fulltext.js';
import { codeSearchSql, orderedPage, pageSql } from './fulltext.js';
import type { DatasetRow } from './core.js';
import { DATASET_SELECT } from './core.js';
import { heldForLoad, sharedByLoad } from './shared-search.js';

export { SEARCH_TABLES };

const COLUMNS = SEARCH_COLUMNS;
const BATCH = 2000;

async function insertAll(client: PoolClient, table: string, columns: readonly string[], types: readonly string[], rows: readonly object[]): Promise<void> {
  const list = columns.map((c) => `"${c}"`).join(', ');
  const arrays = types.map((t, i) => `$${i + 1}::${t}[]`).join(', ');
  for (let at = 0; at < rows.length; at += BATCH) {
    const batch = rows.slice(at, at + BATCH) as Record<string, unknown>[];
    const values = columns.map((c) => batch.map((r) => r[c] ?? null));
    await client.query(`INSERT INTO "${table}" (${list}) SELECT * FROM unnest(${arrays})`, values);
  }
}

/** Run in the load's transaction, with the new record sets complete and first on the search path. */
export async function buildPostgresFullText(client: PoolClient, references: readonly Reference[] = shippedReferences()): Promise<void> {
  const lines = (await client.query<LineRow & QueryResultRow>(LINES_SQL)).rows;
  const english = (await client.query<EnglishRow & QueryResultRow>(ENGLISH_SQL)).rows;
  const index = buildSearchIndex(lines, english, references);
  const textColumns = COLUMNS.map((c) => `"${c}" TEXT${c === 'CODIGO' ? ' COLLATE "C" NOT NULL UNIQUE' : ''}`).join(', ');
  await client.query(`CREATE TABLE "buscar" ("ID" integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, ${textColumns}, "DOC" tsvector)`);
  await client.query(`CREATE TABLE "buscar_terminos" ("TERMINO" TEXT PRIMARY KEY, "DF" INTEGER NOT NULL)`);
  await client.query(`CREATE TABLE "buscar_palabras" ("PALABRA" TEXT PRIMARY KEY, "TERMINO" TEXT NOT NULL, "FRECUENCIA" INTEGER NOT NULL)`);
  await client.query(`CREATE TABLE "buscar_sinonimos" ("TERMINOS" TEXT NOT NULL, "EXPANSION" TEXT NOT NULL)`);
  await client.query(`CREATE TABLE "buscar_frases" ("FRASE" TEXT NOT NULL, "LINEAS" INTEGER NOT NULL, "IDIOMA" TEXT NOT NULL)`);
  await client.query(`CREATE TABLE "buscar_partidas" ("TERMINO" TEXT PRIMARY KEY, "ES" TEXT NOT NULL, "EN" TEXT NOT NULL, "IDIOMA" TEXT NOT NULL)`);
  await client.query(`CREATE TABLE "buscar_rangos" ("CODIGO" TEXT PRIMARY KEY, "RANGOS" TEXT NOT NULL)`);
  await insertAll(
    client,
    'buscar',
    COLUMNS,
    COLUMNS.map(() => 'text'),
    index.documents,
  );
  await client.query(`UPDATE "buscar" SET "DOC" = to_tsvector('simple', "TERMINOS")`);
  await client.query(`CREATE INDEX "buscar_doc" ON "buscar" USING gin ("DOC")`);
  await insertAll(client, 'buscar_terminos', ['TERMINO', 'DF'], ['text', 'int'], index.terms);
  await insertAll(client, 'buscar_palabras', ['PALABRA', 'TERMINO', 'FRECUENCIA'], ['text', 'text', 'int'], index.words);
  await insertAll(client, 'buscar_sinonimos', ['TERMINOS', 'EXPANSION'], ['text', 'text'], index.synonyms);
  await insertAll(client, 'buscar_frases', ['FRASE', 'LINEAS', 'IDIOMA'], ['text', 'int', 'text'], index.phrases);
  await insertAll(client, 'buscar_partidas', ['TERMINO', 'ES', 'EN', 'IDIOMA'], ['text', 'text', 'text', 'text'], index.evidence);
  await insertAll(client, 'buscar_rangos', ['CODIGO', 'RANGOS'], ['text', 'text'], index.ranges);
  await client.query(`CREATE TABLE "${POSTINGS_TABLE}" (${postingsColumns('TEXT', 'BYTEA')})`);
  // Kept uncompressed, so that a piece of the lists is read without decompressing them whole (readStoredPostings).
  await client.query(`ALTER TABLE "${POSTINGS_TABLE}" ALTER COLUMN "DOCUMENTOS" SET STORAGE EXTERNAL`);
  await client.query(`INSERT INTO "${POSTINGS_TABLE}" ("CODIGOS", "TERMINOS", "LARGOS", "DOCUMENTOS") VALUES ($1, $2, $3, $4)`, [
    index.postings.CODIGOS,
    index.postings.TERMINOS,
    index.postings.LARGOS,
    index.postings.DOCUMENTOS,
  ]);
  await client.query(`ANALYZE ${SEARCH_TABLES.map((t) => `"${t}"`).join(', ')}`);
}

/**
 * The documents of the stored posting lists are read this many bytes at a time: the whole 3.7 MB of
 * the demo's in one row came as a 7.4 MB message of hexadecimal text, which the driver gathered in
 * buffers doubled as it arrived; in a batch's thread that grew the service by about 45 MB more at
 * 100,000 lines than building the lists did (+225 and +233 MB against +178 and +182, two pairs of runs).
 */
const POSTINGS_PIECE_BYTES = 256 * 1024;

async function readStoredPostings(query: Query): Promise<StoredPostings> {
  const [row] = await query<Omit<StoredPostings, 'DOCUMENTOS'> & { BYTES: number }>(
    `SELECT "CODIGOS", "TERMINOS", "LARGOS", octet_length("DOCUMENTOS") AS "BYTES" FROM "${POSTINGS_TABLE}"`,
  );
  if (row === undefined) throw new Error(`the table ${POSTINGS_TABLE} holds no row`);
  const documents = Buffer.alloc(row.BYTES);
  for (let at = 0; at < row.BYTES; at += POSTINGS_PIECE_BYTES) {
    const [piece] = await query<{ PIEZA: Buffer }>(`SELECT substring("DOCUMENTOS" FROM $1 FOR $2) AS "PIEZA" FROM "${POSTINGS_TABLE}"`, [
      at + 1,
      POSTINGS_PIECE_BYTES,
    ]);
    piece!.PIEZA.copy(documents, at);
  }
  return { CODIGOS: row.CODIGOS, TERMINOS: row.TERMINOS, LARGOS: row.LARGOS, DOCUMENTOS: documents };
}

/** The page's codes, bound as one array: the statement's text is the same for every page. */
const PAGE_SQL = pageSql('SELECT unnest($1::text[])');

type Query = <T extends QueryResultRow>(text: string, values?: readonly unknown[]) => Promise<T[]>;

/** How long the vocabulary of a dataset is trusted before checking whether another load replaced it (ms). */
const RECHECK_MS = 1000;

/** What only suggestions read, once the first suggestion has asked for it. */
interface SuggestionRows {
  rows?: { codes: { CODIGO: string; DESCRIPCION: string | null }[]; phrases: PhraseRow[] };
  reading?: Promise<void> | undefined;
}

/** A dataset's search structures, and the rows only suggestions read. */
interface Loaded {
  readonly vocabulary: Vocabulary;
  readonly index: PostingIndex;
  readonly forSuggestions: SuggestionRows;
}

/** What datasetHash says of a schema without dataset_info (an older version's). */
const OLDER_VERSION = 'older version';

function notRead(): never {
  throw new Error('the suggestions were asked before their rows were read');
}

export class PostgresFullText {
  private vocabulary: ({ hash: string } & Loaded) | null = null;
  private checking: Promise<{ hash: string } & Loaded> | undefined;
  private checkedAt = 0;
  private hasInfo = false;

  constructor(private readonly query: Query) {}

  /**
   * What identifies the dataset the index belongs to: the main one's load (its dataset_info row), which
   * a load changes. An older version (a schema of its own, searched `as_of` a date) has no `dataset_info`
   * and never changes, so its vocabulary is read once.
   */
  private async datasetHash(): Promise<string> {
    if (!this.hasInfo) {
      const [info] = await this.query<{ present: boolean }>(`SELECT to_regclass('dataset_info') IS NOT NULL AS "present"`);
      if (!info?.present) return OLDER_VERSION;
      // A table once there stays: the check is not made again at every look for a new load.
      this.hasInfo = true;
    }
    const [row] = await this.query<DatasetRow & QueryResultRow>(DATASET_SELECT);
    return row === undefined ? '' : JSON.stringify([row.source, row.imported_at, row.hash, row.counts]);
  }

  /**
   * The vocabulary and posting lists of the dataset in place, read once per load. Callers that arrive
   * while they are being read (or the dataset's hash checked) wait for that one reading: two searches
   * asked at once before the first was answered (a batch's thread asks two at a time, a service just
   * started or just loaded its lookups at once) each read every row and built their own copy, all
   * alive together (a batch's thread peaked at a 104 MB heap against 70 with one reading).
   */
  private async current(): Promise<Loaded> {
    if (this.vocabulary && Date.now() - this.checkedAt < RECHECK_MS) return this.vocabulary;
    this.checking ??= this.check().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** Whether another load replaced the dataset, and its vocabulary read again when it did. */
  private async check(): Promise<{ hash: string } & Loaded> {
    const now = Date.now();
    const hash = await this.datasetHash();
    this.checkedAt = now;
    if (this.vocabulary?.hash !== hash) {
      // A load's structures are shared by every store of this process serving it (shared-search.ts);
      // an older version's schema (no dataset_info) keeps its own.
      const shared = hash !== OLDER_VERSION && hash !== '';
      const loaded = (shared ? heldForLoad<Loaded>(`postgres ${hash}`) : undefined) ?? (await this.load());
      this.vocabulary = { hash, ...(shared ? sharedByLoad(`postgres ${hash}`, () => loaded) : loaded) };
    }
    return this.vocabulary;
  }

  /** The dataset's vocabulary and posting lists, from its search tables. */
  private async load(): Promise<Loaded> {
    const present = async (table: string): Promise<boolean> =>
      (await this.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS "present"`, [table]))[0]?.present === true;
    const [documents, terms, words, synonyms, evidence, ranges, postings] = await Promise.all([
      this.query<{ n: number }>('SELECT COUNT(*)::int AS "n" FROM "buscar"'),
      this.query<{ TERMINO: string; DF: number }>('SELECT "TERMINO", "DF" FROM "buscar_terminos"'),
      this.query<{ PALABRA: string; TERMINO: string; FRECUENCIA: number }>('SELECT "PALABRA", "TERMINO", "FRECUENCIA" FROM "buscar_palabras"'),
      this.query<{ TERMINOS: string; EXPANSION: string }>('SELECT "TERMINOS", "EXPANSION" FROM "buscar_sinonimos"'),
      // A dataset loaded before the heading evidence existed still searches, word by word as before.
      present('buscar_partidas').then((p) =>
        p ? this.query<EvidenceRow & QueryResultRow>('SELECT "TERMINO", "ES", "EN", "IDIOMA" FROM "buscar_partidas"') : [],
      ),
      present('buscar_rangos').then((p) => (p ? this.query<RangeRow & QueryResultRow>('SELECT "CODIGO", "RANGOS" FROM "buscar_rangos"') : [])),
      // As the load stored them; a dataset loaded before it stored them builds them from the search table.
      present(POSTINGS_TABLE).then(async (p) =>
        p ? readStoredPostings(this.query) : this.query<{ CODIGO: string; TERMINOS: string | null }>('SELECT "CODIGO", "TERMINOS" FROM "buscar"'),
      ),
    ]);
    const index = new PostingIndex(postings);
    const forSuggestions: SuggestionRows = {};
    const vocabulary = new Vocabulary({
      documents: documents[0]?.n ?? 0,
      terms,
      words,
      synonyms,
      codes: () => forSuggestions.rows?.codes ?? notRead(),
      phrases: () => forSuggestions.rows?.phrases ?? notRead(),
      evidence,
      ranges,
    });
    return { vocabulary, index, forSuggestions };
  }

  async search(query: FullTextQuery): Promise<FullTextResult> {
    if (query.code !== null) {
      const sql = codeSearchSql(query, (i) => `$${i}`, 'COLLATE "C"');
      const hits = await this.query<FullTextHit>(sql.page.text, sql.page.values);
      const total = (await this.query<{ total: string }>(sql.total.text, sql.total.values))[0]?.total ?? 0;
      return { hits, total: Number(total), marks: [] };
    }
    const { vocabulary, index } = await this.current();
    const plan = vocabulary.plan(query.text);
    const { page, total } = index.rank(plan, query.skip, query.limit);
    if (page.length === 0) return { hits: [], total, marks: plan.marks };
    const rows = await this.query<Omit<FullTextHit, 'RELEVANCIA'> & QueryResultRow>(PAGE_SQL, [page.map((p) => p.CODIGO)]);
    return { hits: orderedPage(rows, page), total, marks: plan.marks };
  }

  async reading(query: FullTextQuery): Promise<string> {
    return query.code !== null ? `code ${query.code}` : planReading((await this.current()).vocabulary.plan(query.text));
  }

  async suggest(q: string): Promise<Suggestion[]> {
    const current = await this.current();
    await this.readSuggestionRows(current.forSuggestions);
    return current.vocabulary.suggest(q);
  }

  /**
   * The codes and goods phrases only suggestions use, read at the first suggestion as the embedded store
   * does: a process that never suggests (the batches' thread) never holds them.
   */
  private readSuggestionRows(into: SuggestionRows): Promise<void> {
    into.reading ??= Promise.all([
      this.query<{ CODIGO: string; DESCRIPCION: string | null }>('SELECT "CODIGO", "DESCRIPCION" FROM "buscar"'),
      // A dataset loaded before the phrases existed still searches; its suggestions complete words alone.
      this.query<{ present: boolean }>(`SELECT to_regclass('buscar_frases') IS NOT NULL AS "present"`).then((r) =>
        r[0]?.present ? this.query<PhraseRow & QueryResultRow>('SELECT "FRASE", "LINEAS", "IDIOMA" FROM "buscar_frases"') : [],
      ),
    ]).then(
      ([codes, phrases]) => {
        into.rows = { codes, phrases };
      },
      (error: unknown) => {
        // Asked again by the next suggestion.
        into.reading = undefined;
        throw error;
      },
    );
    return into.reading;
  }
}
