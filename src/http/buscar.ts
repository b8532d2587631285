/**
 * `GET /api/v1/buscar?q=…`: which fraction is it? Full-text search over the fraction and NICO
 * descriptions and the nomenclature texts, ranked by relevance; a query of digits is a code search.
 */
import type { FullTextQuery } from '../store/fulltext.js';
import { MARK_CLOSE, MARK_OPEN, MAX_QUERY_LENGTH, markTerms, queryCode, queryTerms } from '../store/fulltext.js';
import { RequestValidationError } from './errors.js';
import type { ParamSpec } from './params.js';
import { PAGING, parseParams } from './params.js';
import type { ProtectedGet } from './route-kinds.js';

const Q: ParamSpec = {
  name: 'q',
  in: 'query',
  kind: 'text',
  required: true,
  maxLength: MAX_QUERY_LENGTH,
  description: `Words to find in the descriptions (case and accents do not matter; each word also matches as a prefix: refrig finds refrigeradores), or a tariff code of up to 10 digits. 1 to ${MAX_QUERY_LENGTH} characters.`,
};
const PARAMS: readonly ParamSpec[] = [Q, ...PAGING];

const nullableText = { type: ['string', 'null'] };
export const buscarHitSchema = {
  $id: 'BuscarHit',
  title: 'BuscarHit',
  type: 'object',
  properties: {
    FRACCION: { type: 'string' },
    NICO: nullableText,
    DESCRIPCION: { ...nullableText, description: 'Text of the fraction and NICO line' },
    DESCRIPCION_MARCADA: { ...nullableText, description: `The same text with the matched words between ${MARK_OPEN} and ${MARK_CLOSE}` },
    DESCRIPCIONFRACCION: nullableText,
    DESCRIPCIONSUBPARTIDA: nullableText,
    DESCRIPCIONPARTIDA: nullableText,
    DESCRIPCIONCAPITULO: nullableText,
    RELEVANCIA: { type: 'number', description: 'Higher is more relevant; comparable within one search only' },
  },
  required: [
    'FRACCION',
    'NICO',
    'DESCRIPCION',
    'DESCRIPCION_MARCADA',
    'DESCRIPCIONFRACCION',
    'DESCRIPCIONSUBPARTIDA',
    'DESCRIPCIONPARTIDA',
    'DESCRIPCIONCAPITULO',
    'RELEVANCIA',
  ],
};

export const buscarPageSchema = {
  $id: 'BuscarResponse',
  title: 'BuscarResponse',
  type: 'object',
  properties: {
    items: { type: 'array', items: { $ref: 'BuscarHit#' } },
    total: { type: 'integer' },
    skip: { type: 'integer' },
    limit: { type: 'integer' },
  },
  required: ['items', 'total', 'skip', 'limit'],
};

/** `q` is required, and bounded so that a search stays cheap. */
function checkQuery(raw: unknown): string {
  const q = Array.isArray(raw) ? (raw[raw.length - 1] as unknown) : raw;
  if (typeof q !== 'string') throw new RequestValidationError([{ type: 'missing', loc: ['query', 'q'], msg: 'Field required', input: null }]);
  if (q.trim() === '') {
    throw new RequestValidationError([
      { type: 'string_too_short', loc: ['query', 'q'], msg: 'String should have at least 1 character', input: q, ctx: { min_length: 1 } },
    ]);
  }
  if (q.length > MAX_QUERY_LENGTH) {
    throw new RequestValidationError([
      {
        type: 'string_too_long',
        loc: ['query', 'q'],
        msg: `String should have at most ${MAX_QUERY_LENGTH} characters`,
        input: q,
        ctx: { max_length: MAX_QUERY_LENGTH },
      },
    ]);
  }
  return q;
}

export function buscarRoute(): ProtectedGet<FullTextQuery> {
  return {
    schemas: [buscarHitSchema, buscarPageSchema],
    operationId: 'buscar',
    summary: 'Find fractions by description or code, ranked by relevance',
    tag: 'buscar',
    params: PARAMS,
    responses: { 200: { description: 'Successful Response', $ref: 'BuscarResponse#' } },
    parse: (request): FullTextQuery => {
      const query = request.query as Record<string, unknown>;
      const q = checkQuery(query['q']);
      const paging = parseParams(PAGING, {}, query);
      return { terms: queryTerms(q), code: queryCode(q), skip: paging['skip'] as number, limit: paging['limit'] as number };
    },
    answer: async (store, search) => {
      const { hits, total } = await store.fullText(search);
      const items = hits.map((h) => ({ ...h, DESCRIPCION_MARCADA: h.DESCRIPCION === null ? null : markTerms(h.DESCRIPCION, search.terms) }));
      return { items, total, skip: search.skip, limit: search.limit };
    },
  };
}
