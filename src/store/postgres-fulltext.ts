/**
 * Search by description on PostgreSQL: the `spanish` text-search configuration stems the words,
 * accents are folded on both sides with translate() (immutable, no extension needed), every term is
 * a word prefix (`:*`), and ts_rank orders the hits with the line's own text weighted highest.
 */
import type { FullTextQuery } from './fulltext.js';
import { prefixUpperBound } from './sql.js';
import type { SqlQuery } from './sql.js';

const ACCENTED = 'áàäâãéèëêíìïîóòöôõúùüûñçÁÀÄÂÃÉÈËÊÍÌÏÎÓÒÖÔÕÚÙÜÛÑÇ';
const PLAIN = 'aaaaaeeeeiiiiooooouuuuncaaaaaeeeeiiiiooooouuuunc';
const fold = (column: string): string => `translate(lower(coalesce(${column}, '')), '${ACCENTED}', '${PLAIN}')`;

const DOCUMENT = [
  `setweight(to_tsvector('spanish', ${fold('f."DESCRIPCION"')}), 'A')`,
  `setweight(to_tsvector('spanish', ${fold('i."DESCRIPCION"')}), 'B')`,
  `setweight(to_tsvector('spanish', ${fold('i."DESCRIPCIONSUBPARTIDA"')} || ' ' || ${fold('i."DESCRIPCIONPARTIDA"')}), 'C')`,
  `setweight(to_tsvector('spanish', ${fold('i."DESCRIPCIONCAPITULO"')}), 'D')`,
].join(' || ');

const FROM = `FROM "fracciones" f
LEFT JOIN "informacion_general" i ON i."FRACCION" = f."FRACCION" AND i."NICO" IS NOT DISTINCT FROM f."NICO"`;

const COLUMNS = `f."FRACCION", f."NICO", f."DESCRIPCION", i."DESCRIPCION" AS "DESCRIPCIONFRACCION", i."DESCRIPCIONSUBPARTIDA",
  i."DESCRIPCIONPARTIDA", i."DESCRIPCIONCAPITULO"`;

const CODE = `(f."FRACCION" || coalesce(f."NICO", ''))`;

/** The page and the total of one search. Terms are letters and digits only, so they cannot carry tsquery syntax. */
export function postgresFullText(query: FullTextQuery): { page: SqlQuery; total: SqlQuery } | null {
  if (query.code !== null) {
    const range = [query.code, prefixUpperBound(query.code)];
    const where = `WHERE ${CODE} >= $1 AND ${CODE} < $2`;
    return {
      page: {
        text: `SELECT ${COLUMNS}, f."DESCRIPCION" AS "DESCRIPCION_MARCADA", 1 AS "RELEVANCIA" ${FROM} ${where} ORDER BY ${CODE} COLLATE "C" LIMIT $3 OFFSET $4`,
        values: [...range, query.limit, query.skip],
      },
      total: { text: `SELECT COUNT(*)::int AS "total" ${FROM} ${where}`, values: range },
    };
  }
  if (query.terms.length === 0) return null;
  const tsquery = query.terms.map((t) => `${t}:*`).join(' & ');
  const q = `to_tsquery('spanish', $1)`;
  const where = `WHERE (${DOCUMENT}) @@ ${q}`;
  const rank = `ts_rank(${DOCUMENT}, ${q})`;
  return {
    page: {
      text: `SELECT ${COLUMNS}, f."DESCRIPCION" AS "DESCRIPCION_MARCADA", round((${rank})::numeric, 4)::float8 AS "RELEVANCIA"
${FROM} ${where} ORDER BY ${rank} DESC, ${CODE} COLLATE "C" LIMIT $2 OFFSET $3`,
      values: [tsquery, query.limit, query.skip],
    },
    total: { text: `SELECT COUNT(*)::int AS "total" ${FROM} ${where}`, values: [tsquery] },
  };
}
