/**
 * POST /api/v1/contribuciones over real HTTP on both stores: the contract's own example, worked cases
 * computed by hand from the rules of docs/contribuciones.md, every kind of line and option, the
 * requirements, and the contract's errors (including the hostile amounts it names).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import fc from 'fast-check';
import { ESTIMATE_WARNING } from '../src/contribuciones/compute.js';
import type { Running } from './servers.js';
import { storeKinds } from './stores.js';
import { fillDemo } from './databases.js';
import { serveFixture } from './servers.js';
import { fillContribuciones } from './contribuciones-fixture.js';

interface Line {
  clave: string;
  base: string;
  tasa?: string;
  cuota?: string;
  tipo: string;
  importe: string;
  importe_exacto: string;
  fuente: Record<string, unknown>;
}
interface Option {
  tratamiento: string;
  acuerdo?: string;
  contribuciones: Line[];
  identificadores: string[];
  total: string;
}
interface Partida {
  fraccion: string;
  nico: string;
  opciones: Option[];
  mejor_opcion: string;
  requisitos: { conjunto: string; id: number; descripcion: string }[];
  notas: string[];
}
interface Answer {
  fecha: string;
  partidas: Partida[];
  totales: { general: string; mejor: string };
  advertencias: string[];
}
interface Detail {
  detail: { type: string; loc: (string | number)[]; msg: string }[];
}

let server: Running;

interface OpenApi {
  paths: Record<string, { post?: { security: unknown; responses: Record<string, unknown>; requestBody: unknown } } | undefined>;
  components: { schemas: Record<string, { required?: string[] } | undefined> };
}

async function post<T = Answer>(body: unknown, token: string | null = server.token): Promise<{ status: number; body: T; headers: Headers }> {
  const response = await fetch(`${server.base}/api/v1/contribuciones`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
}

const line = (fraccion: string, valor_aduana: string, extra: Record<string, unknown> = {}) => ({ fraccion, valor_aduana, ...extra });
const request = (pais_origen: string, partidas: unknown[], extra: Record<string, unknown> = {}) => ({ fecha: '2024-06-03', pais_origen, partidas, ...extra });
const amounts = (o: Option | undefined) => o?.contribuciones.map((c) => [c.clave, c.importe]);

for (const kind of await storeKinds()) {
  describe(`contribuciones (${kind})`, () => {
    serveFixture(kind, {}, (running) => (server = running), fillContribuciones);

    test("the contract's example: 100,000 pesos of breeding horses from the US, 10 % IGI, with and without proof of origin", async () => {
      const { status, body, headers } = await post(request('usa', [line('0101.21.01', '100000.00', { certificado_origen: true })]));
      assert.equal(status, 200);
      assert.equal(headers.get('cache-control'), 'no-store');
      const [partida] = body.partidas;
      assert.equal(partida?.fraccion, '01012101');
      assert.equal(partida?.nico, '00');
      const [general, tlc] = partida.opciones;
      // IGI 10 % of 100,000; DTA 8 al millar; IVA 16 % of 100,000 + 10,000 + 800.
      assert.deepEqual(amounts(general), [
        ['IGI', '10000'],
        ['DTA', '800'],
        ['IVA', '17728'],
      ]);
      assert.equal(general?.total, '28528');
      assert.deepEqual(general?.contribuciones[0], {
        clave: 'IGI',
        base: '100000.00',
        tasa: '10.00',
        tipo: 'ad valorem',
        importe: '10000',
        importe_exacto: '10000.00',
        fundamento: 'LIGIE art. 1, fracción 0101.21.01; Ley de Comercio Exterior art. 12',
        fuente: { conjunto: 'fracciones', id: 1 },
      });
      // Originating US goods: FTA rate Ex. and no DTA (T-MEC), so IVA is 16 % of the value alone.
      assert.equal(tlc?.tratamiento, 'tlc');
      assert.deepEqual(tlc?.identificadores, ['TL']);
      assert.deepEqual(
        tlc?.contribuciones.map((c) => [c.clave, c.tipo, c.importe]),
        [
          ['IGI', 'exento', '0'],
          ['DTA', 'exento', '0'],
          ['IVA', 'ad valorem', '16000'],
        ],
      );
      assert.deepEqual(tlc?.contribuciones[0]?.fuente, { conjunto: 'tlcs', id: 1, fraccion: '01012101' });
      // Fields in the contract's order.
      assert.deepEqual(Object.keys(tlc), ['tratamiento', 'acuerdo', 'contribuciones', 'identificadores', 'total']);
      assert.deepEqual(Object.keys(tlc.contribuciones[0]), ['clave', 'base', 'tasa', 'tipo', 'importe', 'importe_exacto', 'fundamento', 'fuente']);
      assert.equal(partida?.mejor_opcion, 'tlc');
      assert.deepEqual(body.totales, { general: '28528', mejor: '16000' });
      assert.equal(body.advertencias[0], ESTIMATE_WARNING);
      // Permit, import regulation and NOM, in that order; the export-only regulation is not one.
      assert.deepEqual(
        partida?.requisitos.map((r) => [r.conjunto, r.id]),
        [
          ['requisito-previo', 1],
          ['regulaciones', 1],
          ['noms', 1],
        ],
      );
      assert.match(partida.requisitos[0]!.descripcion, /C1 — Permiso previo de la SE/);
    });

    test('a preference the request does not qualify for is no option but a note', async () => {
      const { body } = await post(request('USA', [line('01012101', '100000.00')]));
      const partida = body.partidas[0]!;
      assert.deepEqual(
        partida.opciones.map((o) => o.tratamiento),
        ['general'],
      );
      assert.equal(partida.mejor_opcion, 'general');
      assert.ok(partida.notas.includes('Hay tasa TLC para USA: requiere certificado de origen'), partida.notas.join(' | '));
      const israel = (await post(request('ISR', [line('01012101', '1000.00', { certificado_origen: true })]))).body.partidas[0]!;
      assert.deepEqual(
        israel.opciones.map((o) => o.tratamiento),
        ['general'],
      );
      assert.ok(
        israel.notas.some((n) => /tlcs 3 sin tasa utilizable \(EXCL\)/.test(n)),
        israel.notas.join(' | '),
      );
    });

    test('a record for a group of countries applies to its members; ALADI reads TASACALCULADA as a percent', async () => {
      const germany = (await post(request('DEU', [line('01012101', '100000.00', { certificado_origen: true })]))).body.partidas[0]!;
      const tlc = germany.opciones[1]!;
      assert.equal(tlc.contribuciones[0]?.tasa, '2.00');
      // No DTA exemption for the EU: 8 al millar as under the general treatment.
      assert.deepEqual(amounts(tlc), [
        ['IGI', '2000'],
        ['DTA', '800'],
        ['IVA', '16448'],
      ]);
      const paraguay = (await post(request('PRY', [line('01012101', '100000.00', { certificado_origen: true })]))).body.partidas[0]!;
      const aladi = paraguay.opciones[1]!;
      assert.equal(aladi.tratamiento, 'aladi');
      assert.equal(aladi.acuerdo, 'Acuerdo Regional No. 4');
      assert.deepEqual(aladi.identificadores, ['AL']);
      assert.deepEqual(amounts(aladi), [
        ['IGI', '5200'],
        ['DTA', '800'],
        ['IVA', '16960'],
      ]);
    });

    test('DTA under the minimum: the fixed fee of the year shared by customs value, shares adding up exactly', async () => {
      const { body } = await post(request('JPN', [line('01012101', '10000.00'), line('01012101', '30000.00')]));
      const dta = body.partidas.map((p) => p.opciones[0]!.contribuciones.find((c) => c.clave === 'DTA')!);
      // 8 al millar of 40,000 is 320, below the 2024 minimum of 425: 106.25 and 318.75.
      assert.deepEqual(
        dta.map((c) => [c.tipo, c.cuota, c.importe_exacto, c.importe]),
        [
          ['cuota minima', '425.00', '106.25', '106'],
          ['cuota minima', '425.00', '318.75', '319'],
        ],
      );
      assert.deepEqual(dta[0]?.fuente, { tabla: 'dta', fila: 5 });
    });

    test('a mixed duty needs the quantity and the exchange rate; with them it is percent plus dollars per unit', async () => {
      // On a date the loaded exchange rates do not settle, the rate must come with the request (test/tipos-cambio.test.ts: a date they do).
      const missing = await post<Detail>(request('NZL', [line('0402.10.99', '50000.00')], { fecha: '2030-01-02' }));
      assert.equal(missing.status, 422);
      assert.deepEqual(
        missing.body.detail.map((d) => d.loc),
        [
          ['body', 'tipo_cambio'],
          ['body', 'partidas', 0, 'cantidad_umt'],
        ],
      );
      const { body } = await post(request('NZL', [line('0402.10.99', '50000.00', { cantidad_umt: '1000' })], { tipo_cambio: '17.5000' }));
      const igi = body.partidas[0]!.opciones[0]!.contribuciones[0]!;
      // 10 % of 50,000 plus 0.36 USD × 17.50 × 1,000 kg.
      assert.deepEqual([igi.tipo, igi.tasa, igi.cuota, igi.importe_exacto], ['mixto', '10.00', '0.36', '11300.00']);
    });

    test('IEPS on value plus IGI and DTA, IVA on all of them, each on the amounts as paid', async () => {
      const { body } = await post(request('BEL', [line('2203.00.01', '10000.00')]));
      const general = body.partidas[0]!.opciones[0]!;
      // IGI 20 % = 2,000; DTA minimum 425; IEPS 26.5 % of 12,425 = 3,292.625 → 3,292.63 → 3,293; IVA 16 % of 15,718 = 2,514.88 → 2,515.
      assert.deepEqual(
        general.contribuciones.map((c) => [c.clave, c.base, c.importe_exacto, c.importe]),
        [
          ['IGI', '10000.00', '2000.00', '2000'],
          ['DTA', '10000.00', '425.00', '425'],
          ['IEPS', '12425.00', '3292.63', '3293'],
          ['IVA', '15718.00', '2514.88', '2515'],
        ],
      );
      assert.equal(general.total, '8233');
    });

    test('compensatory duties: the one for all other exporters, or the named exporter’s own; PROSEC by sector', async () => {
      const others = (await post(request('chn', [line('72085101', '100000.00')]))).body.partidas[0]!;
      assert.deepEqual(amounts(others.opciones[0]), [
        ['IGI', '5000'],
        ['DTA', '800'],
        ['CC', '25000'],
        ['IVA', '20928'],
      ]);
      assert.ok(
        others.notas.some((n) => /PROSEC para los sectores II, XI: requiere sector_prosec/.test(n)),
        others.notas.join(' | '),
      );
      const own = (
        await post(
          request('CHN', [line('72085101', '100000.00', { exportador: 'aceros ejemplo', cantidad_umt: '1000', sector_prosec: 'ii' })], { tipo_cambio: '20' }),
        )
      ).body.partidas[0]!;
      const cc = own.opciones[0]!.contribuciones.filter((c) => c.clave === 'CC');
      assert.deepEqual(
        cc.map((c) => [c.tipo, c.cuota, c.importe]),
        [['especifico', '0.10', '2000']],
      );
      assert.deepEqual(
        own.opciones.map((o) => [o.tratamiento, o.identificadores]),
        [
          ['general', []],
          ['prosec', ['PS']],
        ],
      );
      // The compensatory duty stays under PROSEC; only the IGI changes.
      assert.deepEqual(amounts(own.opciones[1]), [
        ['IGI', '0'],
        ['DTA', '800'],
        ['CC', '2000'],
        ['IVA', '16448'],
      ]);
      assert.equal(own.mejor_opcion, 'prosec');
    });

    test('a quota in force on the date is an option; out of force it is not; historic records are warned about', async () => {
      const inForce = (await post(request('ARG', [line('02011001', '100000.00')]))).body;
      assert.deepEqual(
        inForce.partidas[0]!.opciones.map((o) => [o.tratamiento, o.identificadores]),
        [
          ['general', []],
          ['cupo', ['DC']],
        ],
      );
      assert.deepEqual(
        inForce.partidas[0]!.requisitos.map((r) => [r.conjunto, r.id]),
        [['cupos', 1]],
      );
      assert.ok(
        inForce.advertencias.some((a) => /HISTÓRICO o DEMO\) en: fracciones/.test(a)),
        inForce.advertencias.join(' | '),
      );
      const later = (await post(request('ARG', [line('02011001', '100000.00')], { fecha: '2025-06-03' }))).body;
      assert.deepEqual(
        later.partidas[0]!.opciones.map((o) => o.tratamiento),
        ['general'],
      );
      assert.ok(
        later.advertencias.some((a) => /no tiene la cuota mínima de 2025; se usa la de 2024/.test(a)),
        later.advertencias.join(' | '),
      );
    });

    test('no IGI in the data is a note; a VAT rate of the record replaces the 16 %', async () => {
      const partida = (await post(request('IND', [line('3004.90.99', '1000.00')]))).body.partidas[0]!;
      assert.deepEqual(
        partida.opciones[0]!.contribuciones.map((c) => [c.clave, c.tasa ?? c.cuota]),
        [
          ['DTA', '425.00'],
          ['IVA', '0.00'],
        ],
      );
      assert.ok(partida.notas.includes('sin tasa IGI en los datos'));
    });

    test('NICO: required when the fraction has several, refused when it disagrees; unknown fraction 404', async () => {
      const several = await post<Detail>(request('USA', [line('8471.30.01', '1.00')]));
      assert.equal(several.status, 422);
      assert.deepEqual(several.body.detail[0]?.loc, ['body', 'partidas', 0, 'nico']);
      assert.equal((await post(request('USA', [line('8471.30.01', '1.00', { nico: '02' })]))).body.partidas[0]?.nico, '02');
      assert.equal((await post(request('USA', [line('8471300101', '1.00')]))).body.partidas[0]?.nico, '01');
      const disagree = await post<Detail>(request('USA', [line('8471300101', '1.00', { nico: '02' })]));
      assert.deepEqual([disagree.status, disagree.body.detail[0]?.loc], [422, ['body', 'partidas', 0, 'nico']]);
      const unknown = await post(request('USA', [line('01012101', '1.00'), line('9999.99.99', '1.00')]));
      assert.deepEqual([unknown.status, unknown.body], [404, { detail: 'Fraction not found: 9999.99.99' }]);
    });

    test("hostile amounts get the contract's 422 on that field", async () => {
      for (const bad of ['1e9', '-0', '0.001', '１２', '1000000000000000000000000000000', 1e30, 100, '100.', '.5', ' 1', '1,000.00', '']) {
        const { status, body } = await post<Detail>(request('USA', [line('01012101', bad as string)]));
        assert.equal(status, 422, String(bad));
        assert.deepEqual(
          body.detail.map((d) => d.loc),
          [['body', 'partidas', 0, 'valor_aduana']],
          String(bad),
        );
      }
      // A quantity may have three decimals, an exchange rate four.
      assert.equal((await post(request('USA', [line('01012101', '1.00', { cantidad_umt: '0.001' })], { tipo_cambio: '17.1234' }))).status, 200);
      assert.equal((await post(request('USA', [line('01012101', '9999999999999.99')]))).status, 200);
    });

    test('bad requests: fields, regime, country, lines, dates, JSON; 401 before the body; 413 over 1 MiB', async () => {
      const cases: [unknown, (string | number)[]][] = [
        [{ partidas: [line('01012101', '1')] }, ['body', 'pais_origen']],
        [request('US', [line('01012101', '1')]), ['body', 'pais_origen']],
        [request('USA', []), ['body', 'partidas']],
        [request('USA', [line('0101', '1')]), ['body', 'partidas', 0, 'fraccion']],
        [request('USA', [{ valor_aduana: '1' }]), ['body', 'partidas', 0, 'fraccion']],
        [request('USA', [line('01012101', '1')], { regimen: 'temporal' }), ['body', 'regimen']],
        [request('USA', [line('01012101', '1')], { fecha: '2024-02-30' }), ['body', 'fecha']],
        [request('USA', [line('01012101', '1', { certificado_origen: 'yes' })]), ['body', 'partidas', 0, 'certificado_origen']],
        [request('USA', [line('01012101', '1', { sector_prosec: 'XXV' })]), ['body', 'partidas', 0, 'sector_prosec']],
        [
          request(
            'USA',
            Array.from({ length: 501 }, () => line('01012101', '1')),
          ),
          ['body', 'partidas'],
        ],
        [[1, 2], ['body']],
      ];
      for (const [body, loc] of cases) {
        const answer = await post<Detail>(body);
        assert.equal(answer.status, 422, JSON.stringify(loc));
        assert.deepEqual(answer.body.detail[0]?.loc, loc);
      }
      assert.equal((await post('{"pais_origen": ', server.token)).status, 422);
      // Hostile JSON: prototype keys are refused as the parser refuses them; deep nesting is named, not echoed back.
      assert.equal((await post('{"__proto__": {"x": 1}, "pais_origen": "USA", "partidas": []}')).status, 422);
      const deep = await post<Detail & { detail: { input: unknown }[] }>(
        `{"pais_origen": "USA", "partidas": [{"valor_aduana": "1", "fraccion": ${'['.repeat(100000)}${']'.repeat(100000)}}]}`,
      );
      assert.equal(deep.status, 422);
      assert.deepEqual([deep.body.detail[0]?.loc, deep.body.detail[0]?.input], [['body', 'partidas', 0, 'fraccion'], 'a list of 1 items']);
      assert.equal((await post('not json at all', null)).status, 401);
      assert.equal((await post(request('USA', [line('01012101', '1')]), 'not-a-token')).status, 401);
      const get = await server.get('/api/v1/contribuciones', { authorization: `Bearer ${server.token}` });
      assert.deepEqual([get.status, get.headers.get('allow')], [405, 'POST']);
      await get.arrayBuffer();
      const huge = JSON.stringify(request('USA', [line('01012101', '1', { exportador: 'x'.repeat(1024 * 1024) })]));
      assert.equal((await post(huge)).status, 413);
    });

    test('500 lines at the limit: one answer whose totals add up', async () => {
      const partidas = Array.from({ length: 500 }, (_, i) =>
        line(['01012101', '72085101', '2203.00.01', '02011001'][i % 4]!, `${1000 + i}.${String(i % 100).padStart(2, '0')}`),
      );
      const { status, body } = await post(request('CHN', partidas));
      assert.equal(status, 200);
      assert.equal(body.partidas.length, 500);
      const general = body.partidas.reduce((a, p) => a + BigInt(p.opciones[0]!.total), 0n);
      assert.equal(body.totales.general, String(general));
    });

    test('in the OpenAPI document, valid, with its request and answer schemas and every error', async () => {
      const { body } = await server.json<OpenApi>('/openapi.json');
      const result = await new Validator().validate(structuredClone(body) as unknown as Record<string, unknown>);
      assert.equal(result.valid, true, JSON.stringify(result.errors));
      const operation = body.paths['/api/v1/contribuciones']?.post;
      assert.ok(operation);
      assert.deepEqual(operation.security, [{ HTTPBearer: [] }]);
      assert.deepEqual(Object.keys(operation.responses).sort(), ['200', '401', '404', '413', '422', '429', '503']);
      const schema = body.components.schemas['ContribucionesRequest'];
      assert.deepEqual(schema?.required, ['pais_origen', 'partidas']);
      for (const name of ['ContribucionesResponse', 'PartidaContribuciones', 'OpcionContribuciones', 'Contribucion'])
        assert.ok(body.components.schemas[name], name);
      assert.ok(JSON.stringify(operation.requestBody).includes('ContribucionesRequest'));
    });

    test('random and hostile bodies never give a 500', async () => {
      const amount = fc.oneof(fc.string(), fc.stringMatching(/^\d{1,14}(\.\d{0,4})?$/), fc.double().map(String), fc.integer(), fc.constant(null));
      const partida = fc.record(
        {
          fraccion: fc.oneof(fc.constantFrom('01012101', '0101.21.01.00', '8471.30.01', '72085101', '0402.10.99', '9999.99.99'), fc.string()),
          nico: fc.oneof(fc.string(), fc.constantFrom('00', '01')),
          valor_aduana: amount,
          cantidad_umt: amount,
          certificado_origen: fc.oneof(fc.boolean(), fc.string()),
          sector_prosec: fc.oneof(fc.string(), fc.constantFrom('II', 'XI')),
          exportador: fc.string(),
        },
        { requiredKeys: [] },
      );
      const body = fc.oneof(
        fc.record(
          {
            fecha: fc.oneof(fc.string(), fc.constantFrom('2024-06-03', '1900-01-01')),
            pais_origen: fc.oneof(fc.string(), fc.constantFrom('USA', 'CHN', 'DEU')),
            regimen: fc.string(),
            tipo_cambio: amount,
            partidas: fc.oneof(fc.array(partida, { maxLength: 4 }), fc.anything()),
          },
          { requiredKeys: [] },
        ),
        fc.anything(),
        fc.string(),
      );
      await fc.assert(
        fc.asyncProperty(body, async (b) => {
          const text = typeof b === 'string' ? b : (JSON.stringify(b) ?? 'null');
          const { status } = await post<unknown>(text);
          assert.ok([200, 404, 422].includes(status), `${status} for ${text}`);
        }),
        { numRuns: 150 },
      );
    });
  });
}

describe('contribuciones on the demo dataset', () => {
  serveFixture('sqlite', {}, (running) => (server = running), fillDemo);

  test('the answer warns that the rates are historic or demo data, naming the record sets', async () => {
    const { status, body } = await post(
      request(
        'CHN',
        [
          line('0101.21.01', '100000.00', { certificado_origen: true }),
          line('7202.70.01', '50000.00', { exportador: 'Exportadora demo 33', cantidad_umt: '100' }),
        ],
        {
          tipo_cambio: '17.0000',
        },
      ),
    );
    assert.equal(status, 200);
    const warning = body.advertencias.find((a) => a.startsWith('Datos históricos o de demostración'));
    assert.ok(warning, body.advertencias.join(' | '));
    for (const set of ['fracciones', 'cuotas2']) assert.match(warning, new RegExp(`\\b${set}\\b`));
    const cc = body.partidas[1]!.opciones[0]!.contribuciones.filter((c) => c.clave === 'CC');
    // The demo's specific duty for that exporter: 1.1860 USD × 17 × 100.
    assert.deepEqual(
      cc.map((c) => [c.cuota, c.importe_exacto]),
      [['1.186', '2016.20']],
    );
  });
});
