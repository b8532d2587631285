/**
 * The result columns' table (src/lotes/result-columns.ts) against the spec (../shared/spec/lotes.md,
 * "Reading the results"), transcribed here independently: its fields, in the spec's order, are the
 * table's, the schema's properties and the page's labels; the objects the spec spells out (`{a, b}`)
 * are written to CSV and XLSX as one `<field>_<part>` column per part, in that order; and every object
 * of the schema is written part by part, none left out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ETIQUETAS } from '../../src/consulta/lote-columnas.js';
import { FILE_COLUMNS, RESULT_COLUMNS } from '../../src/lotes/result-columns.js';
import { ResultadoSchema } from '../../src/lotes/result-schema.js';

/** The spec's field table, row by row (`sin_datos_preferencia` is told in `preferencia`'s row). */
const SPEC_FIELDS = [
  'linea',
  'referencia',
  'descripcion',
  'extra',
  'fraccion',
  'nico',
  'estado_fraccion',
  'reemplazada_por',
  'candidatas',
  'coincide',
  'igi',
  'preferencia',
  'sin_datos_preferencia',
  'requisitos',
  'contribuciones',
  'revisar',
  'error',
];

/** The objects whose parts the spec names, in its order (`igi` is "rate and type": the schema's parts are checked below). */
const SPEC_PARTS: Record<string, string[]> = {
  preferencia: ['tratamiento', 'acuerdo', 'tasa'],
  requisitos: ['permisos', 'regulaciones', 'noms', 'cupos'],
  contribuciones: ['total_general', 'total_mejor', 'mejor_opcion'],
};

const names = RESULT_COLUMNS.map((c) => c.name);

test("the spec's result fields, in its order, are the table's, the schema's and the page's", () => {
  assert.deepEqual(names, SPEC_FIELDS);
  assert.deepEqual(Object.keys(ResultadoSchema.properties), SPEC_FIELDS);
  assert.deepEqual(Object.keys(ETIQUETAS).sort(), [...SPEC_FIELDS].sort());
  for (const label of Object.values(ETIQUETAS)) assert.match(label, /^\p{Lu}/u);
});

test("an object the spec spells out is written as one column per part, in the spec's order", () => {
  for (const [name, parts] of Object.entries(SPEC_PARTS)) {
    const column = RESULT_COLUMNS.find((c) => c.name === name)!;
    assert.deepEqual(
      column.file === 'extra' ? [] : column.file.map((f) => f.header),
      parts.map((part) => `${name}_${part}`),
      name,
    );
  }
  const headers = FILE_COLUMNS.map((c) => c.header);
  assert.deepEqual(headers.slice(0, 6), ['linea', 'referencia', 'descripcion', 'fraccion', 'nico', 'estado_fraccion'], 'extra goes last, after the table');
});

test('every object of the schema is written part by part, and every other field as one column of its name', () => {
  const headers = FILE_COLUMNS.map((c) => c.header);
  const expected: string[] = [];
  for (const [name, schema] of Object.entries(ResultadoSchema.properties) as [string, { anyOf?: { properties?: object }[] }][]) {
    if (name === 'extra') continue;
    const object = schema.anyOf?.find((s) => s.properties !== undefined);
    expected.push(...(object === undefined ? [name] : Object.keys(object.properties!).map((part) => `${name}_${part}`)));
  }
  assert.deepEqual(headers, expected);
  assert.equal(new Set(headers).size, headers.length, 'no header twice');
});
