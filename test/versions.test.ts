/**
 * Dataset versions (../shared/spec/versiones.md) on both stores: every load adds a version, kept until
 * removed; the current one is the one in force today in Mexico City, and a version loaded ahead takes
 * over by itself on its day (a clock the test moves); `as_of`, `X-Dataset-Version`, ETags per version,
 * `/api/v1/versiones`, `/health`, removal seen by a running service.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { loadConfig } from '../src/config.js';
import { recordToRow } from '../src/data/record-row.js';
import { recordSets } from '../src/record-sets/index.js';
import { driverFor } from '../src/store/drivers.js';
import { writeDatabase } from '../src/data/write.js';
import { inForce, mexicoCityDate, nextVersionId } from '../src/store/versions.js';
import type { VersionInfo } from '../src/store/versions.js';
import { fixtureRecords, withAladi2 } from './fixtures.js';
import { defer, waitFor } from './lifetime.js';
import { storeKinds } from './stores.js';
import { createTestDatabase } from './databases.js';
import { startServer } from './servers.js';

const aladi2 = recordSets.find((rs) => rs.path === 'aladi2')!;

const version = (v: string, vigenteDesde: string, seq: number): VersionInfo => ({
  version: v,
  vigenteDesde,
  fuente: '',
  importado: '',
  hash: '',
  conteos: {},
  seq,
});

describe('version rules', () => {
  test('the version in force on a date: the latest vigente_desde not after it, the latest import among equals', () => {
    const catalog = [version('2012-01-01.1', '2012-01-01', 1), version('2022-12-12.1', '2022-12-12', 2), version('2022-12-12.2', '2022-12-12', 3)];
    assert.equal(inForce(catalog, '2011-12-31'), undefined);
    assert.equal(inForce(catalog, '2012-01-01')?.version, '2012-01-01.1');
    assert.equal(inForce(catalog, '2022-12-11')?.version, '2012-01-01.1');
    assert.equal(inForce(catalog, '2023-06-01')?.version, '2022-12-12.2');
    assert.equal(nextVersionId(catalog, '2022-12-12'), '2022-12-12.3');
    assert.equal(nextVersionId(catalog, '2024-01-01'), '2024-01-01.1');
  });

  test('today is the calendar date in Mexico City', () => {
    assert.equal(mexicoCityDate(new Date('2030-01-01T05:59:59Z')), '2029-12-31');
    assert.equal(mexicoCityDate(new Date('2030-01-01T06:00:00Z')), '2030-01-01');
  });
});

interface Served {
  readonly base: string;
  readonly token: string;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
}

/** A server over `url` whose clock the test sets; closed after the test. */
async function serve(t: TestContext, url: string, clock: { now: Date }): Promise<Served> {
  const server = await startServer({ DATABASE_URL: url }, { app: { now: () => clock.now } });
  defer(t, () => server.close());
  const { base, token } = server;
  return { base, token, get: (path, headers = {}) => fetch(base + path, { headers: { authorization: `Bearer ${token}`, ...headers } }) };
}

const count = async (s: Served, path: string): Promise<{ n: number; version: string | null }> => {
  const response = await s.get(path);
  assert.equal(response.status, 200, path);
  return { n: ((await response.json()) as unknown[]).length, version: response.headers.get('x-dataset-version') };
};

for (const kind of await storeKinds()) {
  describe(`dataset versions (${kind})`, () => {
    test('versions by date, as_of, X-Dataset-Version, a version loaded ahead taking over at midnight in Mexico City, ETags per version', async (t) => {
      // The fixture, with its eight aladi2 records (a copy of the original, not a build of the same).
      const db = await createTestDatabase(kind);
      defer(t, () => db.drop());
      const v2020 = await writeDatabase(db.url, 'DOF 2019-12-20', withAladi2(3), { vigenteDesde: '2020-01-01' });
      const v2030 = await writeDatabase(db.url, 'DOF 2029-12-01', withAladi2(1), { vigenteDesde: '2030-01-01' });
      assert.equal((v2020 as { version?: VersionInfo }).version?.version, '2020-01-01.1');
      assert.equal((v2030 as { version?: VersionInfo }).version?.version, '2030-01-01.1');

      const clock = { now: new Date('2030-01-01T05:59:00Z') };
      const s = await serve(t, db.url, clock);
      assert.deepEqual(await count(s, '/api/v1/aladi2/'), { n: 3, version: '2020-01-01.1' }, 'no as_of: the version in force today');
      // A contributions request that names no fecha is answered for today by the same clock.
      const contribuciones = async (): Promise<string> => {
        const response = await fetch(`${s.base}/api/v1/contribuciones`, {
          method: 'POST',
          headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ pais_origen: 'USA', partidas: [{ fraccion: '02011001', valor_aduana: '1000' }] }),
        });
        assert.equal(response.status, 200);
        return ((await response.json()) as { fecha: string }).fecha;
      };
      assert.equal(await contribuciones(), '2029-12-31');
      assert.deepEqual(await count(s, '/api/v1/aladi2/?as_of=2019-12-31'), { n: 8, version: '1900-01-01.1' });
      assert.deepEqual(await count(s, '/api/v1/aladi2/?as_of=2030-01-01'), { n: 1, version: '2030-01-01.1' });
      // A search as of a date answers from that version's own index (on PostgreSQL, the older version's schema).
      for (const [date, version] of [
        ['2019-12-31', '1900-01-01.1'],
        ['2020-06-01', '2020-01-01.1'],
      ] as const) {
        const buscar = await s.get(`/api/v1/buscar?q=caballos&as_of=${date}`);
        assert.equal(buscar.status, 200, await buscar.clone().text());
        assert.equal(buscar.headers.get('x-dataset-version'), version);
        assert.ok(Array.isArray(((await buscar.json()) as { items: unknown[] }).items));
      }
      const health = (await (await s.get('/health')).json()) as { dataset: { version: string; source: string; counts: Record<string, number> } };
      assert.equal(health.dataset.version, '2020-01-01.1');
      assert.equal(health.dataset.source, 'DOF 2019-12-20');
      assert.equal(health.dataset.counts['aladi2'], 3);

      // cupos is the same in every version: the same body, another ETag, so a revalidation across versions is a 200.
      const before = await s.get('/api/v1/cupos/');
      const etag = before.headers.get('etag')!;
      const body = await before.text();
      assert.equal((await s.get('/api/v1/cupos/', { 'if-none-match': etag })).status, 304);
      clock.now = new Date('2030-01-01T06:00:01Z');
      assert.deepEqual(await count(s, '/api/v1/aladi2/'), { n: 1, version: '2030-01-01.1' }, 'the new day: the version loaded ahead answers');
      assert.equal(await contribuciones(), '2030-01-01');
      const after = await s.get('/api/v1/cupos/', { 'if-none-match': etag });
      assert.equal(after.status, 200);
      assert.equal(await after.text(), body);
      assert.notEqual(after.headers.get('etag'), etag);
      const tlcs = await s.get('/api/v1/tlcs/?fraccion=0101&as_of=2020-06-01');
      assert.equal(tlcs.headers.get('x-dataset-version'), '2020-01-01.1');
      await tlcs.arrayBuffer();
    });

    test('as_of: 422 when malformed, 404 before the earliest version, on searches, lookups, ficha and buscar', async (t) => {
      const db = await createTestDatabase(kind);
      defer(t, () => db.drop());
      await writeDatabase(db.url, 'DOF', withAladi2(2), { vigenteDesde: '2012-07-01' });
      const s = await serve(t, db.url, { now: new Date() });
      // The fixture's own dataset is in force since always: a version for every date; this one has none before it.
      await driverFor(loadConfig({ DATABASE_URL: db.url }))
        .removeVersion(loadConfig({ DATABASE_URL: db.url }), '1900-01-01.1', mexicoCityDate(new Date()))
        .catch(() => undefined);
      for (const path of ['/api/v1/aladi2/', '/api/v1/aladi2/5', '/api/v1/ficha/01012101', '/api/v1/buscar?q=caballos']) {
        const sep = path.includes('?') ? '&' : '?';
        const bad = await s.get(`${path}${sep}as_of=2020-02-30`);
        assert.equal(bad.status, 422, path);
        const detail = ((await bad.json()) as { detail: { loc: string[] }[] }).detail;
        assert.deepEqual(detail.at(-1)?.loc, ['query', 'as_of'], path);
        const ok = await s.get(`${path}${sep}as_of=2020-02-29`);
        assert.notEqual(ok.status, 422, path);
        await ok.arrayBuffer();
      }
      await waitFor('the removal to be seen', async () => (await s.get('/api/v1/aladi2/?as_of=2001-01-01')).status === 404);
      const early = await s.get('/api/v1/aladi2/?as_of=2001-01-01');
      assert.deepEqual(await early.json(), { detail: 'No dataset in force on 2001-01-01' });
    });

    test('/api/v1/versiones lists every version newest first, marks the current one; removal is refused for the current and the newest, and seen by a running service', async (t) => {
      const db = await createTestDatabase(kind);
      defer(t, () => db.drop());
      const config = loadConfig({ DATABASE_URL: db.url });
      await writeDatabase(db.url, 'primera', withAladi2(4), { vigenteDesde: '2015-01-01' });
      await writeDatabase(db.url, 'segunda', withAladi2(2), { vigenteDesde: '2020-01-01' });
      await writeDatabase(db.url, 'adelantada', withAladi2(1), { vigenteDesde: '2099-01-01' });
      const s = await serve(t, db.url, { now: new Date('2024-05-05T12:00:00Z') });
      assert.equal((await fetch(`${s.base}/api/v1/versiones`)).status, 401);
      const list = (await (await s.get('/api/v1/versiones')).json()) as { version: string; actual: boolean; fuente: string; conteos: Record<string, number> }[];
      assert.deepEqual(
        list.map((v) => [v.version, v.actual, v.fuente]),
        [
          ['2099-01-01.1', false, 'adelantada'],
          ['2020-01-01.1', true, 'segunda'],
          ['2015-01-01.1', false, 'primera'],
          ['1900-01-01.1', false, 'test fixture'],
        ],
      );
      assert.equal(list[1]?.conteos['aladi2'], 2);
      assert.equal((await s.get('/api/v1/versiones/2015-01-01.1')).status, 200);
      assert.equal((await s.get('/api/v1/versiones/2015-01-01.9')).status, 404);

      const driver = driverFor(config);
      const today = '2024-05-05';
      await assert.rejects(driver.removeVersion(config, '2020-01-01.1', today), /in force today/);
      await assert.rejects(driver.removeVersion(config, '2099-01-01.1', today), /newest import/);
      await driver.removeVersion(config, '2015-01-01.1', today);
      await waitFor('the removed version to go', async () => {
        const answer = await s.get('/api/v1/aladi2/?as_of=2016-01-01');
        return answer.headers.get('x-dataset-version') === '1900-01-01.1' && (await answer.arrayBuffer()) !== null;
      });
      assert.equal((await s.get('/api/v1/versiones/2015-01-01.1')).status, 404);
      assert.deepEqual(await count(s, '/api/v1/aladi2/'), { n: 2, version: '2020-01-01.1' }, 'the current version is untouched');
    });

    test('downloads: every record set of a version as CSV, a manifest and SHA256SUMS that verify it; current as an alias; 404 and 401', async (t) => {
      const db = await createTestDatabase(kind);
      defer(t, () => db.drop());
      await writeDatabase(db.url, 'DOF 2020', withAladi2(3), { vigenteDesde: '2020-01-01' });
      const s = await serve(t, db.url, { now: new Date('2024-01-01T12:00:00Z') });
      assert.equal((await fetch(`${s.base}/api/v1/descargas/current/manifest.json`)).status, 401);
      /** Each file's SHA-256 as its version's manifest gives it, by version and file. */
      const sha256 = new Map<string, string>();
      for (const version of ['2020-01-01.1', '1900-01-01.1']) {
        const manifest = (await (await s.get(`/api/v1/descargas/${version}/manifest.json`)).json()) as {
          version: string;
          archivos: { conjunto: string; archivo: string; filas: number; bytes: number; sha256: string }[];
        };
        assert.equal(manifest.version, version);
        assert.deepEqual(
          manifest.archivos.map((f) => f.conjunto),
          recordSets.map((rs) => rs.path),
        );
        const listed = (await (await s.get(`/api/v1/descargas/${version}/SHA256SUMS`)).text()).trim().split('\n');
        assert.equal(listed.length, recordSets.length);
        for (const file of manifest.archivos) {
          const response = await s.get(`/api/v1/descargas/${version}/${file.archivo}`);
          assert.equal(response.status, 200);
          assert.match(response.headers.get('content-disposition') ?? '', /^attachment; filename="[a-z0-9-]+\.csv"$/);
          const bytes = Buffer.from(await response.arrayBuffer());
          assert.equal(bytes.length, file.bytes, file.archivo);
          assert.equal(createHash('sha256').update(bytes).digest('hex'), file.sha256, file.archivo);
          assert.equal(
            bytes
              .toString('utf8')
              .split('\r\n')
              .filter((l) => l !== '').length - 1,
            file.filas,
            file.archivo,
          );
          assert.ok(listed.includes(`${file.sha256}  ${file.archivo}`), file.archivo);
          sha256.set(`${version}/${file.archivo}`, file.sha256);
        }
        assert.equal(manifest.archivos.find((f) => f.conjunto === 'aladi2')?.filas, version === '2020-01-01.1' ? 3 : 8);
      }
      const current = await s.get('/api/v1/descargas/current/aladi2.csv');
      assert.equal(current.headers.get('x-dataset-version'), '2020-01-01.1');
      await current.arrayBuffer();
      assert.equal((await s.get('/api/v1/descargas/2020-01-01.7/aladi2.csv')).status, 404);
      assert.equal((await s.get('/api/v1/descargas/current/nada.csv')).status, 404);
      // A download stopped by the client harms nothing: the next one is whole.
      const stopped = new AbortController();
      const partial = await fetch(`${s.base}/api/v1/descargas/current/cupos.csv`, { signal: stopped.signal, headers: { authorization: `Bearer ${s.token}` } });
      stopped.abort();
      await partial.arrayBuffer().catch(() => undefined);
      const whole = await s.get('/api/v1/descargas/current/cupos.csv');
      assert.equal(whole.status, 200);
      const bytes = Buffer.from(await whole.arrayBuffer());
      assert.equal(createHash('sha256').update(bytes).digest('hex'), sha256.get('2020-01-01.1/cupos.csv'), 'current is 2020-01-01.1');
    });

    test('cambios: altas, bajas and modificaciones between the versions in force on two dates, by record set and identifier; one fraction; 422 and 404', async (t) => {
      const db = await createTestDatabase(kind);
      defer(t, () => db.drop());
      await writeDatabase(
        db.url,
        'DOF 2020',
        (writer) => {
          for (const rs of recordSets) {
            const records =
              rs === aladi2
                ? fixtureRecords(rs)
                    .slice(0, 3)
                    .map((r, i) => (i === 0 ? { ...r, NOTAS: 'cambiada' } : r))
                : fixtureRecords(rs);
            for (const record of records) writer.insert(rs, recordToRow(rs, record));
          }
        },
        { vigenteDesde: '2020-01-01' },
      );
      const s = await serve(t, db.url, { now: new Date('2024-01-01T12:00:00Z') });
      const cambios = async (query: string) => {
        const response = await s.get(`/api/v1/cambios?${query}`);
        return {
          status: response.status,
          body: (await response.json()) as Record<string, unknown> & {
            items: { conjunto: string; id: unknown; cambio: string; fraccion: string | null; campos?: { campo: string; antes: unknown; despues: unknown }[] }[];
            total: number;
          },
        };
      };
      const all = await cambios('desde=2019-01-01&hasta=2021-01-01');
      assert.equal(all.status, 200);
      assert.equal(all.body['desde_version'], '1900-01-01.1');
      assert.equal(all.body['hasta_version'], '2020-01-01.1');
      const before = fixtureRecords(aladi2);
      const changedId = before[0]!['SYSID'];
      assert.equal(all.body.total, 6, JSON.stringify(all.body.items));
      assert.ok(all.body.items.every((i) => i.conjunto === 'aladi2'));
      assert.deepEqual(all.body.items.filter((i) => i.cambio === 'baja').length, 5);
      const modified = all.body.items.find((i) => i.cambio === 'modificacion');
      assert.deepEqual(
        modified?.campos?.map((c) => [c.campo, c.despues]),
        [['NOTAS', 'cambiada']],
      );
      const ids = all.body.items.map((i) => Number(i.id));
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
        'ordered by identifier',
      );
      assert.equal(Number(modified?.id), Number(changedId), 'the record changed in the newer version is the one reported as modified');

      const one = await cambios('desde=2019-01-01&hasta=2021-01-01&fraccion=0101.21.01');
      assert.equal(one.status, 200);
      assert.deepEqual(
        one.body.items,
        all.body.items.filter((i) => i.fraccion === '01012101'),
      );
      const paged = await cambios('desde=2019-01-01&hasta=2021-01-01&skip=2&limit=2');
      assert.deepEqual(paged.body.items, all.body.items.slice(2, 4));
      assert.equal(paged.body.total, 6);
      assert.equal((await cambios('desde=2019-01-01&hasta=2021-01-01&conjunto=tlcs')).body.total, 0);
      assert.equal((await cambios('desde=2020-02-01&hasta=2021-01-01')).body.total, 0, 'one version on both dates');
      const unknown = await cambios('desde=2019-01-01&conjunto=nada');
      assert.equal(unknown.status, 422);
      assert.deepEqual((unknown.body['detail'] as { loc: string[] }[])[0]?.loc, ['query', 'conjunto']);
      assert.equal((await cambios('desde=2021-01-01&hasta=2019-01-01')).status, 422);
      assert.equal((await cambios('hasta=2019-01-01')).status, 422);
      const early = await cambios('desde=1800-01-01');
      assert.equal(early.status, 404);
      assert.deepEqual(early.body, { detail: 'No dataset in force on 1800-01-01' });
    });

    test('a load that fails adds no version and leaves every version as it was', async (t) => {
      const db = await createTestDatabase(kind);
      defer(t, () => db.drop());
      await writeDatabase(db.url, 'buena', withAladi2(2), { vigenteDesde: '2020-01-01' });
      await assert.rejects(
        writeDatabase(
          db.url,
          'rota',
          (writer) => {
            withAladi2(1)(writer);
            throw new Error('the source broke off');
          },
          { vigenteDesde: '2021-01-01' },
        ),
        /the source broke off/,
      );
      const store = driverFor(loadConfig({ DATABASE_URL: db.url })).open(loadConfig({ DATABASE_URL: db.url }));
      defer(t, () => store.close());
      assert.deepEqual(
        (await store.versions()).map((v) => v.version),
        ['2020-01-01.1', '1900-01-01.1'],
      );
      const s = await serve(t, db.url, { now: new Date('2022-01-01T12:00:00Z') });
      assert.deepEqual(await count(s, '/api/v1/aladi2/?as_of=2019-01-01'), { n: 8, version: '1900-01-01.1' });
      assert.deepEqual(await count(s, '/api/v1/aladi2/'), { n: 2, version: '2020-01-01.1' });
    });
  });
}
