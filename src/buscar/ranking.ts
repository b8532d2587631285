/**
 * Ranking, the same on both stores: a hit's relevance is the sum, over the words of the query, of the
 * word's rarity (its weight in the plan) times the weight of the best field it was found in. The
 * SQL differs between the stores only in how a term is found in a field and how the index is asked
 * for candidates (FTS5 on SQLite, a GIN index on PostgreSQL); numbers are integers, so both stores
 * compute exactly the same relevance and order the same hits the same way.
 */
import { prefixUpperBound } from '../sql-text.js';
import type { TermField } from './documents.js';
import { DOCUMENT_COLUMNS, TERM_FIELDS, fieldTag } from './documents.js';
import type { QueryPlan } from './vocabulary.js';
import { CODE_WEIGHT, HEADING_SLOTS, QUANTITY_MATCH } from './vocabulary.js';

/**
 * The search references count most (they are curated: "llanta" means a tyre to a broker, though the
 * tariff also calls a rim so), then the words that head a heading, subheading or line (what the goods
 * are: "Automóviles de turismo"), the line's own words, the hierarchy's; words of a purpose or parts
 * clause and English count least.
 */
export const FIELD_WEIGHTS: Readonly<Record<TermField, number>> = {
  T_REFERENCIA: 13,
  T_CABEZA: 12,
  T_LINEA: 10,
  T_JERARQUIA: 6,
  T_CAPITULO: 3,
  T_OTROS: 2,
};

/** Every field for the word itself (points: twice the field's weight) and for what it stands for (once), best first. */
const CASE_ORDER = TERM_FIELDS.flatMap((field) => [
  { field, tier: 'primary' as const, points: 2 * FIELD_WEIGHTS[field] },
  { field, tier: 'secondary' as const, points: FIELD_WEIGHTS[field] },
]).sort((a, b) => b.points - a.points);

/**
 * A plan as the ranking reads it (rankingSql uses these and nothing else): two texts with the same reading
 * have the same hits, in the same order, with the same relevance. A batch asks each reading once.
 */
export function planReading(plan: QueryPlan): string {
  return JSON.stringify([plan.groups, plan.codes, plan.headings, plan.quantityCodes]);
}

/** The column of a page's rows that holds the total: one scan gives the page and the count. */
export const TOTAL = 'TOTAL_';

/** The page's hits, the total column taken out of them, and the total (null: an empty page, ask the count query). */
export function splitTotal<T extends object>(rows: T[]): { hits: T[]; total: number | null } {
  const first = rows[0] as Record<string, unknown> | undefined;
  const total = first === undefined ? null : Number(first[TOTAL]);
  for (const row of rows) delete (row as Record<string, unknown>)[TOTAL];
  return { hits: rows, total };
}

export interface RankingDialect {
  /** A bound parameter by its 1-based position in `values`. */
  param(index: number, type: 'text' | 'int' | 'tsquery'): string;
  /** The index query for any of these tagged terms (a term is a whole term, or a prefix when `prefix`); one that finds nothing when empty. */
  indexQuery(terms: readonly { readonly term: string; readonly prefix: boolean }[]): string | null;
  /** True for the rows the index finds for an index query (a bound parameter): the search's filter. */
  indexMatch(query: string): string;
  /**
   * A field test of the ranking: true when the row has one of these tagged terms, written as each
   * engine answers it fastest for thousands of candidate rows; `bind` binds a value. With no terms,
   * the same text with a value that finds nothing: the SQL's text does not change with the terms.
   */
  member(terms: readonly Tagged[], bind: (value: string | null, type: 'text' | 'tsquery') => string): string;
  /** Ordering of codes as plain bytes. */
  readonly codeOrder: string;
  /** True when the text `value` occurs in the text `list`. */
  listHas(list: string, value: string): string;
}

export interface RankingSql {
  readonly page: { text: string; values: (string | number | null)[] };
  readonly total: { text: string; values: (string | number | null)[] };
}

const SEARCH_TABLE = '"buscar"';
const DISPLAY = DOCUMENT_COLUMNS.filter((c) => c !== 'CODIGO')
  .map((c) => `b."${c}"`)
  .join(', ');

export type Tagged = { readonly term: string; readonly prefix: boolean };

/** A plan's alternatives in one field: `abc ` (trailing space) is the whole term abc, `abc` any term starting so. */
function inField(field: TermField, alternatives: readonly string[]): Tagged[] {
  return alternatives.map((a) => ({ term: fieldTag(field) + a.trimEnd(), prefix: !a.endsWith(' ') }));
}

/**
 * The SQL of one planned query; its text depends only on the number of words and codes (at most
 * MAX_GROUPS + 1 times MAX_CODES + 1 texts), never on the words or how many alternatives each has, so
 * that the statements prepared for it stay few whatever clients search for.
 */
export function rankingSql(plan: QueryPlan, skip: number, limit: number, d: RankingDialect): RankingSql | null {
  if (plan.groups.length === 0 && plan.codes.length === 0) return null;
  const values: (string | number | null)[] = [];
  const bind = (value: string | number | null, type: 'text' | 'int' | 'tsquery'): string => {
    values.push(value);
    return d.param(values.length, type);
  };
  // The filter's parameters come first, so that the count binds the same first values.
  const where: string[] = [];
  const scores: string[] = [];
  const everything = plan.groups.flatMap((g) => TERM_FIELDS.flatMap((f) => inField(f, [...g.primary, ...g.secondary])));
  if (plan.groups.length > 0) where.push(d.indexMatch(bind(d.indexQuery(everything), 'tsquery')));
  for (const code of plan.codes) {
    const inCode = `b."CODIGO" >= ${bind(code, 'text')} AND b."CODIGO" < ${bind(prefixUpperBound(code), 'text')}`;
    where.push(`(${inCode})`);
    scores.push(`(CASE WHEN ${inCode} THEN ${CODE_WEIGHT} ELSE 0 END)`);
  }
  const condition = where.join(' OR ');
  const filterValues = [...values];
  for (const g of plan.groups) {
    const weight = bind(g.weight, 'int');
    const matched = bind(g.matched, 'int');
    // A tier with no terms keeps its WHEN, which finds nothing: the text is the same for every group.
    const cases = CASE_ORDER.map(({ field, tier, points }) => `WHEN ${d.member(inField(field, g[tier]), bind)} THEN ${matched} + ${points} * ${weight}`);
    scores.push(`(CASE ${cases.join(' ')} ELSE 0 END)`);
  }
  if (plan.groups.length > 0) {
    // Heading first: a fixed number of slots, unused ones bound to a heading no code starts with.
    const slots = Array.from({ length: HEADING_SLOTS }, (_, i) => plan.headings[i] ?? { heading: '', bonus: 0 });
    scores.push(`(CASE substr(b."CODIGO", 1, 4) ${slots.map((s) => `WHEN ${bind(s.heading, 'text')} THEN ${bind(s.bonus, 'int')}`).join(' ')} ELSE 0 END)`);
    scores.push(`(CASE WHEN ${d.listHas(bind(plan.quantityCodes, 'text'), `' ' || b."CODIGO" || ' '`)} THEN ${QUANTITY_MATCH} ELSE 0 END)`);
  }
  // The page is ranked over the candidates' codes and scores alone, and only its own rows are then read
  // whole: thousands of candidates are not carried with their texts through the sort.
  const ranked = `SELECT b."CODIGO", ${scores.join(' + ')} AS "RELEVANCIA", COUNT(*) OVER () AS "${TOTAL}"
FROM ${SEARCH_TABLE} b WHERE ${condition}
ORDER BY "RELEVANCIA" DESC, b."CODIGO" ${d.codeOrder} LIMIT ${bind(limit, 'int')} OFFSET ${bind(skip, 'int')}`;
  const text = `SELECT ${DISPLAY}, b."DESCRIPCION" AS "DESCRIPCION_MARCADA", s."RELEVANCIA", s."${TOTAL}"
FROM (${ranked}) s JOIN ${SEARCH_TABLE} b ON b."CODIGO" = s."CODIGO"
ORDER BY s."RELEVANCIA" DESC, s."CODIGO" ${d.codeOrder}`;
  return {
    page: { text, values },
    total: { text: `SELECT COUNT(*) AS "total" FROM ${SEARCH_TABLE} b WHERE ${condition}`, values: filterValues },
  };
}
