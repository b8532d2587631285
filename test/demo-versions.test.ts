/**
 * The demo's history over real HTTP (../shared/spec/versiones.md, docs/demo-dataset.md): the demo
 * build loads two versions through the usual loads, all or nothing, and `as_of`, `cambios` and the
 * correlation of replaced fractions answer from them what the sources say.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { demoSourcesDir } from '../src/config-values.js';
import type { DemoVersion } from '../src/data/demo/index.js';
import { buildDemoDatabase } from '../src/data/startup.js';
import { recordSets } from '../src/record-sets/index.js';
import { fixtureRecords } from './fixtures.js';
import type { Running } from './servers.js';
import { tempDir } from './lifetime.js';
import { copyOfBuiltDemo } from './databases.js';
import { startServer } from './servers.js';

type Json = Record<string, unknown>;
interface Page {
  items: Json[];
  total: number;
}
interface Cambios {
  desde_version: string;
  hasta_version: string;
  items: {
    conjunto: string;
    id: number;
    cambio: string;
    fraccion: string;
    nico: string | null;
    campos?: { campo: string; antes: unknown; despues: unknown }[];
  }[];
  total: number;
}

const history = parse<Record<string, string>>(readFileSync(join(demoSourcesDir, 'ligie2022-sat/cce_fracciones_arancelarias.csv'), 'utf8'), {
  columns: true,
  bom: true,
});

const aladi2 = recordSets.find((rs) => rs.path === 'aladi2')!;
const OLDER = '2012-07-02.1';
const CURRENT = '2022-12-12.1';

describe('the embedded demo ships history', () => {
  const tmp = tempDir('tariff-demo-versions-');
  const path = join(tmp.dir, 'demo.sqlite');
  let server: Running;

  before(async () => {
    // The demo as the first start builds it (buildDemoDatabase), built once per run (databases.ts).
    await copyOfBuiltDemo(path);
    server = await startServer({ DATABASE_URL: `sqlite:${path}` });
  });
  after(async () => {
    await server?.close();
    tmp.remove();
  });

  const json = async <T>(url: string): Promise<{ status: number; body: T; version: string | null }> => {
    const answer = await server.json<T>(url);
    return { status: answer.status, body: answer.body, version: answer.response.headers.get('x-dataset-version') };
  };

  test('the build put the database and its older version in place', () => {
    assert.ok(existsSync(path));
    const older = join(`${path}.versions`, `${OLDER}.sqlite`);
    assert.equal(readFileSync(older).subarray(0, 15).toString(), 'SQLite format 3');
    assert.ok(statSync(older).size > 1_000_000);
  });

  test('/api/v1/versiones lists both versions, newest first, with their dates and sources', async () => {
    const { status, body } = await json<Json[]>('/api/v1/versiones');
    assert.equal(status, 200);
    assert.deepEqual(
      body.map((v) => [v['version'], v['vigente_desde'], v['actual']]),
      [
        [CURRENT, '2022-12-12', true],
        [OLDER, '2012-07-02', false],
      ],
    );
    assert.match(String(body[0]?.['fuente']), /^LIGIE 2022 \(DOF 2022-06-07\)/);
    assert.match(String(body[1]?.['fuente']), /^TIGIE 2012 \(DOF 2012-06-29\)/);
    const olderCount = (await json<Page>('/api/v1/fracciones/?as_of=2015-01-01&limit=1')).body.total;
    assert.equal((body[1]?.['conteos'] as Json)['fracciones'], olderCount);
    assert.notEqual(olderCount, (await json<Page>('/api/v1/fracciones/?limit=1')).body.total);
  });

  test('as_of before 2022-12-12 answers from the 8-digit version, which had no NICO', async () => {
    for (const date of ['2012-07-02', '2015-01-01', '2022-12-11']) {
      const answer = await json<Page>(`/api/v1/fracciones/?fraccion=01012101&as_of=${date}`);
      assert.equal(answer.status, 200);
      assert.equal(answer.version, OLDER, date);
      assert.deepEqual(
        answer.body.items.map((r) => [r['FRACCION'], r['NICO']]),
        [['01012101', null]],
      );
    }
    // The 10-digit code did not exist then.
    assert.equal((await json<Page>('/api/v1/fracciones/?fraccion=0101210100&as_of=2015-01-01')).body.total, 0);
    for (const date of ['2022-12-12', undefined]) {
      const answer = await json<Page>(`/api/v1/fracciones/?fraccion=0101210100${date ? `&as_of=${date}` : ''}`);
      assert.equal(answer.version, CURRENT);
      assert.deepEqual(
        answer.body.items.map((r) => [r['FRACCION'], r['NICO']]),
        [['01012101', '00']],
      );
    }
  });

  test('ficha and buscar answer as of a date from the older version: a fraction gone in 2022 is found before', async () => {
    const before = await json<Json>('/api/v1/ficha/01012901?as_of=2015-01-01');
    assert.equal(before.status, 200);
    assert.equal(before.version, OLDER);
    assert.equal((await json<Json>('/api/v1/ficha/01012901')).status, 404);
    const found = async (date: string | null): Promise<Json[]> => {
      const answer = await json<Page>(`/api/v1/buscar?q=caballos%20de%20carreras${date ? `&as_of=${date}` : ''}`);
      assert.equal(answer.status, 200);
      assert.equal(answer.version, date ? OLDER : CURRENT);
      return answer.body.items;
    };
    const then = await found('2015-01-01');
    assert.ok(then.some((i) => i['FRACCION'] === '01012901'));
    assert.ok(then.every((i) => i['NICO'] === null));
    const now = await found(null);
    assert.ok(now.length > 0 && !now.some((i) => i['FRACCION'] === '01012901'));
    assert.ok(now.every((i) => typeof i['NICO'] === 'string'));
  });

  test('a date before the earliest version is a 404, as the contract says', async () => {
    for (const url of ['/api/v1/fracciones/?as_of=2001-01-01', '/api/v1/cambios?desde=2001-01-01']) {
      const answer = await json<Json>(url);
      assert.equal(answer.status, 404, url);
      assert.deepEqual(answer.body, { detail: 'No dataset in force on 2001-01-01' });
    }
  });

  /** The record `id` of `set` in the version in force on `date` (today's when null), or null when it has none. */
  const record = async (set: string, id: number, date: string | null): Promise<Json | null> => {
    const answer = await json<Json>(`/api/v1/${set}/${id}${date ? `?as_of=${date}` : ''}`);
    assert.ok(answer.status === 200 || answer.status === 404, `${set}/${id}: ${answer.status}`);
    return answer.status === 200 ? answer.body : null;
  };

  /** Every change listed is what the two versions hold: a baja only before, an alta only after, a modificacion with the values of each side. */
  async function checkAgainstVersions(cambios: Cambios, sets: readonly string[]): Promise<void> {
    for (const item of cambios.items.filter((i) => sets.includes(i.conjunto))) {
      const [before, after] = [await record(item.conjunto, item.id, '2015-01-01'), await record(item.conjunto, item.id, null)];
      const what = `${item.conjunto} ${item.id} ${item.cambio}`;
      if (item.cambio === 'baja') {
        assert.ok(before && !after, what);
        assert.equal(before['FRACCION'], item.fraccion, what);
      } else if (item.cambio === 'alta') {
        assert.ok(after && !before, what);
        assert.deepEqual([after['FRACCION'], after['NICO']], [item.fraccion, item.nico], what);
      } else {
        assert.ok(before && after, what);
        assert.ok((item.campos ?? []).length > 0, what);
        for (const { campo, antes, despues } of item.campos ?? []) {
          assert.deepEqual([antes, despues], [before[campo], after[campo]], `${what} ${campo}`);
        }
      }
    }
  }

  test('cambios of heading 0101 from 2015 to 2024: fractions the 2022 reform removed, created and changed', async () => {
    const { status, body } = await json<Cambios>('/api/v1/cambios?desde=2015-01-01&hasta=2024-01-01&fraccion=0101&limit=1000');
    assert.equal(status, 200);
    assert.deepEqual([body.desde_version, body.hasta_version], [OLDER, CURRENT]);
    const fracciones = body.items.filter((i) => i.conjunto === 'fracciones');
    // 0101.29.01 (horses for jumping or racing) ended with the 8-digit tariff; the SAT history has no 2022 code of that number.
    assert.ok(history.some((r) => r['fraccion'] === '01012901' && r['vigencia_hasta'] === '2020-12-28'));
    assert.ok(!history.some((r) => r['fraccion']!.startsWith('01012901') && r['vigencia_hasta'] === ''));
    assert.ok(fracciones.some((i) => i.cambio === 'baja' && i.fraccion === '01012901'));
    assert.ok(fracciones.some((i) => i.cambio === 'alta'));
    // A fraction that kept its number gained its NICO.
    const horses = fracciones.find((i) => i.cambio === 'modificacion' && i.fraccion === '01012101');
    assert.deepEqual(
      horses?.campos?.find((c) => c.campo === 'NICO'),
      { campo: 'NICO', antes: null, despues: '00' },
    );
    await checkAgainstVersions(body, ['fracciones', 'informacion-general']);
    // Historic preferences of a fraction that no longer exists went with it.
    assert.ok(body.items.some((i) => i.conjunto === 'tlcs' && i.cambio === 'baja' && i.fraccion === '01012901'));
  });

  test('a duty that changed shows as a modificacion with its value before and after', async () => {
    const { body } = await json<Cambios>('/api/v1/cambios?desde=2015-01-01&conjunto=fracciones&fraccion=04&limit=1000');
    const changedDuty = body.items.filter((i) => i.campos?.some((c) => c.campo === 'ADVIMPONUM'));
    assert.ok(changedDuty.length > 0, 'some duty of chapter 04 changed');
    await checkAgainstVersions({ ...body, items: changedDuty }, ['fracciones']);
  });

  test('replaced fractions in the current version correlate to codes the older version holds', async () => {
    const { body } = await json<Json[]>('/api/v1/fracciones-anteriores/?fraccion_actual=0');
    const olds = [...new Set(body.map((r) => String(r['FRACCIONANTERIOR'])))];
    assert.ok(olds.length > 10);
    let found = 0;
    for (const old of olds) {
      const rows = history.filter((r) => r['fraccion'] === old);
      // Every correlated code ended with the 8-digit tariff, as the SAT history says.
      assert.ok(
        rows.some((r) => r['vigencia_hasta'] === '2020-12-28'),
        old,
      );
      const total = (await json<Page>(`/api/v1/fracciones/?fraccion=${old}&as_of=2015-01-01`)).body.total;
      // The older version is the tariff of 2012-07-02: a code created later is not in it.
      const existed = rows.some((r) => r['vigencia_desde']! <= '2012-07-02');
      assert.equal(total, existed ? 1 : 0, old);
      if (existed) found++;
    }
    assert.ok(found > 0);
  });
});

describe('the demo build is all or nothing', () => {
  const tmp = tempDir('tariff-demo-build-');
  after(() => tmp.remove());

  const small = (fail: boolean): DemoVersion[] => {
    const records = function* (): Generator<{ recordSet: string; record: Json }> {
      for (const record of fixtureRecords(aladi2)) yield { recordSet: 'aladi2', record };
    };
    return [
      { vigenteDesde: '2012-07-02', fuente: 'older', keep: [], records },
      {
        vigenteDesde: '2022-12-12',
        fuente: 'newer',
        keep: [],
        records: function* () {
          yield* records();
          if (fail) throw new Error('the newer version failed');
        },
      },
    ];
  };

  test('a failure in the second version leaves nothing at the path, nor beside it', async () => {
    const path = join(tmp.dir, 'failed.sqlite');
    await assert.rejects(buildDemoDatabase(path, small(true)), /the newer version failed/);
    assert.deepEqual(
      readdirSync(tmp.dir).filter((name) => name.startsWith('failed.sqlite')),
      [],
    );
  });

  test('an existing database, or a versions folder holding something else, is never replaced', async () => {
    const existing = join(tmp.dir, 'existing.sqlite');
    writeFileSync(existing, 'an operator database');
    await assert.rejects(buildDemoDatabase(existing, small(false)), /exists/);
    assert.equal(readFileSync(existing, 'utf8'), 'an operator database');

    const path = join(tmp.dir, 'strangers.sqlite');
    mkdirSync(`${path}.versions`);
    writeFileSync(join(`${path}.versions`, 'notes.txt'), 'mine');
    await assert.rejects(buildDemoDatabase(path, small(false)), /notes\.txt/);
    assert.ok(!existsSync(path));
    assert.equal(readFileSync(join(`${path}.versions`, 'notes.txt'), 'utf8'), 'mine');
  });

  test('a build removes what a killed build had left beside the path, and replaces the older version it had moved there', async () => {
    const path = join(tmp.dir, 'restarted.sqlite');
    // What a first start killed after moving the older version's file, before the rename of the database, leaves.
    const deadBuild = `${path}.demo-2147483646`; // no process has this id
    mkdirSync(deadBuild);
    writeFileSync(join(deadBuild, 'demo.sqlite'), 'half built');
    mkdirSync(`${path}.versions`);
    writeFileSync(join(`${path}.versions`, `${OLDER}.sqlite`), 'from a build that died');
    await buildDemoDatabase(path, small(false));
    assert.ok(!existsSync(deadBuild));
    assert.deepEqual(
      readdirSync(tmp.dir)
        .filter((name) => name.startsWith('restarted.sqlite'))
        .sort(),
      ['restarted.sqlite', 'restarted.sqlite.versions'],
    );
    assert.equal(
      readFileSync(join(`${path}.versions`, `${OLDER}.sqlite`))
        .subarray(0, 15)
        .toString(),
      'SQLite format 3',
    );
  });

  test('a build that succeeds leaves the database and the older version, and nothing else', async () => {
    const path = join(tmp.dir, 'built.sqlite');
    const info = await buildDemoDatabase(path, small(false));
    assert.equal(info.source, 'newer');
    assert.deepEqual(
      readdirSync(tmp.dir)
        .filter((name) => name.startsWith('built.sqlite'))
        .sort(),
      ['built.sqlite', 'built.sqlite.versions'],
    );
    assert.deepEqual(readdirSync(`${path}.versions`), [`${OLDER}.sqlite`]);
  });
});
