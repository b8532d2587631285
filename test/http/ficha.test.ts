/**
 * The ficha's static type (src/http/ficha.ts, `Ficha`, which the page reads) names exactly the fields
 * of the schema the service answers with: the type is derived from the record sets' declared types,
 * the schema from the registry as it is at run time, and both must agree.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Ficha } from '../../src/http/ficha.js';
import { fichaSchema } from '../../src/http/ficha.js';
import { recordSets } from '../../src/record-sets/index.js';

/** Every field of the type, once: a field missing here or not in the type does not compile. */
const TYPED = {
  fraccion: true,
  nico: true,
  aladi2: true,
  cuotas2: true,
  cupos: true,
  fracciones: true,
  'fracciones-usa': true,
  'fracciones-anteriores': true,
  'fundamentos-tlc': true,
  'informacion-general': true,
  'precios-estimados2': true,
  prosec: true,
  rcg2: true,
  reit: true,
  'requisito-previo': true,
  tlcs: true,
  'vehiculos-marcas': true,
  'vehiculos-modelos': true,
  regulaciones: true,
  ieps: true,
  noms: true,
  sin_registros: true,
  reglas_origen: true,
} as const satisfies Record<keyof Ficha, true>;

test("the ficha's type names exactly the fields of the schema built from the registry", () => {
  const schema = fichaSchema(recordSets);
  assert.deepEqual(Object.keys(schema.properties).sort(), Object.keys(TYPED).sort());
  assert.deepEqual(schema.required, Object.keys(schema.properties), 'every field is always there');
});
