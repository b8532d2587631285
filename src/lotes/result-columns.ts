/**
 * A batch result's columns, one row each (../shared/spec/lotes.md, "Reading the results"): the field's
 * name in JSON and NDJSON and how it is written in CSV and XLSX (the files' headers and, for each, the
 * value its cell holds). The order here is the order of the JSON object's fields, of the schema's
 * properties (src/lotes/result-schema.ts adds each field's TypeBox type, and the `Resultado` type is
 * that schema's) and of the files' columns (src/lotes/write.ts). The page's Spanish label of each
 * field is src/consulta/lote-columnas.ts: the page loads only its own modules, so it keeps them
 * there, keyed by this table's names (a name without a label fails to compile).
 */
import type { Resultado } from './answer.js';

/** One column of the files: its header and the value its cell holds (null and undefined: an empty cell). */
export interface FileColumn {
  readonly header: string;
  readonly value: (r: Resultado) => unknown;
}

export interface ResultColumn<Name extends string = string> {
  /** The field's name in JSON and NDJSON. */
  readonly name: Name;
  /**
   * How CSV and XLSX write it: one column for a scalar or a list (a list as JSON), one per part for an
   * object (`igi_tasa`, `igi_tipo`, …), or `extra`: the file's own extra columns, after all the others.
   */
  readonly file: readonly FileColumn[] | 'extra';
}

/**
 * A result's field by name. The names are checked against the type at compile time by the schema
 * (src/lotes/result-schema.ts holds a type for every name here and no other), not here: the type is
 * the schema's, and the schema is built from this table.
 */
const field = (r: Resultado, name: string): unknown => (r as unknown as Record<string, unknown>)[name];

/** A field written as one column of the same name. */
const one = <Name extends string>(name: Name): ResultColumn<Name> => ({
  name,
  file: [{ header: name, value: (r) => field(r, name) }],
});

/** An object field written as one column per part, `<field>_<part>`, empty when the object is null. */
const parts = <Name extends string>(name: Name, keys: readonly string[]): ResultColumn<Name> => ({
  name,
  file: keys.map((key) => ({ header: `${name}_${key}`, value: (r) => (field(r, name) as Record<string, unknown> | null)?.[key] })),
});

export const RESULT_COLUMNS = [
  one('linea'),
  one('referencia'),
  one('descripcion'),
  { name: 'extra', file: 'extra' } as ResultColumn<'extra'>,
  one('fraccion'),
  one('nico'),
  one('estado_fraccion'),
  one('reemplazada_por'),
  one('candidatas'),
  one('coincide'),
  parts('igi', ['tasa', 'tipo', 'texto']),
  parts('preferencia', ['tratamiento', 'acuerdo', 'tasa']),
  one('sin_datos_preferencia'),
  parts('requisitos', ['permisos', 'regulaciones', 'noms', 'cupos']),
  parts('contribuciones', ['total_general', 'total_mejor', 'mejor_opcion']),
  one('revisar'),
  one('error'),
] as const;

export type ResultField = (typeof RESULT_COLUMNS)[number]['name'];

/** The files' columns before the extra ones, in order. */
export const FILE_COLUMNS: readonly FileColumn[] = RESULT_COLUMNS.flatMap((c) => (c.file === 'extra' ? [] : c.file));
