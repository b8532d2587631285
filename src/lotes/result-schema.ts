/**
 * A batch result's JSON schema (`ResultadoLote` in the API's document): each field's TypeBox type,
 * in the order of the result columns' table (src/lotes/result-columns.ts), whose names it must have,
 * no more and no fewer. The `Resultado` type (src/lotes/answer.ts) is what this schema describes.
 */
import { Type } from '@sinclair/typebox';
import { ESTADOS_FRACCION } from './answer.js';
import type { ResultField } from './result-columns.js';
import { RESULT_COLUMNS } from './result-columns.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const Brief = { fraccion: Type.String(), nico: Nullable(Type.String()), descripcion: Nullable(Type.String()) };

/** Each field's type. */
const TYPES = {
  linea: Type.Integer({ description: "The line's number in the file (the header is line 1 in CSV and XLSX)" }),
  referencia: Nullable(Type.String()),
  descripcion: Nullable(Type.String()),
  extra: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Unknown columns, as sent: texts from CSV and XLSX; from NDJSON, JSON values with their types',
  }),
  fraccion: Nullable(Type.String({ pattern: '^[0-9]{8}$' })),
  nico: Nullable(Type.String({ pattern: '^[0-9]{2}$' })),
  estado_fraccion: Type.Union(ESTADOS_FRACCION.map((e) => Type.Literal(e))),
  reemplazada_por: Type.Array(Type.Object(Brief)),
  candidatas: Type.Array(Type.Object({ ...Brief, relevancia: Type.Number() }), { description: 'The first 3 hits of buscar for the description' }),
  coincide: Nullable(Type.Boolean({ description: 'The declared fraction is among the first 5 hits of buscar' })),
  igi: Nullable(
    Type.Object({
      tasa: Nullable(Type.Union([Type.String(), Type.Number()])),
      tipo: Nullable(Type.Union([Type.Integer(), Type.String()])),
      texto: Nullable(Type.String()),
    }),
  ),
  preferencia: Nullable(Type.Object({ tratamiento: Type.String(), acuerdo: Nullable(Type.String()), tasa: Nullable(Type.String()) })),
  sin_datos_preferencia: Type.Boolean(),
  requisitos: Nullable(Type.Object({ permisos: Type.Integer(), regulaciones: Type.Integer(), noms: Type.Integer(), cupos: Type.Integer() })),
  contribuciones: Nullable(Type.Object({ total_general: Type.String(), total_mejor: Type.String(), mejor_opcion: Type.String() })),
  revisar: Type.Boolean(),
  error: Nullable(Type.String({ description: 'What in the line could not be read, in Spanish' })),
};

/** A type for each of the table's fields and for no other (this fails to compile otherwise): the cast below is exact. */
type Exact = [keyof typeof TYPES] extends [ResultField] ? ([ResultField] extends [keyof typeof TYPES] ? true : never) : never;
const exact: Exact = true;
void exact;

export const ResultadoSchema = Type.Object(Object.fromEntries(RESULT_COLUMNS.map((c) => [c.name, TYPES[c.name]])) as typeof TYPES, {
  $id: 'ResultadoLote',
  title: 'ResultadoLote',
});
