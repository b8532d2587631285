/**
 * The batches' schemas (../shared/spec/lotes.md): the queries they take and the answers they give, one
 * TypeBox schema each (checked by Fastify, src/http/contract.ts), and the pieces every batch operation's document shares.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { ESTADOS } from '../lotes/tables.js';
import { MAX_BATCH_NAME } from '../limites.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const PostQuery = Type.Object({
  nombre: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_BATCH_NAME,
      description: 'A name for the batch (control characters such as CR, LF and NUL are dropped); default the upload time',
    }),
  ),
  fecha: Type.Optional(
    Type.String({ format: 'date', description: 'The version in force that day answers every line (YYYY-MM-DD); default today in Mexico City' }),
  ),
  pais_origen: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'Country of origin (Anexo 22 key) of the lines that give none' })),
});

const paging = {
  skip: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'Number of items to skip' }),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Maximum number of items returned' }),
};
export const ListQuery = Type.Object(paging);

export const FORMATOS = ['json', 'csv', 'xlsx', 'ndjson'] as const;
export type Formato = (typeof FORMATOS)[number];
export const ResultsQuery = Type.Object({
  formato: Type.Optional(
    Type.Union(
      FORMATOS.map((f) => Type.Literal(f)),
      { description: 'json (pages), or a whole file: csv, xlsx, ndjson; else the Accept header decides' },
    ),
  ),
  solo_revisar: Type.Optional(Type.Boolean({ description: 'Only the lines to review' })),
  ...paging,
});

export const LoteSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    nombre: Type.String(),
    estado: Type.Union(ESTADOS.map((e) => Type.Literal(e))),
    lineas: Type.Integer(),
    procesadas: Type.Integer(),
    revisar: Type.Integer(),
    errores: Type.Integer(),
    progreso: Type.Integer({ minimum: 0, maximum: 100, description: 'floor(100 × procesadas / lineas)' }),
    fecha: Type.String({ format: 'date' }),
    version: Nullable(Type.String({ description: 'The dataset version answering every line, fixed when the batch starts' })),
    creado: Type.String({ format: 'date-time' }),
    iniciado: Nullable(Type.String({ format: 'date-time' })),
    terminado: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'Lote', title: 'Lote' },
);
/** A batch as the routes answer it; the page's type for it (`import type`). */
export type LoteJson = Static<typeof LoteSchema>;
export const LotesPageSchema = Type.Object(
  { items: Type.Array(Type.Ref('Lote')), total: Type.Integer(), skip: Type.Integer(), limit: Type.Integer() },
  { $id: 'LotesResponse', title: 'LotesResponse' },
);
/** A line's result: its fields, their types and order are the result columns' table (src/lotes/result-columns.ts). */
export { ResultadoSchema } from '../lotes/result-schema.js';
export const ResultadosPageSchema = Type.Object(
  { items: Type.Array(Type.Ref('ResultadoLote')), total: Type.Integer(), skip: Type.Integer(), limit: Type.Integer() },
  { $id: 'ResultadosLoteResponse', title: 'ResultadosLoteResponse' },
);

export const errors = {
  422: { description: 'Validation Error', $ref: 'HTTPValidationError#' },
};
export const notFoundResponse = { 404: { description: 'No batch of yours with this id', $ref: 'ErrorMessage#' } };
export const IdParam = Type.Object({ id: Type.String({ description: 'The batch id (a UUID)' }) });
export const common = { tags: ['lotes'], security: [{ HTTPBearer: [] }] };
