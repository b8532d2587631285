/**
 * `GET /api/v1/buscar?q=…`: which fraction is it? Search over the fraction and NICO descriptions, the
 * nomenclature texts in Spanish (English second) and the search references, ranked by relevance (see
 * docs/buscar.md); a query of digits is a code search. `GET /api/v1/buscar/sugerencias?q=…`:
 * completions while typing.
 */
import type { FullTextQuery } from '../store/fulltext.js';
import { MARK_CLOSE, MARK_OPEN, MAX_QUERY_LENGTH, buscar, queryCode } from '../store/fulltext.js';
import { MAX_SUGGESTIONS } from '../buscar/vocabulary.js';
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
  description: `Words naming the goods, in Spanish or English (case, accents, plural and gender do not matter; a word also matches as a prefix: refrig finds refrigeradores; a misspelt word of five letters or more finds its goods), an invoice line, or a tariff code of up to 10 digits (a code among words ranks its lines first). Lines with all the words come first, then those with most of them, the rarer words counting more. 1 to ${MAX_QUERY_LENGTH} characters.`,
};
export const MAX_SUGGEST_LENGTH = 100;
const SUGGEST_Q: ParamSpec = {
  name: 'q',
  in: 'query',
  kind: 'text',
  required: true,
  maxLength: MAX_SUGGEST_LENGTH,
  description: `What has been typed so far: words (the last one is completed) or the beginning of a code. 1 to ${MAX_SUGGEST_LENGTH} characters.`,
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
    RUTA: { ...nullableText, description: 'Where the line sits: chapter › heading › subheading › fraction, each with its code and text' },
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
    'RUTA',
    'RELEVANCIA',
  ],
};

export const suggestionSchema = {
  $id: 'Sugerencia',
  title: 'Sugerencia',
  type: 'object',
  properties: {
    SUGERENCIA: { type: 'string', description: 'The completed text, or the code of a fraction' },
    TIPO: { type: 'string', enum: ['palabra', 'fraccion'] },
    FRACCION: nullableText,
    NICO: nullableText,
    DESCRIPCION: nullableText,
  },
  required: ['SUGERENCIA', 'TIPO', 'FRACCION', 'NICO', 'DESCRIPCION'],
};

export const suggestionsSchema = {
  $id: 'SugerenciasResponse',
  title: 'SugerenciasResponse',
  type: 'object',
  properties: { items: { type: 'array', maxItems: MAX_SUGGESTIONS, items: { $ref: 'Sugerencia#' } } },
  required: ['items'],
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
function checkQuery(raw: unknown, max = MAX_QUERY_LENGTH): string {
  const q = Array.isArray(raw) ? (raw[raw.length - 1] as unknown) : raw;
  if (typeof q !== 'string') throw new RequestValidationError([{ type: 'missing', loc: ['query', 'q'], msg: 'Field required', input: null }]);
  if (q.trim() === '') {
    throw new RequestValidationError([
      { type: 'string_too_short', loc: ['query', 'q'], msg: 'String should have at least 1 character', input: q, ctx: { min_length: 1 } },
    ]);
  }
  if (q.length > max) {
    throw new RequestValidationError([
      {
        type: 'string_too_long',
        loc: ['query', 'q'],
        msg: `String should have at most ${max} characters`,
        input: q,
        ctx: { max_length: max },
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
    description:
      'Full-text search over the tariff lines (fraction and NICO): their texts, the heading and chapter above them, search references ' +
      'and US equivalents, with accents and case folded and Spanish words stemmed; or a fraction code or its prefix. A page of hits ' +
      '(skip, limit) with the total, most relevant first, each with its path through the tariff (RUTA) and the matched words marked. ' +
      'Answered from the dataset version in force today, or on the date `as_of` names.',
    tag: 'buscar',
    params: PARAMS,
    responses: { 200: { description: 'Successful Response', $ref: 'BuscarResponse#' } },
    parse: (request): FullTextQuery => {
      const query = request.query as Record<string, unknown>;
      const q = checkQuery(query['q']);
      const paging = parseParams(PAGING, {}, query);
      return { text: q, code: queryCode(q), skip: paging['skip'] as number, limit: paging['limit'] as number };
    },
    compute: buscar,
  };
}

export function sugerenciasRoute(): ProtectedGet<string> {
  return {
    schemas: [suggestionSchema, suggestionsSchema],
    operationId: 'buscarSugerencias',
    summary: 'Up to ten completions of what is being typed in a search box: words, or fractions for digits',
    description:
      'At most ten completions of the text typed so far, for a search box: for digits, the tariff lines whose code starts so ' +
      '(TIPO fraccion); otherwise the last word completed with the words of the index, most frequent first, after the words already ' +
      'typed (TIPO palabra). Answered from the dataset version in force today, or on the date `as_of` names.',
    tag: 'buscar',
    params: [SUGGEST_Q],
    responses: { 200: { description: 'Successful Response', $ref: 'SugerenciasResponse#' } },
    parse: (request): string => checkQuery((request.query as Record<string, unknown>)['q'], MAX_SUGGEST_LENGTH),
    compute: async (store, q) => ({ items: await store.suggest(q) }),
  };
}
