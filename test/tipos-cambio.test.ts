/**
 * The exchange rate the law fixes for a date (../shared/spec/tipos-cambio.md), over real HTTP on both
 * stores with the series shipped in data/tipos-cambio.csv: weekends, bank holidays, the first and last
 * days held, the dates the data cannot settle, malformed dates; every date of two holiday seasons
 * against the rule worked out here from the file itself; the series a version holds (an import
 * folder's own file, versions with series of their own); and contributions converting dollars with
 * the rate of their `fecha`.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { Decimal } from 'decimal.js';
import { loadConfig } from '../src/config.js';
import { projectRoot } from '../src/config-values.js';
import { runImport } from '../src/data/import.js';
import { writeDatabase } from '../src/data/write.js';
import { recordSets } from '../src/record-sets/index.js';
import { parseTiposCambio } from '../src/tipos-cambio/series.js';
import { addDays, tipoCambioAplicable } from '../src/tipos-cambio/rule.js';
import { fillContribuciones } from './contribuciones-fixture.js';
import { withAladi2 } from './fixtures.js';
import type { Running } from './servers.js';
import { defer, temporary } from './lifetime.js';
import { storeKinds } from './stores.js';
import { createTestDatabase } from './databases.js';
import { serveFixture, startServer } from './servers.js';

interface Rate {
  fecha: string;
  tipo_cambio: string;
  determinado: string;
  publicado_dof: string;
  fuente: string;
  fundamento: string;
}

const shipped = parseTiposCambio(readFileSync(join(projectRoot, 'data', 'tipos-cambio.csv'), 'utf8'));
const rateOf = new Map(shipped.map((f) => [f.fecha, f.tipo_cambio]));

/**
 * The rule worked out from the file the plain way, day by day: the publication day is the last banking
 * day (a date of the file) before D, and the FIX is the one of the banking day before that.
 */
function expected(fecha: string): { determinado: string; publicado_dof: string; tipo_cambio: string } | null {
  const dates = shipped.map((f) => f.fecha);
  if (fecha > addDays(dates.at(-1)!, 1)) return null;
  const publicado = dates.filter((d) => d < fecha).at(-1);
  const determinado = publicado === undefined ? undefined : dates.filter((d) => d < publicado).at(-1);
  if (publicado === undefined || determinado === undefined) return null;
  return { determinado, publicado_dof: publicado, tipo_cambio: rateOf.get(determinado)! };
}

let server: Running;
const rate = (query: string) => server.json<Rate & { detail: unknown }>(`/api/v1/tipos-cambio${query}`);

describe('the rule, on a window of rows', () => {
  test('the series of the file is in date order, banking days only, four decimals', () => {
    assert.equal(shipped[0]?.fecha, '1991-11-12');
    assert.equal(shipped.at(-1)?.fecha, '2025-11-25');
    assert.ok(shipped.every((f) => /^\d+\.\d{4}$/.test(f.tipo_cambio)));
    assert.ok(
      shipped.every((f) => ![0, 6].includes(new Date(`${f.fecha}T00:00:00Z`).getUTCDay())),
      'no Saturday or Sunday',
    );
  });

  test('an empty or one-day series settles nothing and says what it holds', () => {
    assert.match(JSON.stringify(tipoCambioAplicable('2025-01-02', { first: [], last: null, before: [] })), /holds no exchange rates/);
    const one = { fecha: '2025-01-02', tipo_cambio: '20.0000' };
    assert.match(JSON.stringify(tipoCambioAplicable('2025-01-03', { first: [one], last: one, before: [one] })), /too few to settle any date/);
  });

  test('a malformed series file is refused with its line', () => {
    assert.throws(() => parseTiposCambio('fecha,tipo_cambio\n2025-01-02,20.1\n2025-02-30,20.2\n'), /line 3: fecha "2025-02-30"/);
    assert.throws(() => parseTiposCambio('fecha,tipo_cambio\n2025-01-02,20.12345\n'), /line 2: tipo_cambio/);
    assert.throws(() => parseTiposCambio('fecha,tipo_cambio\n2025-01-02,0\n'), /line 2: tipo_cambio/);
    assert.throws(() => parseTiposCambio('fecha,tipo_cambio\n2025-01-02,1\n2025-01-02,2\n'), /line 3: fecha 2025-01-02 is on line 2 too/);
    assert.throws(() => parseTiposCambio('dia,tipo\n2025-01-02,1\n'), /no column fecha/);
  });
});

for (const kind of await storeKinds()) {
  describe(`tipos-cambio (${kind})`, () => {
    serveFixture(kind, {}, (running) => (server = running));

    test('a Monday, a Saturday and a Sunday take the FIX of the Thursday before, published on the Friday', async () => {
      for (const fecha of ['2025-11-22', '2025-11-23', '2025-11-24']) {
        const { status, body } = await rate(`?fecha=${fecha}`);
        assert.equal(status, 200, fecha);
        assert.deepEqual(
          { fecha: body.fecha, tipo_cambio: body.tipo_cambio, determinado: body.determinado, publicado_dof: body.publicado_dof },
          { fecha, tipo_cambio: '18.3550', determinado: '2025-11-20', publicado_dof: '2025-11-21' },
        );
      }
      const { body } = await rate('?fecha=2025-11-24');
      assert.deepEqual(Object.keys(body), ['fecha', 'tipo_cambio', 'determinado', 'publicado_dof', 'fuente', 'fundamento']);
      assert.match(body.fuente, /Banco de México.*FIX.*SF43718/);
      assert.match(body.fundamento, /Código Fiscal de la Federación art\. 20.*Ley Aduanera art\. 56/);
    });

    test('a bank holiday (Monday 17 November 2025, Revolution Day) is neither a publication day nor a FIX day', async () => {
      // The 18th: the last publication before it was Friday the 14th, of the FIX of the 13th.
      assert.deepEqual([(await rate('?fecha=2025-11-17')).body.determinado, (await rate('?fecha=2025-11-18')).body.determinado], ['2025-11-13', '2025-11-13']);
      // The 19th: published on the 18th, the first banking day after the holiday, the FIX of Friday the 14th.
      const { body } = await rate('?fecha=2025-11-19');
      assert.deepEqual([body.tipo_cambio, body.determinado, body.publicado_dof], ['18.3262', '2025-11-14', '2025-11-18']);
    });

    test('the first and last days held: the first date settled is the day after the second FIX, the last the day after the last FIX', async () => {
      const first = await rate('?fecha=1991-11-14');
      assert.equal(first.status, 200);
      assert.deepEqual([first.body.tipo_cambio, first.body.determinado, first.body.publicado_dof], ['3.0735', '1991-11-12', '1991-11-13']);
      const last = await rate('?fecha=2025-11-26');
      assert.equal(last.status, 200);
      assert.deepEqual([last.body.tipo_cambio, last.body.determinado, last.body.publicado_dof], ['18.4997', '2025-11-24', '2025-11-25']);
      const lastHeld = await rate('?fecha=2025-11-25');
      assert.deepEqual([lastHeld.body.determinado, lastHeld.body.publicado_dof], ['2025-11-21', '2025-11-24']);
      for (const fecha of ['1991-11-13', '1991-11-12', '1990-01-01', '2025-11-27', '2026-01-05']) {
        const { status, body } = await rate(`?fecha=${fecha}`);
        assert.equal(status, 404, fecha);
        assert.equal(
          body.detail,
          `No exchange rate for ${fecha}: the data holds the FIX determined from 1991-11-12 to 2025-11-25, which settle the dates from 1991-11-14 to 2025-11-26`,
        );
      }
    });

    test('every day of two holiday seasons (Christmas and New Year, Holy Week) as the file itself gives it', async () => {
      const days: string[] = [];
      for (let d = '2024-12-14'; d <= '2025-01-08'; d = addDays(d, 1)) days.push(d);
      for (let d = '2025-04-10'; d <= '2025-04-23'; d = addDays(d, 1)) days.push(d);
      for (const fecha of days) {
        const { status, body } = await rate(`?fecha=${fecha}`);
        assert.equal(status, 200, fecha);
        assert.deepEqual({ determinado: body.determinado, publicado_dof: body.publicado_dof, tipo_cambio: body.tipo_cambio }, expected(fecha), fecha);
      }
      // The holidays themselves are not in the file, so Holy Thursday and Friday published nothing.
      assert.deepEqual([rateOf.has('2025-04-17'), rateOf.has('2025-04-18'), rateOf.has('2024-12-25'), rateOf.has('2025-01-01')], [false, false, false, false]);
      assert.equal((await rate('?fecha=2025-04-21')).body.publicado_dof, '2025-04-16');
    });

    test('a malformed date is a 422 exactly as as_of is refused; no token is a 401', async () => {
      for (const bad of ['2025-02-30', '20250101', 'mañana', '2025-1-1']) {
        const { status, body } = await rate(`?fecha=${encodeURIComponent(bad)}`);
        assert.equal(status, 422, bad);
        const asOf = await server.json<{ detail: unknown[] }>(`/api/v1/tipos-cambio?fecha=2025-11-24&as_of=${encodeURIComponent(bad)}`);
        assert.equal(asOf.status, 422);
        assert.deepEqual(body.detail, [{ ...(asOf.body.detail[0] as object), loc: ['query', 'fecha'] }], bad);
      }
      assert.equal((await server.get('/api/v1/tipos-cambio?fecha=2025-11-24')).status, 401);
    });

    test('as_of answers from the series of the version in force then; the answer names its version', async () => {
      const { response } = await rate('?fecha=2025-11-24&as_of=2020-01-01');
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-dataset-version'), '1900-01-01.1');
    });
  });

  describe(`tipos-cambio in a version (${kind})`, () => {
    test('with no fecha, today in Mexico City by the app clock; versions hold series of their own', async (t) => {
      const db = await createTestDatabase(kind, withAladi2(2));
      defer(t, () => db.drop());
      // A newer series, loaded ahead: in force from 2025-12-01, it settles the first days of December.
      const newer = parseTiposCambio('fecha,tipo_cambio\n2025-11-27,18.3000\n2025-11-28,18.3100\n2025-12-01,18.2500\n2025-11-26,18.3900\n');
      await writeDatabase(db.url, 'serie nueva', withAladi2(1), { vigenteDesde: '2025-12-01', tiposCambio: newer });
      const clock = { now: new Date('2025-11-27T05:00:00Z') };
      const s = await serveClock(t, db.url, clock);
      const today = await s.json('/api/v1/tipos-cambio');
      assert.equal(today.status, 200);
      assert.deepEqual([today.body['fecha'], today.body['determinado']], ['2025-11-26', '2025-11-24'], 'at 23:00 in Mexico City it is still the 26th');
      clock.now = new Date('2025-11-27T06:30:00Z');
      const tomorrow = await s.json('/api/v1/tipos-cambio');
      assert.equal(tomorrow.status, 404);
      assert.match(String(tomorrow.body['detail']), /^No exchange rate for 2025-11-27: the data holds the FIX determined from 1991-11-12 to 2025-11-25/);
      clock.now = new Date('2025-12-02T12:00:00Z');
      const december = await s.json('/api/v1/tipos-cambio');
      assert.deepEqual(
        [december.body['fecha'], december.body['tipo_cambio'], december.body['determinado'], december.body['publicado_dof']],
        ['2025-12-02', '18.3100', '2025-11-28', '2025-12-01'],
      );
      const held = await s.json('/api/v1/tipos-cambio?fecha=2025-11-26');
      assert.equal(held.status, 404);
      assert.equal(
        held.body['detail'],
        'No exchange rate for 2025-11-26: the data holds the FIX determined from 2025-11-26 to 2025-12-01, which settle the dates from 2025-11-28 to 2025-12-02',
      );
      const older = await s.json('/api/v1/tipos-cambio?fecha=2025-11-26&as_of=2025-11-30');
      assert.equal(older.body['tipo_cambio'], '18.4997');
    });

    test('import: a folder’s tipos-cambio.csv takes the place of the shipped series; a malformed one stops the import', async (t) => {
      const db = await createTestDatabase(kind, withAladi2(2));
      defer(t, () => db.drop());
      const config = loadConfig({ DATABASE_URL: db.url });
      const dir = temporary(t);
      writeFileSync(join(dir, 'tipos-cambio.csv'), 'fecha,tipo_cambio\r\n2026-01-05,17.9000\r\n2026-01-06,17.8000\r\n2026-01-07,17.7000\r\n');
      // The rates alone: a new version with every record set kept.
      const report = await runImport({ directory: dir, config });
      assert.equal(report.failure, null);
      assert.equal(report.kept.length, recordSets.length);
      assert.ok(!report.ignored.some((i) => i.file === 'tipos-cambio.csv'), JSON.stringify(report.ignored));
      const s = await serveClock(t, db.url, { now: new Date('2026-01-08T18:00:00Z') });
      assert.deepEqual(await s.json('/api/v1/tipos-cambio').then((r) => [r.body['tipo_cambio'], r.body['publicado_dof']]), ['17.8000', '2026-01-07']);
      assert.equal((await s.json('/api/v1/tipos-cambio?fecha=2025-06-02')).status, 404);

      writeFileSync(join(dir, 'tipos-cambio.csv'), 'fecha,tipo_cambio\n2026-01-05,17.9000\n2026-01-06,diecisiete\n');
      const refused = await runImport({ directory: dir, config });
      assert.equal(refused.imported, false);
      assert.match(refused.failure ?? '', /tipos-cambio\.csv: line 3: tipo_cambio "diecisiete"/);
    });
  });

  describe(`contribuciones with the rate of their date (${kind})`, () => {
    serveFixture(kind, {}, (running) => (server = running), fillContribuciones);

    const post = async (body: unknown) => {
      const response = await server.authed.fetch('/api/v1/contribuciones', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return {
        status: response.status,
        body: (await response.json()) as Record<string, unknown> & { partidas: { opciones: { contribuciones: Record<string, string>[] }[] }[] },
      };
    };
    const mixed = (extra: Record<string, unknown>) => ({
      pais_origen: 'NZL',
      partidas: [{ fraccion: '0402.10.99', valor_aduana: '50000.00', cantidad_umt: '1000' }],
      ...extra,
    });

    test('a duty in dollars with no tipo_cambio uses the rate of fecha and names it', async () => {
      const { status, body } = await post(mixed({ fecha: '2024-06-03' }));
      assert.equal(status, 200, JSON.stringify(body));
      const fix = (await rate('?fecha=2024-06-03')).body;
      assert.deepEqual(body['tipo_cambio_aplicado'], { tipo_cambio: fix.tipo_cambio, determinado: fix.determinado, publicado_dof: fix.publicado_dof });
      // Monday 3 June 2024: the DOF of Friday 31 May, the FIX of Thursday 30 May.
      assert.deepEqual([fix.determinado, fix.publicado_dof], ['2024-05-30', '2024-05-31']);
      const igi = body.partidas[0]!.opciones[0]!.contribuciones[0]!;
      // 10 % of 50,000 plus 0.36 USD × the rate × 1,000 kg, to the centavo.
      const exact = new Decimal(5000).plus(new Decimal('0.36').times(fix.tipo_cambio).times(1000)).toFixed(2);
      assert.deepEqual([igi['tipo'], igi['importe_exacto']], ['mixto', exact]);
      assert.deepEqual(Object.keys(body).slice(0, 4), ['fecha', 'pais_origen', 'regimen', 'tipo_cambio_aplicado']);
    });

    test('the request’s tipo_cambio still wins; a line with no conversion names no rate', async () => {
      const own = await post(mixed({ fecha: '2024-06-03', tipo_cambio: '17.5000' }));
      assert.equal(own.status, 200);
      assert.equal('tipo_cambio_aplicado' in own.body, false);
      assert.equal(own.body.partidas[0]!.opciones[0]!.contribuciones[0]!['importe_exacto'], '11300.00');
      const plain = await post({ fecha: '2024-06-03', pais_origen: 'USA', partidas: [{ fraccion: '0101.21.01', valor_aduana: '1000.00' }] });
      assert.equal(plain.status, 200);
      assert.equal('tipo_cambio_aplicado' in plain.body, false);
    });

    test('no rate held for fecha: a 422 on tipo_cambio that says so and asks for it', async () => {
      const { status, body } = await post(mixed({ fecha: '2030-01-02' }));
      assert.equal(status, 422);
      const detail = body['detail'] as { type: string; loc: unknown[]; msg: string }[];
      assert.deepEqual(
        detail.map((d) => [d.type, d.loc]),
        [['missing', ['body', 'tipo_cambio']]],
      );
      assert.match(detail[0]!.msg, /no exchange rate for 2030-01-02 .*settle the dates from 1991-11-14 to 2025-11-26.*give the exchange rate \(tipo_cambio\)/);
    });
  });
}

/** A server over `url` whose clock the test sets; closed after the test. */
async function serveClock(t: TestContext, url: string, clock: { now: Date }) {
  const server = await startServer({ DATABASE_URL: url }, { app: { now: () => clock.now } });
  defer(t, () => server.close());
  return { json: (path: string) => server.json<Record<string, unknown>>(path) };
}
