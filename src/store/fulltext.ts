/**
 * Search by description (`/api/v1/buscar`): the parts both stores share. What a person typed is
 * analysed by the service (buscar/analysis.ts) before any store sees it, so no search syntax of either
 * engine can be typed in: quotes, operators and parentheses are just separators.
 */
import { fold, stem } from '../buscar/analysis.js';
import { DOCUMENT_COLUMNS } from '../buscar/documents.js';
import type { RankedCode } from '../buscar/ranking.js';
import { prefixUpperBound } from './sql.js';
import type { Store } from './store.js';
import { typedDigits } from '../fraccion.js';

export interface FullTextQuery {
  /** The words as typed. */
  readonly text: string;
  /** A tariff code or its beginning (digits only): the whole query was a code, not words. */
  readonly code: string | null;
  readonly skip: number;
  readonly limit: number;
}

export interface FullTextHit {
  FRACCION: string;
  NICO: string | null;
  DESCRIPCION: string | null;
  DESCRIPCION_MARCADA: string | null;
  DESCRIPCIONFRACCION: string | null;
  DESCRIPCIONSUBPARTIDA: string | null;
  DESCRIPCIONPARTIDA: string | null;
  DESCRIPCIONCAPITULO: string | null;
  RUTA: string | null;
  RELEVANCIA: number;
}

export interface FullTextResult {
  readonly hits: FullTextHit[];
  readonly total: number;
  /** The index terms the query was matched with, to mark in the texts. */
  readonly marks: readonly string[];
}

export const MARK_OPEN = '<mark>';
export const MARK_CLOSE = '</mark>';

/** Digits only (dots and spaces allowed): a code prefix of up to 10 digits, else null. */
export function queryCode(q: string): string | null {
  const digits = typedDigits(q);
  return /^\d{1,10}$/.test(digits) ? digits : null;
}

const DISPLAY = DOCUMENT_COLUMNS.filter((c) => c !== 'CODIGO')
  .map((c) => `"${c}"`)
  .join(', ');

/** A code search over the search table, for either store (`p`: the placeholder, `order`: a byte-order collation). */
export function codeSearchSql(query: FullTextQuery, p: string | ((i: number) => string), order: string) {
  const code = query.code ?? '';
  const at = (i: number): string => (typeof p === 'string' ? p : p(i));
  const where = `WHERE "CODIGO" >= ${at(1)} AND "CODIGO" < ${at(2)}`;
  const range = [code, prefixUpperBound(code)];
  return {
    page: {
      text: `SELECT ${DISPLAY}, "DESCRIPCION" AS "DESCRIPCION_MARCADA", 1 AS "RELEVANCIA" FROM "buscar" ${where} ORDER BY "CODIGO" ${order} LIMIT ${at(3)} OFFSET ${at(4)}`,
      values: [...range, query.limit, query.skip] as (string | number)[],
    },
    total: { text: `SELECT COUNT(*) AS "total" FROM "buscar" ${where}`, values: range as (string | number)[] },
  };
}

/**
 * The rows of a ranked page, read by their codes in one statement whose text never changes
 * (`codes`: the SQL of the list of codes, one bound parameter), in the ranking's order with its relevance.
 */
export const pageSql = (codes: string): string => `SELECT ${DISPLAY}, "DESCRIPCION" AS "DESCRIPCION_MARCADA" FROM "buscar" WHERE "CODIGO" IN (${codes})`;

export function orderedPage(rows: readonly Omit<FullTextHit, 'RELEVANCIA'>[], page: readonly RankedCode[]): FullTextHit[] {
  const byCode = new Map(rows.map((r) => [r.FRACCION + (r.NICO ?? ''), r]));
  return page.flatMap((p) => {
    const row = byCode.get(p.CODIGO);
    return row ? [{ ...row, RELEVANCIA: p.RELEVANCIA }] : [];
  });
}

/**
 * The text with every word whose stem a query term matched between MARK_OPEN and MARK_CLOSE. Done
 * here rather than by each engine so that both stores mark the text as it is stored, accents and
 * capitals included, in the same way.
 */
export function markTerms(text: string, marks: readonly string[]): string {
  if (marks.length === 0) return text;
  return text.replace(/[\p{L}\p{N}]+/gu, (word) => {
    const s = stem(fold(word));
    return marks.some((t) => s.startsWith(t)) ? `${MARK_OPEN}${word}${MARK_CLOSE}` : word;
  });
}

/** The answer of `GET /api/v1/buscar`: hits with their matched words marked, as the route and a batch's lines ask it. */
export async function buscar(store: Store, search: FullTextQuery): Promise<{ items: FullTextHit[]; total: number; skip: number; limit: number }> {
  const { hits, total, marks } = await store.fullText(search);
  const items = hits.map((h) => ({ ...h, DESCRIPCION_MARCADA: h.DESCRIPCION === null ? null : markTerms(h.DESCRIPCION, marks) }));
  return { items, total, skip: search.skip, limit: search.limit };
}
