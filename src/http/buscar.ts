/**
 * `GET /api/v1/buscar?q=…`: which fraction is it? Search over the fraction and NICO descriptions, the
 * nomenclature texts in Spanish (English second) and the search references, ranked by relevance (see
 * docs/buscar.md); a query of digits is a code search. `GET /api/v1/buscar/sugerencias?q=…`:
 * completions while typing.
 */
import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import type { FullTextQuery } from '../store/fulltext.js';
import { MARK_CLOSE, MARK_OPEN, buscar, queryCode } from '../store/fulltext.js';
import { MAX_QUERY_LENGTH, MAX_SUGGEST_LENGTH } from '../limites.js';
import { MAX_SUGGESTIONS } from '../buscar/vocabulary.js';
import type { TObject } from '@sinclair/typebox';
import type { Read } from './contract.js';
import { RequestValidationError } from './errors.js';
import type { ParamSpec } from './params.js';
import { PAGING, fields, parseParams, partSchemas } from './params.js';
import type { ProtectedGet } from './route-kinds.js';
import { nullableText } from './schemas.js';

const Q = {
  name: 'q',
  in: 'query',
  kind: 'text',
  required: true,
  maxLength: MAX_QUERY_LENGTH,
  description: `Words naming the goods, in Spanish or English (case, accents, plural and gender do not matter; a word also matches as a prefix: refrig finds refrigeradores; a misspelt word of five letters or more finds its goods), an invoice line, or a tariff code of up to 10 digits (a code among words ranks its lines first). Lines with all the words come first, then those with most of them, the rarer words counting more. 1 to ${MAX_QUERY_LENGTH} characters.`,
} as const satisfies ParamSpec;
const SUGGEST_Q = {
  name: 'q',
  in: 'query',
  kind: 'text',
  required: true,
  maxLength: MAX_SUGGEST_LENGTH,
  description: `What has been typed so far: words (the last one is completed) or the beginning of a code. 1 to ${MAX_SUGGEST_LENGTH} characters.`,
} as const satisfies ParamSpec;

/** One hit of a search: the tariff line, its texts and where it sits, with its relevance. */
export const BuscarHit = Type.Object(
  {
    FRACCION: Type.String(),
    NICO: nullableText(),
    DESCRIPCION: nullableText({ description: 'Text of the fraction and NICO line' }),
    DESCRIPCION_MARCADA: nullableText({ description: `The same text with the matched words between ${MARK_OPEN} and ${MARK_CLOSE}` }),
    DESCRIPCIONFRACCION: nullableText(),
    DESCRIPCIONSUBPARTIDA: nullableText(),
    DESCRIPCIONPARTIDA: nullableText(),
    DESCRIPCIONCAPITULO: nullableText(),
    RUTA: nullableText({ description: 'Where the line sits: chapter › heading › subheading › fraction, each with its code and text' }),
    RELEVANCIA: Type.Number({ description: 'Higher is more relevant; comparable within one search only' }),
  },
  { $id: 'BuscarHit', title: 'BuscarHit' },
);
export type BuscarHit = Static<typeof BuscarHit>;

export const Sugerencia = Type.Object(
  {
    SUGERENCIA: Type.String({ description: 'The completed text, or the code of a fraction' }),
    TIPO: Type.Unsafe<'palabra' | 'fraccion'>({ type: 'string', enum: ['palabra', 'fraccion'] }),
    FRACCION: nullableText(),
    NICO: nullableText(),
    DESCRIPCION: nullableText(),
  },
  { $id: 'Sugerencia', title: 'Sugerencia' },
);
export type Sugerencia = Static<typeof Sugerencia>;

/** A schema registered under its `$id`, referred to and typed as itself. */
const ref = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T>>({ $ref: `${String(schema.$id)}#` });

export const SugerenciasResponse = Type.Object(
  { items: Type.Array(ref(Sugerencia), { maxItems: MAX_SUGGESTIONS }) },
  { $id: 'SugerenciasResponse', title: 'SugerenciasResponse' },
);
export type SugerenciasResponse = Static<typeof SugerenciasResponse>;

export const BuscarResponse = Type.Object(
  { items: Type.Array(ref(BuscarHit)), total: Type.Integer(), skip: Type.Integer(), limit: Type.Integer() },
  { $id: 'BuscarResponse', title: 'BuscarResponse' },
);
export type BuscarResponse = Static<typeof BuscarResponse>;

/** `q` is required, and bounded by its declaration so that a search stays cheap. */
function checkQuery(raw: unknown, spec: ParamSpec & { readonly maxLength: number }): string {
  const max = spec.maxLength;
  const q = Array.isArray(raw) ? (raw[raw.length - 1] as unknown) : raw;
  if (typeof q !== 'string') throw new RequestValidationError([{ type: 'missing', loc: ['query', spec.name], msg: 'Field required', input: null }]);
  if (q.trim() === '') {
    throw new RequestValidationError([
      { type: 'string_too_short', loc: ['query', spec.name], msg: 'String should have at least 1 character', input: q, ctx: { min_length: 1 } },
    ]);
  }
  if (q.length > max) {
    throw new RequestValidationError([
      {
        type: 'string_too_long',
        loc: ['query', spec.name],
        msg: `String should have at most ${max} characters`,
        input: q,
        ctx: { max_length: max },
      },
    ]);
  }
  return q;
}

/** The schema of a query of these parameters, for the OpenAPI document. */
function querySchema(specs: readonly ParamSpec[]): TObject {
  const { querystring } = partSchemas(specs);
  if (querystring === undefined) throw new Error('query parameters only');
  return querystring;
}

/** A search's query, checked. */
interface SearchQuery {
  readonly q: string;
  readonly skip: number;
  readonly limit: number;
}

/** A search's query: `q` checked first (a bad one is the only failure reported), then the page. */
const searchQuery: Read<SearchQuery, TObject> = {
  schema: querySchema([Q, ...PAGING]),
  read: (value) => {
    const query = fields(value);
    const q = checkQuery(query['q'], Q);
    return { q, ...parseParams(PAGING, {}, query) };
  },
};

/** What has been typed so far, checked as a search's `q` is. */
const suggestQuery: Read<{ q: string }, TObject> = {
  schema: querySchema([SUGGEST_Q]),
  read: (value) => ({ q: checkQuery(fields(value)['q'], SUGGEST_Q) }),
};

export function buscarRoute(): ProtectedGet<unknown, SearchQuery, FullTextQuery, typeof BuscarResponse> {
  return {
    schemas: [BuscarHit],
    operationId: 'buscar',
    summary: 'Find fractions by description or code, ranked by relevance',
    description:
      'Full-text search over the tariff lines (fraction and NICO): their texts, the heading and chapter above them, search references ' +
      'and US equivalents, with accents and case folded and Spanish words stemmed; or a fraction code or its prefix. A page of hits ' +
      '(skip, limit) with the total, most relevant first, each with its path through the tariff (RUTA) and the matched words marked. ' +
      'Answered from the dataset version in force today, or on the date `as_of` names.',
    tag: 'buscar',
    parts: { querystring: searchQuery },
    ok: BuscarResponse,
    parameters: ({ query: { q, skip, limit } }) => ({ text: q, code: queryCode(q), skip, limit }),
    compute: (store, search) => buscar(store, search),
  };
}

export function sugerenciasRoute(): ProtectedGet<unknown, { q: string }, string, typeof SugerenciasResponse> {
  return {
    schemas: [Sugerencia],
    operationId: 'buscarSugerencias',
    summary: 'Up to ten completions of what is being typed in a search box: words, or fractions for digits',
    description:
      'At most ten completions of the text typed so far, for a search box: for digits, the tariff lines whose code starts so ' +
      '(TIPO fraccion); otherwise the last word completed with the words of the index, most frequent first, after the words already ' +
      'typed (TIPO palabra). Answered from the dataset version in force today, or on the date `as_of` names.',
    tag: 'buscar',
    parts: { querystring: suggestQuery },
    ok: SugerenciasResponse,
    parameters: ({ query }) => query.q,
    compute: async (store, q) => ({ items: await store.suggest(q) }),
  };
}
