/**
 * Absence said as absence (issue 27), over real HTTP on both stores: each version's coverage per
 * record set (`/api/v1/versiones/{version}`, counted here from the records the test loads), the note
 * of `contribuciones` when the origin has an agreement with Mexico but the data holds no preference
 * record for the fraction, and the ficha naming the record sets with nothing for the fraction.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordToRow } from '../src/data/record-row.js';
import { SHIPPED, shippedDir } from '../src/reglas-origen/archivos.js';
import type { FractionFilter } from '../src/record-sets/define.js';
import { dotted } from '../src/fraccion.js';
import { recordSets } from '../src/record-sets/index.js';
import { writeDatabase } from '../src/data/write.js';
import type { DatasetWriter } from '../src/store/store.js';
import { CONTRIBUCIONES_RECORDS } from './contribuciones-fixture.js';
import type { Running } from './servers.js';
import { waitFor } from './lifetime.js';
import { storeKinds } from './stores.js';
import { serveFixture } from './servers.js';

type Records = Record<string, Record<string, string | number | null>[]>;

/** The contributions fixture, plus an excise record holding its code only dotted and FTA records of a fraction the tariff lacks. */
const RECORDS: Records = {
  ...CONTRIBUCIONES_RECORDS,
  // Beef replaced an older code the tariff no longer holds: one fraction covered.
  'fracciones-anteriores': [{ SYSID: 1, FRACCIONACTUAL: '02011001', NICOACTUAL: '00', FRACCIONANTERIOR: '02011099', NICOANTERIOR: '00' }],
  ieps: [...CONTRIBUCIONES_RECORDS['ieps']!, { CONSECUTIVO: 2, FRACCION_SIN_PUNTO: null, FRACCION_CON_PUNTO: '0402.10.99', TIPO: 'CUOTA' }],
  tlcs: [...CONTRIBUCIONES_RECORDS['tlcs']!, { SYSID: 9, FRACCION: '99999999', PAIS: 'NZL', TASATXT: 'Ex.', TASA1NUM: '0.00' }],
};

const fill =
  (records: Records) =>
  (writer: DatasetWriter): void => {
    for (const rs of recordSets) for (const record of records[rs.path] ?? []) writer.insert(rs, recordToRow(rs, record));
  };

/** Coverage worked out from the records themselves, matching a fraction as a ficha does (its code, or its dotted form). */
/** Every load holds the shipped rules of origin: the agreements and their rule sets, counted from the files. */
const shippedRules = SHIPPED.map(({ archivo, acuerdo }) => ({
  acuerdo,
  archivo,
  conjuntos: (JSON.parse(readFileSync(join(shippedDir, archivo), 'utf8')) as { rule_sets: unknown[] }).rule_sets.length,
}));

function expectedCoverage(records: Records): Record<string, { fracciones: number; de: number }> {
  const fractions = new Set((records['fracciones'] ?? []).map((r) => String(r['FRACCION'])));
  const out: Record<string, { fracciones: number; de: number }> = {};
  for (const rs of recordSets) {
    const filters = rs.filters.filter((f): f is FractionFilter => f.rule === 'fraction');
    if (filters.length === 0) continue;
    const rows = records[rs.path] ?? [];
    const holds = (r: (typeof rows)[number], f: string): boolean =>
      filters.some((filter) => r[filter.field] === f || (filter.dottedField !== undefined && r[filter.dottedField] === dotted(f)));
    const covered = [...fractions].filter((f) => rows.some((r) => holds(r, f)));
    out[rs.path] = { fracciones: covered.length, de: fractions.size };
  }
  return { ...out, reglas_origen: shippedRules } as unknown as Record<string, { fracciones: number; de: number }>;
}

interface Partida {
  mejor_opcion: string;
  notas: string[];
  ausencias: { tratamiento: string; conjunto: string; acuerdos: string[]; nota: string }[];
}

let server: Running;

async function line(pais: string, fraccion: string, extra: Record<string, unknown> = {}): Promise<Partida> {
  const response = await fetch(`${server.base}/api/v1/contribuciones`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
    body: JSON.stringify({
      fecha: '2024-06-03',
      pais_origen: pais,
      tipo_cambio: '17.0000',
      partidas: [{ fraccion, valor_aduana: '1000.00', cantidad_umt: '10', ...extra }],
      ...extra,
    }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return ((await response.json()) as { partidas: Partida[] }).partidas[0]!;
}

for (const kind of await storeKinds()) {
  describe(`absence in the data (${kind})`, () => {
    let url = '';
    serveFixture(
      kind,
      {},
      (running, db) => {
        server = running;
        url = db.url;
      },
      fill(RECORDS),
    );

    test('each version reports its coverage per record set with a fraction column, counted by the store', async () => {
      const { status, body } = await server.json<{ cobertura: Record<string, { fracciones: number; de: number }> }>('/api/v1/versiones/1900-01-01.1');
      assert.equal(status, 200);
      const expected = expectedCoverage(RECORDS);
      assert.deepEqual(body.cobertura, expected);
      // What the records give: 7 fractions; one with FTA records (the other FTA fraction is not in the tariff), two with excise (one by its dotted code only).
      assert.deepEqual(expected['fracciones-anteriores'], { fracciones: 1, de: 7 });
      assert.deepEqual(
        [expected['tlcs'], expected['ieps'], expected['fracciones'], expected['noms']],
        [
          { fracciones: 1, de: 7 },
          { fracciones: 2, de: 7 },
          { fracciones: 7, de: 7 },
          { fracciones: 1, de: 7 },
        ],
      );
      assert.ok(!('cobertura' in ((await server.json<unknown[]>('/api/v1/versiones')).body[0] as object)), 'the list stays as it was');
    });

    test('a newer version has a coverage of its own; asking again gives the same answer', async () => {
      const fewer: Records = { ...RECORDS, noms: [], ieps: [RECORDS['ieps']![1]!] };
      await writeDatabase(url, 'menos registros', fill(fewer), { vigenteDesde: '2020-01-01' });
      const { status, body } = await pollVersion('2020-01-01.1');
      assert.equal(status, 200);
      assert.deepEqual(body.cobertura, expectedCoverage(fewer));
      assert.deepEqual(
        [body.cobertura['noms'], body.cobertura['ieps']],
        [
          { fracciones: 0, de: 7 },
          { fracciones: 1, de: 7 },
        ],
      );
      assert.deepEqual((await server.json<{ cobertura: unknown }>('/api/v1/versiones/1900-01-01.1')).body.cobertura, expectedCoverage(RECORDS));
      assert.deepEqual((await server.json<{ cobertura: unknown }>('/api/v1/versiones/2020-01-01.1')).body.cobertura, body.cobertura);
    });

    test('contribuciones: an origin with an agreement and no preference record for the fraction gets the note', async () => {
      // Computers from the US: the T-MEC grants preferences, the data holds no FTA record of 8471.30.01.
      const usa = await line('USA', '8471.30.01', { nico: '01', certificado_origen: true });
      assert.equal(usa.mejor_opcion, 'general');
      assert.deepEqual(
        usa.ausencias.map((a) => [a.tratamiento, a.conjunto, a.acuerdos]),
        [['tlc', 'tlcs', ['T-MEC']]],
      );
      const note = usa.ausencias[0]!.nota;
      assert.equal(
        note,
        'Los datos cargados no registran preferencia TLC para la fracción 8471.30.01 con origen USA, aunque USA tiene acuerdo con México (T-MEC): que no haya registro no significa que no haya preferencia; consulte el acuerdo antes de tomar el trato general como la mejor opción.',
      );
      assert.ok(usa.notas.includes(note), 'the note is among the line’s notes');
      // Milk from New Zealand (TIPAT) and from Germany (the EU, by its group); from Argentina, ALADI and no FTA.
      assert.deepEqual(
        (await line('NZL', '0402.10.99')).ausencias.map((a) => [a.tratamiento, a.acuerdos]),
        [['tlc', ['TIPAT']]],
      );
      assert.deepEqual(
        (await line('deu', '0402.10.99')).ausencias.map((a) => [a.tratamiento, a.acuerdos]),
        [['tlc', ['TLCUEM']]],
      );
      assert.deepEqual(
        (await line('ARG', '0402.10.99')).ausencias.map((a) => [a.tratamiento, a.acuerdos]),
        [['aladi', ['ALADI']]],
      );
      assert.match(
        (await line('ARG', '0402.10.99')).notas.join(' | '),
        /Los datos cargados no registran preferencia ALADI para la fracción 0402\.10\.99 con origen ARG/,
      );
    });

    test('contribuciones: no note where the data holds a record, where the origin has no agreement, or before the agreement', async () => {
      const horses = await line('USA', '0101.21.01', { certificado_origen: true });
      assert.deepEqual(horses.ausencias, []);
      assert.equal(horses.mejor_opcion, 'tlc');
      // A record the request does not qualify for is a record all the same: its own note, no absence.
      const noCertificate = await line('USA', '0101.21.01');
      assert.deepEqual(noCertificate.ausencias, []);
      assert.ok(noCertificate.notas.includes('Hay tasa TLC para USA: requiere certificado de origen'));
      assert.deepEqual((await line('CHN', '0402.10.99')).ausencias, []);
      // Paraguay: an ALADI record for the horses, none for the milk.
      assert.deepEqual((await line('PRY', '0101.21.01')).ausencias, []);
      assert.deepEqual(
        (await line('PRY', '0402.10.99')).ausencias.map((a) => a.tratamiento),
        ['aladi'],
      );
      // New Zealand before the TIPAT was in force (30 December 2018): no agreement then.
      assert.deepEqual((await line('NZL', '0402.10.99', { fecha: '2018-06-01' })).ausencias, []);
      assert.deepEqual((await line('USA', '8471.30.01', { nico: '01', fecha: '2019-06-03' })).ausencias[0]?.acuerdos, ['TLCAN']);
    });

    test('the ficha names the record sets that hold nothing for the fraction, as absence in the data', async () => {
      const { status, body } = await server.json<Record<string, unknown> & { sin_registros: { conjuntos: string[]; nota: string | null } }>(
        '/api/v1/ficha/8471.30.01',
      );
      assert.equal(status, 200);
      const empty = Object.entries(body)
        .filter(([k, v]) => Array.isArray(v) && v.length === 0 && k !== 'sin_registros')
        .map(([k]) => k);
      assert.ok(empty.includes('tlcs') && empty.includes('noms'));
      const anteriores = body['fracciones-anteriores'] as { reemplaza: unknown[]; reemplazada_por: unknown[] };
      const noReplacements = anteriores.reemplaza.length === 0 && anteriores.reemplazada_por.length === 0;
      assert.deepEqual(new Set(body.sin_registros.conjuntos), new Set([...empty, ...(noReplacements ? ['fracciones-anteriores'] : [])]));
      assert.ok(!body.sin_registros.conjuntos.includes('fracciones'));
      assert.match(
        body.sin_registros.nota ?? '',
        /^Los datos cargados no registran .*tlcs.*noms.* para esta fracción: que no haya registros no significa que no apliquen/,
      );
      const horses = await server.json<{ sin_registros: { conjuntos: string[] } }>('/api/v1/ficha/0101.21.01');
      assert.ok(!horses.body.sin_registros.conjuntos.includes('tlcs'));
      assert.ok(horses.body.sin_registros.conjuntos.includes('ieps'));
    });
  });
}

/** The catalog is read again every few seconds: a version another load added shows within that time. */
async function pollVersion(version: string): Promise<{ status: number; body: { cobertura: Record<string, { fracciones: number; de: number }> } }> {
  let answer: Awaited<ReturnType<typeof pollVersion>> | undefined;
  await waitFor(
    `version ${version} to be listed`,
    async () => {
      answer = await server.json(`/api/v1/versiones/${version}`);
      return answer.status === 200;
    },
    30_000,
  );
  return answer!;
}
