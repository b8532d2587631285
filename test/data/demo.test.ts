import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { fileURLToPath } from 'node:url';
import { demoRecords, demoVersions } from '../../src/data/demo/index.js';
import type { DemoRecord } from '../../src/data/demo/index.js';
import { recordToRow } from '../../src/data/record-row.js';
import type { RecordSet, RowOf } from '../../src/record-sets/define.js';
import type { fracciones as fraccionesSet } from '../../src/record-sets/fracciones.js';
import { recordSets } from '../../src/record-sets/index.js';
import { keptText } from '../databases.js';

// Compiled to dist/test/data/, so the project root is three levels up.
const sourcesDir = fileURLToPath(new URL('../../../data/sources/', import.meta.url));

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

/** `record` at the end of its record set's list. */
function addTo(bySet: Map<string, DemoRecord['record'][]>, recordSet: string, record: DemoRecord['record']): void {
  const list = bySet.get(recordSet);
  if (list) list.push(record);
  else bySet.set(recordSet, [record]);
}

function build(demo: Iterable<DemoRecord>): Built {
  const bySet = new Map<string, DemoRecord['record'][]>();
  const hash = createHash('sha256');
  for (const { recordSet, record } of demo) {
    const rs = registry.get(recordSet);
    assert.ok(rs, `unknown record set ${recordSet}`);
    // Hashing the checked rows makes the comparison independent of how the generator orders keys.
    hash.update(`${recordSet}\t${JSON.stringify(recordToRow(rs, record))}\n`);
    addTo(bySet, recordSet, record);
  }
  return { bySet, hash: hash.digest('hex') };
}

const records = (built: Built, set: string): readonly DemoRecord['record'][] => built.bySet.get(set) ?? [];

/** Why recordToRow refuses the record, or null when it takes it. */
function refusal(rs: RecordSet, record: DemoRecord['record']): string | null {
  try {
    recordToRow(rs, record);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Fails with `message()` unless `ok`: for the checks of every record (some 250,000), whose message,
 * the record as JSON, is made only for one that fails.
 */
function ensure(ok: boolean, message: () => string): void {
  if (!ok) assert.fail(message());
}

const shown = (set: string, record: DemoRecord['record']): string => `${set}: ${JSON.stringify(record).slice(0, 300)}`;

test('the demo sources are shipped with the project', () => {
  assert.ok(existsSync(sourcesDir), `${sourcesDir} is missing`);
});

/**
 * The demo's versions, from one reading of the sources. The older version is built first: its
 * identifiers need the current version's records, built then once, and the current version's records
 * (those of demoRecords, which gives them) are those.
 */
const versions = demoVersions(sourcesDir);
const [older, current] = versions;
const olderBySet = new Map<string, DemoRecord['record'][]>();
for (const { recordSet, record } of older!.records()) addTo(olderBySet, recordSet, record);

const first = build(current!.records(true));

test('every record passes the import validation of its record set', () => {
  for (const [set, list] of first.bySet) {
    const rs = registry.get(set);
    assert.ok(rs);
    const fields = new Set(rs.fields.map((f) => f.name));
    for (const record of list) {
      const refused = refusal(rs, record);
      ensure(refused === null, () => `${shown(set, record)}: ${refused}`);
      for (const name of Object.keys(record)) ensure(fields.has(name), () => `${set}: ${name} is not a field of the record set`);
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
  const prosec = records(first, 'prosec');
  assert.ok(prosec.length > 0 && prosec.every((r) => r.ARTICULO === '4'));
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
    assert.ok(records(first, set).length > 0, `${set} has records`);
    for (const r of records(first, set)) ensure(/DEMO/.test(String(r[field])), () => `${set}: ${JSON.stringify(r)}`);
  }
});

test('every record taken from the historic SIICEX data says it is historic', () => {
  for (const [set, field] of Object.entries(HISTORIC)) {
    assert.ok(records(first, set).length > 0, `${set} has records`);
    for (const r of records(first, set)) ensure(/HISTÓRICO/.test(String(r[field])), () => `${set}: ${JSON.stringify(r)}`);
  }
});

/** The hash of the records of an earlier run of the same generator on the same sources: kept between runs. */
const earlier = keptText('demo-records-hash', import.meta.url);

test('two runs give identical output', () => {
  // The other run is an earlier one, in another process, when one has kept its hash; else a second
  // build here, by demoRecords on a reading of its own.
  assert.equal(earlier.read() ?? build(demoRecords(sourcesDir)).hash, first.hash);
  earlier.keep(first.hash);
});

test('a generator writing a field its record set does not declare does not compile', () => {
  // @ts-expect-error FRACCIONPUNT is no field of fracciones: the build fails if RowOf stops catching it.
  const wrong: RowOf<typeof fraccionesSet> = { FRACCIONPUNT: '0101.21.01' };
  const right: RowOf<typeof fraccionesSet> = { FRACCIONPUNTO: '0101.21.01' };
  assert.ok(wrong && right);
});

// ---------------------------------------------------------------------------------------------
// The older version: the 8-digit TIGIE 2012

/** The SAT code history as shipped, read here on its own (not through the demo's code). */
const history = parse<Record<string, string>>(readFileSync(join(sourcesDir, 'ligie2022-sat/cce_fracciones_arancelarias.csv'), 'utf8'), {
  columns: true,
  bom: true,
});

const dayBefore = (iso: string): string => new Date(Date.parse(`${iso}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

describe('the demo has history: an older version with the 8-digit TIGIE 2012', () => {
  const olderOf = (set: string): readonly DemoRecord['record'][] => olderBySet.get(set) ?? [];

  test('two versions, oldest first, in force from the dates of the SAT code history, named after their decrees', () => {
    assert.equal(versions.length, 2);
    const [from2012, from2022] = [older!.vigenteDesde, current!.vigenteDesde];
    // The 2012 reform: 2007-era codes end the day before, the new 8-digit codes start that day.
    assert.ok(history.filter((r) => r['fraccion']!.length === 8 && r['vigencia_hasta'] === dayBefore(from2012)).length > 300);
    assert.ok(history.some((r) => r['fraccion']!.length === 8 && r['vigencia_desde'] === from2012));
    // The LIGIE 2022: the day most 10-digit codes start.
    const starts = new Map<string, number>();
    for (const r of history) if (r['fraccion']!.length === 10) starts.set(r['vigencia_desde']!, (starts.get(r['vigencia_desde']!) ?? 0) + 1);
    assert.equal([...starts].sort((a, b) => b[1] - a[1])[0]?.[0], from2022);
    assert.match(older!.fuente, /^TIGIE 2012 \(DOF 2012-06-29\)/);
    assert.match(current!.fuente, /^LIGIE 2022 \(DOF 2022-06-07\)/);
  });

  test('fracciones holds exactly the 8-digit codes in force on that date, with no NICO', () => {
    const date = older!.vigenteDesde;
    const inForce = new Set(
      history
        .filter((r) => r['fraccion']!.length === 8 && r['vigencia_desde']! <= date && (r['vigencia_hasta'] === '' || date < r['vigencia_hasta']!))
        .map((r) => r['fraccion']!),
    );
    const list = olderOf('fracciones');
    assert.deepEqual(new Set(list.map((r) => r.FRACCION)), inForce);
    assert.equal(list.length, inForce.size);
    assert.equal(olderOf('informacion-general').length, inForce.size);
    const horses = list.find((r) => r.FRACCION === '01012101');
    assert.equal(horses?.DESCRIPCION, 'Reproductores de raza pura.');
    assert.equal(horses?.NICO, null);
  });

  test('every record passes the import validation, has no NICO, and carries the marks of the current version', () => {
    for (const [set, list] of olderBySet) {
      const rs = registry.get(set)!;
      const nico = rs.fields.find((f) => f.name === 'NICO' || f.name === 'NICOACTUAL');
      for (const record of list) {
        const refused = refusal(rs, record);
        ensure(refused === null, () => `${shown(set, record)}: ${refused}`);
        if (nico) ensure(record[nico.name] === null, () => shown(set, record));
      }
    }
    for (const [set, field] of Object.entries(GENERATED)) for (const r of olderOf(set)) assert.match(String(r[field]), /DEMO/, set);
    for (const [set, field] of Object.entries(HISTORIC)) for (const r of olderOf(set)) assert.match(String(r[field]), /HISTÓRICO/, set);
    for (const r of olderOf('fracciones')) if (r.ADVIMPOTXT !== null) assert.match(String(r.NOTAS), /HISTÓRICO/);
  });

  test('all 19 record sets have records, with unique identifiers', () => {
    for (const rs of recordSets) {
      const list = olderOf(rs.path);
      assert.ok(list.length > 0, `${rs.path} is empty`);
      assert.equal(new Set(list.map((r) => JSON.stringify(rs.key.map((k) => r[k])))).size, list.length, `${rs.path}: duplicate key`);
    }
  });

  test('a record that is the same in both versions has the same identifier; one of its own has a new one', () => {
    // A fraction that kept its number keeps the identifier of its first NICO in 2022.
    const firstOf = new Map<unknown, number>();
    for (const r of records(first, 'fracciones')) firstOf.set(r.FRACCION, Math.min(firstOf.get(r.FRACCION) ?? Infinity, Number(r.SYSID)));
    const highest = Math.max(...records(first, 'fracciones').map((r) => Number(r.SYSID)));
    let kept = 0;
    for (const r of olderOf('fracciones')) {
      const id = firstOf.get(r.FRACCION);
      if (id !== undefined) kept++;
      assert.equal(r.SYSID, id ?? r.SYSID, String(r.FRACCION));
      if (id === undefined) assert.ok(Number(r.SYSID) > highest, String(r.FRACCION));
    }
    assert.ok(kept > 1000 && kept < olderOf('fracciones').length, `${kept} fractions kept their number`);
    // Historic records built from the same source row are the same record, field for field.
    const currentTlcs = new Map(records(first, 'tlcs').map((r) => [r.SYSID, r]));
    let same = 0;
    for (const r of olderOf('tlcs')) {
      const other = currentTlcs.get(r.SYSID);
      if (!other) continue;
      assert.deepEqual({ ...r }, { ...other });
      same++;
    }
    const olderFractions = new Set(olderOf('fracciones').map((r) => r.FRACCION));
    const expected = [...currentTlcs.values()].filter((r) => olderFractions.has(r.FRACCION)).length;
    assert.equal(same, expected, 'every current tlcs record of a fraction of the older version is also in it');
    assert.ok(same > 0 && olderOf('tlcs').length > same, 'and the older version has records of its own');
  });

  test('the US HTS is the same lines in both versions: the newer build keeps it from the older', () => {
    assert.deepEqual(current!.keep, ['fracciones-usa']);
    assert.equal(olderOf('fracciones-usa').length, records(first, 'fracciones-usa').length);
    assert.ok(![...current!.records()].some((r) => r.recordSet === 'fracciones-usa'));
  });
});
