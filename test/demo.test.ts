import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { demoRecords } from '../src/data/demo/index.js';
import type { DemoRecord } from '../src/data/demo/index.js';
import { recordToRow } from '../src/data/record-row.js';
import type { RecordSet, RowOf } from '../src/record-sets/define.js';
import type { fracciones as fraccionesSet } from '../src/record-sets/fracciones.js';
import { recordSets } from '../src/record-sets/index.js';

// Compiled to dist/test/, so the project root is two levels up.
const sourcesDir = fileURLToPath(new URL('../../data/sources/', import.meta.url));

/** Record sets with no public data: every record is made up and must say so, in this field. */
const GENERATED: Readonly<Record<string, string>> = {
  cuotas2: 'NOTAS',
  'fundamentos-tlc': 'NOTAS',
  ieps: 'NOTAS',
  'precios-estimados2': 'NOTAS',
  reit: 'FUNDAMENTO',
  'vehiculos-marcas': 'MARCA',
  'vehiculos-modelos': 'MARCA',
};

/** Record sets built wholly from the historic SIICEX data: every record says it is not current. */
const HISTORIC: Readonly<Record<string, string>> = {
  aladi2: 'NOTAS',
  cupos: 'NOTAS',
  noms: 'NOTAS',
  prosec: 'OBSERVACION',
  rcg2: 'CONDICION',
  regulaciones: 'COMPLEMENTO',
  'requisito-previo': 'NOTA',
  tlcs: 'NOTAS',
};

interface Built {
  readonly bySet: ReadonlyMap<string, readonly DemoRecord['record'][]>;
  readonly hash: string;
}

const registry = new Map<string, RecordSet>(recordSets.map((rs) => [rs.path, rs]));

function build(): Built {
  const bySet = new Map<string, DemoRecord['record'][]>();
  const hash = createHash('sha256');
  for (const { recordSet, record } of demoRecords(sourcesDir)) {
    const rs = registry.get(recordSet);
    assert.ok(rs, `unknown record set ${recordSet}`);
    // Hashing the checked rows makes the comparison independent of how the generator orders keys.
    hash.update(`${recordSet}\t${JSON.stringify(recordToRow(rs, record))}\n`);
    const list = bySet.get(recordSet);
    if (list) list.push(record);
    else bySet.set(recordSet, [record]);
  }
  return { bySet, hash: hash.digest('hex') };
}

const records = (built: Built, set: string): readonly DemoRecord['record'][] => built.bySet.get(set) ?? [];

test('the demo sources are shipped with the project', () => {
  assert.ok(existsSync(sourcesDir), `${sourcesDir} is missing`);
});

const first = build();

test('every record passes the import validation of its record set', () => {
  for (const [set, list] of first.bySet) {
    const rs = registry.get(set);
    assert.ok(rs);
    for (const record of list) {
      assert.doesNotThrow(() => recordToRow(rs, record), `${set}: ${JSON.stringify(record).slice(0, 300)}`);
      for (const name of Object.keys(record)) {
        assert.ok(
          rs.fields.some((f) => f.name === name),
          `${set}: ${name} is not a field of the record set`,
        );
      }
    }
  }
});

test('all 19 record sets have records', () => {
  assert.equal(recordSets.length, 19);
  for (const rs of recordSets) assert.ok(records(first, rs.path).length > 0, `${rs.path} is empty`);
});

test('identifiers are unique per record set and numbered from 1', () => {
  for (const rs of recordSets) {
    const list = records(first, rs.path);
    const keys = new Set(list.map((r) => JSON.stringify(rs.key.map((k) => r[k]))));
    assert.equal(keys.size, list.length, `${rs.path}: duplicate key`);
    // tlcs is keyed by (SYSID, FRACCION) but gives every row its own SYSID as well.
    const idField = rs.key[0];
    assert.ok(idField);
    const ids = list.map((r) => r[idField]).sort((a, b) => Number(a) - Number(b));
    assert.deepEqual(
      ids,
      list.map((_, i) => i + 1),
      `${rs.path}: ${idField} is not 1..${list.length}`,
    );
  }
});

test('fracciones holds the 11,519 LIGIE 2022 codes', () => {
  const list = records(first, 'fracciones');
  assert.equal(list.length, 11519);
  assert.equal(new Set(list.map((r) => `${String(r.FRACCION)}${String(r.NICO)}`)).size, 11519);
  const horses = list.find((r) => r.FRACCION === '01012101' && r.NICO === '00');
  assert.ok(horses);
  assert.equal(horses.DESCRIPCION, 'Reproductores de raza pura');
  assert.equal(horses.FRACCIONPUNTO, '0101.21.01');
  assert.equal(horses.NIVEL, 5);
  assert.equal(records(first, 'informacion-general').length, 11519);
});

test('duties in fracciones say where they come from: the 2022 transcription, else the historic TIGIE 2012', () => {
  let ligie2022 = 0;
  for (const r of records(first, 'fracciones')) {
    if (r.ADVIMPOTXT === null && r.ADVEXPOTXT === null) continue;
    assert.match(String(r.NOTAS), /HISTÓRICO|LIGIE 2022 \(DOF 7 de junio de 2022\)/);
    if (/LIGIE 2022/.test(String(r.NOTAS))) ligie2022++;
  }
  assert.ok(ligie2022 > 2000, `${ligie2022} lines with 2022 rates`);
  const horse = records(first, 'fracciones').find((r) => r.FRACCION === '01012101');
  assert.equal(horse?.ADVIMPOTXT, '10%');
});

test('informacion-general speaks Spanish first: LIGIE 2022 texts, then the fichas, English only where neither has one', () => {
  const all = records(first, 'informacion-general');
  const horse = all.find((r) => r.FRACCION === '01012101');
  assert.equal(horse?.DESCRIPCIONPARTIDA, 'Caballos, asnos, mulos y burdéganos, vivos.');
  assert.equal(horse?.DESCRIPCIONCAPITULO, 'Animales vivos');
  const laptop = all.find((r) => r.FRACCION === '84713001');
  assert.match(String(laptop?.DESCRIPCIONCAPITULO), /Reactores nucleares, calderas, máquinas/);
});

test('PROSEC records name their article', () => {
  assert.ok(records(first, 'prosec').every((r) => r.ARTICULO === '4'));
});

test('fracciones-usa holds the HTS line 0101.21.00.10', () => {
  const line = records(first, 'fracciones-usa').find((r) => r.FRACCION_CON_PUNTO === '0101.21.00.10');
  assert.ok(line);
  assert.equal(line.FRACCION_SIN_PUNTO, '0101210010');
});

test('fundamentos-tlc has TIPAT records and others', () => {
  const keys = new Set(records(first, 'fundamentos-tlc').map((r) => r.FUNDAMENTO2));
  assert.ok(keys.has('TIPAT'));
  assert.ok(keys.has('TMEC'));
  assert.ok(keys.size > 2);
});

test('every generated record carries the demo mark', () => {
  for (const [set, field] of Object.entries(GENERATED)) {
    for (const r of records(first, set)) assert.match(String(r[field]), /DEMO/, `${set}: ${JSON.stringify(r)}`);
  }
});

test('every record taken from the historic SIICEX data says it is historic', () => {
  for (const [set, field] of Object.entries(HISTORIC)) {
    for (const r of records(first, set)) assert.match(String(r[field]), /HISTÓRICO/, `${set}: ${JSON.stringify(r)}`);
  }
});

test('two runs give identical output', () => {
  assert.equal(build().hash, first.hash);
});

test('a generator writing a field its record set does not declare does not compile', () => {
  // @ts-expect-error FRACCIONPUNT is no field of fracciones: the build fails if RowOf stops catching it.
  const wrong: RowOf<typeof fraccionesSet> = { FRACCIONPUNT: '0101.21.01' };
  const right: RowOf<typeof fraccionesSet> = { FRACCIONPUNTO: '0101.21.01' };
  assert.ok(wrong && right);
});
