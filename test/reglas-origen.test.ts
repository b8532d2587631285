/**
 * `GET /api/v1/reglas-origen/{fraccion}` and `POST /api/v1/reglas-origen/evaluar` over real HTTP on
 * both stores (../shared/spec/reglas-origen.md): the rules of the shipped files for real fractions,
 * held against the files themselves; the filters and their 404/422; bills of materials built to pass,
 * fail and leave undecided each kind of requirement; hostile bodies never a 5xx.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { SHIPPED, shippedDir } from '../src/reglas-origen/archivos.js';
import { normalizarTexto } from '../src/reglas-origen/parse.js';
import type { EvaluarOrigen, ReglasOrigen } from '../src/reglas-origen/schema.js';
import type { Running } from './servers.js';
import { REGLAS_ORIGEN_FRACTIONS, fillReglasOrigen } from './reglas-origen-fixture.js';
import { storeKinds } from './stores.js';
import { serveFixture } from './servers.js';
import { assertNoInternals } from './clients.js';

const FRACTIONS = REGLAS_ORIGEN_FRACTIONS;

const UK = 'Acuerdo de Continuidad Comercial México–Reino Unido';
interface FileSet {
  heading: string;
  subdivision?: string;
  min: string;
  max: string;
  rules: { rule: string; operator: string | null }[];
}
const files = new Map(SHIPPED.map((s) => [s.acuerdo, (JSON.parse(readFileSync(join(shippedDir, s.archivo), 'utf8')) as { rule_sets: FileSet[] }).rule_sets]));

/** What the files say applies to a 10-digit code, read straight from them: per agreement, each set's index and its rules' first entries. */
function expectedSets(code: string): { acuerdo: string; conjunto: number; entradas: number[]; texts: string[][] }[] {
  return SHIPPED.flatMap(({ acuerdo }) =>
    files
      .get(acuerdo)!
      .flatMap((set, conjunto) => (set.min <= code && code <= set.max ? [{ set, conjunto }] : []))
      .map(({ set, conjunto }) => {
        const entradas = set.rules.flatMap((r, i) => (i === 0 || r.operator === null ? [i] : []));
        const texts = entradas.map((e, k) => set.rules.slice(e, entradas[k + 1] ?? set.rules.length).map((r) => normalizarTexto(r.rule)));
        return { acuerdo, conjunto, entradas, texts };
      }),
  );
}

for (const kind of await storeKinds()) {
  describe(`reglas de origen (${kind})`, () => {
    let server: Running;
    serveFixture(kind, {}, (running) => (server = running), fillReglasOrigen);

    const get = (path: string) => server.json<ReglasOrigen & { detail?: unknown }>(path);
    const post = async (body: unknown): Promise<{ status: number; body: EvaluarOrigen & { detail?: { loc: unknown[]; type: string }[] } }> => {
      const response = await fetch(`${server.base}/api/v1/reglas-origen/evaluar`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      assertNoInternals(text, 'evaluar');
      return { status: response.status, body: JSON.parse(text) as never };
    };

    test('every fraction: the sets, texts and rules the files hold, with their source', async () => {
      for (const f of FRACTIONS) {
        const { status, body, response } = await get(`/api/v1/reglas-origen/${f}`);
        assert.equal(status, 200, f);
        assert.equal(response.headers.get('x-dataset-version'), body.version);
        const expected = expectedSets(`${f}00`);
        const got = body.reglas.map((r) => ({ acuerdo: r.acuerdo, conjunto: r.fuente.conjunto, entrada: r.fuente.entrada, texto: r.texto }));
        const want = expected.flatMap((e) => e.entradas.map((entrada, k) => ({ acuerdo: e.acuerdo, conjunto: e.conjunto, entrada, texto: e.texts[k]! })));
        assert.deepEqual(got, want, f);
        for (const r of body.reglas) {
          const set = files.get(r.acuerdo)![r.fuente.conjunto]!;
          assert.deepEqual(
            [r.encabezado, r.descripcion, r.parcial, r.fuente.min, r.fuente.max],
            [set.heading, set.subdivision ?? null, set.heading.startsWith('ex'), set.min, set.max],
          );
          assert.equal(r.idioma, 'en');
          assert.ok(r.alternativas.length > 0 && r.texto_es.length > 0);
        }
      }
    });

    test('the contract’s example: 4823.20 under TIPAT, its structure and the project’s Spanish reading', async () => {
      const { body } = await get('/api/v1/reglas-origen/4823.20.01?acuerdo=TIPAT');
      assert.equal(body.fraccion, '48232001');
      assert.equal(body.nico, null);
      assert.equal(body.reglas.length, 1);
      const [r] = body.reglas;
      assert.deepEqual(r!.texto, ['A change to a good of subheading 482320 from any other heading, except from subheading 480540.']);
      assert.deepEqual(r!.alternativas, [{ requisitos: [{ tipo: 'cambio_partida', excepto: ['480540'], desde: null }] }]);
      assert.equal(
        r!.texto_es,
        'Cambio de partida: los materiales no originarios se clasifican en una partida distinta de la 4823, salvo los de la subpartida 4805.40, que deben ser originarios.',
      );
      assert.deepEqual(r!.paises, ['AUS', 'BRN', 'CAN', 'CHL', 'JPN', 'MYS', 'NZL', 'PER', 'SGP', 'VNM']);
      assert.deepEqual(body.sin_reglas, []);
    });

    test('agreements in force with no rule loaded are named in sin_reglas; pais and fecha choose the agreements', async () => {
      const all = (await get('/api/v1/reglas-origen/48232001')).body;
      assert.deepEqual([...new Set(all.reglas.map((r) => r.acuerdo))], ['TIPAT', UK]);
      const missing = all.sin_reglas.map((s) => s.acuerdo);
      assert.ok(missing.includes('T-MEC') && !missing.includes('TLCAN') && !missing.includes('TIPAT'), missing.join(', '));
      assert.ok(all.sin_reglas.every((s) => s.motivo === 'Los datos cargados no contienen las reglas de origen de este acuerdo.'));

      const japan = (await get('/api/v1/reglas-origen/48232001?pais=jpn')).body;
      assert.deepEqual(
        japan.reglas.map((r) => r.acuerdo),
        ['TIPAT'],
      );
      assert.deepEqual(japan.sin_reglas, [{ acuerdo: 'AAE Japón', motivo: 'Los datos cargados no contienen las reglas de origen de este acuerdo.' }]);
      // Before TIPAT entered into force for Japan.
      const beforeAnswer = await get('/api/v1/reglas-origen/48232001?pais=JPN&fecha=2018-06-01');
      assert.equal(beforeAnswer.status, 200, JSON.stringify(beforeAnswer.body));
      const before = beforeAnswer.body;
      assert.deepEqual([before.reglas.length, before.sin_reglas.map((s) => s.acuerdo)], [0, ['AAE Japón']]);
      const uk = (await get('/api/v1/reglas-origen/48232001?pais=GBR')).body;
      assert.deepEqual([...new Set(uk.reglas.map((r) => r.acuerdo))], [UK]);
      assert.deepEqual(
        uk.reglas.map((r) => [r.encabezado, r.parcial]),
        [
          ['ex 4823', true],
          ['ex Chapter 48', true],
        ],
      );
    });

    test('404 for a fraction the data does not hold; 422 for a malformed one, an unknown agreement or country', async () => {
      assert.deepEqual((await get('/api/v1/reglas-origen/99999999')).body, { detail: 'Fraction not found' } as never);
      assert.equal((await get('/api/v1/reglas-origen/4823200199')).status, 404);
      const short = await get('/api/v1/reglas-origen/4823');
      assert.equal(short.status, 422);
      assert.deepEqual((short.body.detail as { loc: unknown[] }[])[0]!.loc, ['path', 'fraccion']);
      const acuerdo = await get('/api/v1/reglas-origen/48232001?acuerdo=MERCOSUR');
      assert.equal(acuerdo.status, 422);
      assert.deepEqual((acuerdo.body.detail as { loc: unknown[] }[])[0]!.loc, ['query', 'acuerdo']);
      const pais = await get('/api/v1/reglas-origen/48232001?pais=XYZ');
      assert.equal(pais.status, 422);
      assert.deepEqual((pais.body.detail as { loc: unknown[] }[])[0]!.loc, ['query', 'pais']);
      assert.equal((await server.get('/api/v1/reglas-origen/48232001')).status, 401);
    });

    test('the ficha carries the same rules; a tlc option of contribuciones names its rule or says none is loaded', async () => {
      const ficha = await server.json<{ reglas_origen: unknown[] }>('/api/v1/ficha/48232001');
      const rules = await get('/api/v1/reglas-origen/48232001');
      assert.deepEqual(ficha.body.reglas_origen, rules.body.reglas);
      assert.deepEqual(
        (await server.json<{ reglas_origen: unknown[] }>('/api/v1/ficha/48232001?pais=JPN')).body.reglas_origen,
        (await get('/api/v1/reglas-origen/48232001?pais=JPN')).body.reglas,
      );
      const contribuciones = async (pais: string): Promise<string[]> => {
        const response = await fetch(`${server.base}/api/v1/contribuciones`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
          body: JSON.stringify({ pais_origen: pais, partidas: [{ fraccion: '4823.20.01', valor_aduana: '1000.00', certificado_origen: true }] }),
        });
        assert.equal(response.status, 200);
        const answer = (await response.json()) as { partidas: { opciones: { tratamiento: string }[]; notas: string[] }[] };
        assert.ok(
          answer.partidas[0]!.opciones.some((o) => o.tratamiento === 'tlc'),
          JSON.stringify(answer),
        );
        return answer.partidas[0]!.notas.filter((n) => n.startsWith('Regla de origen'));
      };
      assert.deepEqual(await contribuciones('JPN'), [
        'Regla de origen de AAE Japón: los datos cargados no contienen las reglas de origen de este acuerdo; la preferencia exige que la mercancía sea originaria según el acuerdo.',
        'Regla de origen de TIPAT que la mercancía debe cumplir para la preferencia: encabezado 482320 (/api/v1/reglas-origen/4823200100?acuerdo=TIPAT; evaluable con POST /api/v1/reglas-origen/evaluar).',
      ]);
      assert.deepEqual(await contribuciones('USA'), [
        'Regla de origen de T-MEC: los datos cargados no contienen las reglas de origen de este acuerdo; la preferencia exige que la mercancía sea originaria según el acuerdo.',
      ]);
    });

    const screws = {
      fraccion: '7318.15.99',
      acuerdo: 'TIPAT',
      valores: { valor_transaccion: '1000.00', precio_franco_fabrica: '950.00', costo_neto: '900.00' },
    };

    test('change of heading: passes with materials of other headings, fails on the same heading, undecided on a short code', async () => {
      const pass = await post({
        ...screws,
        materiales: [
          { fraccion: '7213.91', originario: false, valor: '300.00', descripcion: 'alambrón' },
          { fraccion: '7318.15', originario: true, valor: '50.00' },
        ],
      });
      assert.equal(pass.status, 200);
      assert.equal(pass.body.resultado, 'cumple');
      assert.deepEqual(pass.body.reglas[0]!.alternativas[0]!.requisitos[0]!.resultado, 'cumple');
      assert.ok(pass.body.advertencias.some((a) => /de minimis/.test(a)));

      const fail = await post({
        ...screws,
        materiales: [
          { fraccion: '7213.91', originario: false, valor: '300.00' },
          { fraccion: '7318.15', originario: false, valor: '50.00' },
        ],
      });
      const requisito = fail.body.reglas[0]!.alternativas[0]!.requisitos[0]!;
      assert.deepEqual([fail.body.resultado, requisito.resultado, requisito.materiales_que_fallan], ['no_cumple', 'no_cumple', [1]]);
      assert.match(requisito.motivo, /misma partida 7318/);

      const unsure = await post({ ...screws, materiales: [{ fraccion: '73', originario: false, valor: '300.00' }] });
      assert.equal(unsure.body.resultado, 'no_determinable');
      assert.deepEqual(unsure.body.faltan, ['materiales[0].fraccion con al menos 4 dígitos']);
    });

    test('regional value content: build-up, build-down and focused value, exact, alternatives', async () => {
      const base = { fraccion: '84219901', acuerdo: 'TIPAT', valores: { valor_transaccion: '3000.00' } };
      const materiales = [
        { fraccion: '8421.99', originario: false, valor: '1000.00' },
        { fraccion: '7208.10', originario: true, valor: '1000.00' },
      ];
      const { body } = await post({ ...base, materiales });
      const [cth, up, down, focused] = body.reglas[0]!.alternativas.map((a) => a.requisitos[0]!);
      assert.deepEqual([cth!.tipo, cth!.resultado], ['cambio_partida', 'no_cumple']);
      assert.deepEqual([up!.resultado, up!.valor], ['cumple', '33.33']);
      assert.deepEqual([down!.resultado, down!.valor], ['cumple', '66.67']);
      assert.deepEqual([focused!.resultado, focused!.valor, focused!.materiales_que_fallan], ['cumple', '66.67', []]);
      assert.equal(body.resultado, 'cumple');

      const low = await post({
        ...base,
        valores: { valor_transaccion: '1000.00' },
        materiales: [
          { fraccion: '8421.99', originario: false, valor: '900.00' },
          { fraccion: '7208', originario: true, valor: '100.00' },
        ],
      });
      const reqs = low.body.reglas[0]!.alternativas.map((a) => a.requisitos[0]!);
      assert.deepEqual(
        reqs.map((r) => [r.resultado, r.valor]),
        [
          ['no_cumple', null],
          ['no_cumple', '10.00'],
          ['no_cumple', '10.00'],
          ['no_cumple', '10.00'],
        ],
      );
      assert.equal(low.body.resultado, 'no_cumple');

      const missing = await post({ fraccion: '84219901', acuerdo: 'TIPAT', materiales: [{ fraccion: '7208', originario: true, valor: '100.00' }] });
      assert.equal(missing.body.resultado, 'cumple', 'the change of heading alone decides it');
      const noValue = missing.body.reglas[0]!.alternativas[1]!.requisitos[0]!;
      assert.deepEqual([noValue.resultado, noValue.falta], ['no_determinable', ['valores.valor_transaccion']]);
    });

    test('maximum non-originating value of the ex-works price (UK list)', async () => {
      const { body } = await post({
        fraccion: '84219901',
        acuerdo: UK,
        valores: { precio_franco_fabrica: '950.00' },
        materiales: [{ fraccion: '7213.91', originario: false, valor: '300.00' }],
      });
      const [first, second] = body.reglas[0]!.alternativas;
      assert.deepEqual(
        first!.requisitos.map((r) => [r.tipo, r.resultado, r.valor]),
        [
          ['cambio_partida', 'cumple', null],
          ['valor_max_no_originarios', 'cumple', '31.58'],
        ],
      );
      assert.deepEqual([second!.resultado, second!.requisitos[0]!.valor, second!.requisitos[0]!.materiales_que_fallan], ['no_cumple', '31.58', [0]]);
      assert.equal(body.resultado, 'cumple');
    });

    test('materials of a heading excepted from "any heading" (UK list, 3505): none non-originating, decided without a price when there are none', async () => {
      // 3505 has two sets in the UK list (starch ethers and esters; other): the second is the "except those of heading 1108" one.
      const dextrins = { fraccion: '3505.10.01', acuerdo: UK };
      const excepting = <T extends { fuente: { conjunto: number } }>(reglas: T[]): T => reglas.find((r) => r.fuente.conjunto === 200)!;
      const rule = excepting((await get('/api/v1/reglas-origen/35051001?acuerdo=' + encodeURIComponent(UK))).body.reglas);
      assert.deepEqual(rule.alternativas[0]!.requisitos, [
        { tipo: 'valor_max_no_originarios', maximo: '0', base: 'precio_franco_fabrica', materiales: ['1108'] },
      ]);
      assert.match(rule.texto_es, /Los materiales de la partida 1108 utilizados deben ser originarios/);

      const starch = [{ fraccion: '1108.12', originario: false, valor: '100.00' }];
      const unpriced = excepting((await post({ ...dextrins, materiales: starch })).body.reglas);
      assert.deepEqual(
        unpriced.alternativas.map((a) => a.requisitos.map((r) => [r.resultado, r.falta])),
        [[['no_determinable', ['valores.precio_franco_fabrica']]], [['no_determinable', ['valores.precio_franco_fabrica']]]],
      );
      const priced = excepting((await post({ ...dextrins, valores: { precio_franco_fabrica: '1000.00' }, materiales: starch })).body.reglas);
      const [excepted, limit] = priced.alternativas;
      assert.deepEqual(
        excepted!.requisitos.map((r) => [r.resultado, r.valor, r.materiales_que_fallan]),
        [['no_cumple', '10.00', [0]]],
      );
      assert.deepEqual([limit!.resultado, limit!.requisitos[0]!.valor, priced.resultado], ['cumple', '10.00', 'cumple']);
      const high = excepting((await post({ ...dextrins, valores: { precio_franco_fabrica: '200.00' }, materiales: starch })).body.reglas);
      assert.equal(high.resultado, 'no_cumple', '50 % of the price in starch fails both alternatives');

      const sugar = await post({
        ...dextrins,
        materiales: [
          { fraccion: '1702.30', originario: false, valor: '100.00' },
          { fraccion: '1108.12', originario: true, valor: '5.00' },
        ],
      });
      const none = excepting(sugar.body.reglas).alternativas[0]!;
      assert.deepEqual([none.resultado, none.requisitos[0]!.falta], ['cumple', []]);
    });

    test('wholly obtained: the user’s word, and non-originating materials of the chapter named', async () => {
      const horses = { fraccion: '0101.21.01', acuerdo: UK };
      assert.equal((await post({ ...horses, materiales: [{ fraccion: '0101.21', originario: false, valor: '10.00' }] })).body.resultado, 'no_cumple');
      const unsaid = await post({ ...horses, materiales: [] });
      assert.deepEqual([unsaid.body.resultado, unsaid.body.faltan], ['no_determinable', ['totalmente_obtenido']]);
      assert.equal((await post({ ...horses, totalmente_obtenido: true, materiales: [] })).body.resultado, 'cumple');
    });

    test('a set with rules for different goods: undecided without entrada; entrada picks one; an entrada of none is a 422', async () => {
      const fish = { fraccion: '03044901', acuerdo: 'TIPAT', materiales: [{ fraccion: '0302', originario: false, valor: '10.00' }] };
      const all = await post(fish);
      assert.equal(all.body.resultado, 'no_determinable');
      assert.equal(all.body.reglas.length, 4);
      assert.ok(all.body.advertencias.some((a) => /distintas mercancías/.test(a)));
      const other = await post({ ...fish, entrada: 3 });
      assert.deepEqual([other.body.resultado, other.body.reglas.map((r) => r.fuente.entrada)], ['cumple', [3]]);
      const anchovies = await post({ ...fish, entrada: 2 });
      assert.equal(anchovies.body.resultado, 'no_cumple', 'a change of chapter: 0302 is chapter 3');
      const none = await post({ ...fish, entrada: 7 });
      assert.equal(none.status, 422);
      assert.deepEqual(none.body.detail![0]!.loc, ['body', 'entrada']);
    });

    test('bounds: 1,000 materials answered, 1,001 a 422; bad fields named', async () => {
      const many = (n: number) => Array.from({ length: n }, (_, i) => ({ fraccion: '7213.91', originario: i % 2 === 0, valor: '1.00' }));
      assert.equal((await post({ ...screws, materiales: many(1000) })).status, 200);
      const over = await post({ ...screws, materiales: many(1001) });
      assert.equal(over.status, 422);
      assert.deepEqual([over.body.detail![0]!.loc, over.body.detail![0]!.type], [['body', 'materiales'], 'too_long']);
      const bad = await post({ ...screws, materiales: [{ fraccion: 'abc', originario: false, valor: '1.00' }] });
      assert.deepEqual(bad.body.detail![0]!.loc, ['body', 'materiales', 0, 'fraccion']);
      const money = await post({ ...screws, materiales: [{ fraccion: '7213', originario: false, valor: '1.001' }] });
      assert.deepEqual(money.body.detail![0]!.loc, ['body', 'materiales', 0, 'valor']);
      assert.equal((await post({ ...screws, fraccion: '99999999', materiales: [] })).status, 404);
      // As contribuciones: a NICO beside an 8-digit fraction, refused when it disagrees with a 10-digit one; other fields ignored.
      assert.equal((await post({ ...screws, nico: '00', pais: 'JPN', materiales: [] })).body.nico, '00');
      const nico = await post({ ...screws, fraccion: '7318159900', nico: '01', materiales: [] });
      assert.deepEqual([nico.status, nico.body.detail![0]!.loc], [422, ['body', 'nico']]);
      assert.equal((await post({ ...screws, acuerdo: 'nada', materiales: [] })).status, 422);
      const tmec = await post({ ...screws, acuerdo: 't-mec', materiales: [] });
      assert.deepEqual([tmec.status, tmec.body.acuerdo, tmec.body.resultado, tmec.body.reglas], [200, 'T-MEC', 'no_determinable', []]);
      assert.ok(tmec.body.advertencias.includes('Los datos cargados no contienen las reglas de origen de T-MEC.'), tmec.body.advertencias.join('\n'));
    });

    test('hostile bodies never give a 5xx', async () => {
      const json = fc.jsonValue({ maxDepth: 4 });
      const material = fc.record(
        {
          fraccion: fc.oneof(fc.string({ maxLength: 14 }), fc.constantFrom('7213.91', '73', '', '１２', '0'), json),
          originario: fc.oneof(fc.boolean(), json),
          valor: fc.oneof(fc.constantFrom('1.00', '0', '-1', '1e9', '9'.repeat(20)), json),
        },
        { requiredKeys: [] },
      );
      const body = fc.oneof(
        json,
        fc.record(
          {
            fraccion: fc.oneof(fc.constantFrom('84219901', '03044901', '7318.15.99', '0101210100', '', '\u0000'), json),
            acuerdo: fc.oneof(fc.constantFrom('TIPAT', UK, 'tipat', 't-mec', "' OR 1=1"), json),
            fecha: fc.oneof(fc.constantFrom('2025-06-02', '2001-01-01', '2024-02-31'), json),
            valores: fc.oneof(
              fc.record({ valor_transaccion: fc.constantFrom('0', '0.00', '1000.00', '1'), costo_neto: fc.constantFrom('0', '5') }, { requiredKeys: [] }),
              json,
            ),
            totalmente_obtenido: fc.oneof(fc.boolean(), json),
            entrada: fc.oneof(fc.integer({ min: -2, max: 10 }), json),
            materiales: fc.oneof(fc.array(material, { maxLength: 5 }), json),
          },
          { requiredKeys: [] },
        ),
      );
      await fc.assert(
        fc.asyncProperty(body, async (b) => {
          const { status } = await post(b);
          assert.ok(status < 500, `${status} for ${JSON.stringify(b)}`);
        }),
        { numRuns: 150 },
      );
    });
  });
}
