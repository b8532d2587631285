/**
 * Properties of the arithmetic for random valid requests, on the pure computation (no HTTP): every
 * total is the sum of its lines, IVA is 16 % of its base, every `importe` is its `importe_exacto`
 * rounded as CFF art. 20 says, and no amount is a centavo off an independent computation in integer
 * centavos (BigInt), for customs values up to 10^12 pesos.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { computeContribuciones } from '../../src/contribuciones/compute.js';
import { Dec } from '../../src/contribuciones/money.js';
import type { ContribucionesRequest } from '../../src/contribuciones/request.js';
import type { Source } from '../../src/contribuciones/sources.js';
import { contribucionesSources } from '../../src/contribuciones/sources.js';
import { loadTables } from '../../src/contribuciones/tables.js';
import { recordSets } from '../../src/record-sets/index.js';
import type { Row } from '../../src/store/store.js';

const sources = contribucionesSources(recordSets);
const tables = loadTables();
const fracciones = sources.find((s) => s.rs.path === 'fracciones')!;
const tlcs = sources.find((s) => s.rs.path === 'tlcs')!;

/** Half up in integer arithmetic: n / d rounded to the nearest integer, halves away from zero (n, d ≥ 0). */
const divHalfUp = (n: bigint, d: bigint): bigint => (2n * n + d) / (2n * d);
/** Centavos to whole pesos as CFF art. 20: 1 to 50 centavos down, 51 to 99 up. */
const cff = (cents: bigint): bigint => cents / 100n + (cents % 100n > 50n ? 1n : 0n);
const cents = (text: string): bigint => BigInt(text.replace('.', ''));

interface Case {
  readonly values: string[];
  readonly igi: string;
  readonly tlc: string;
}

const money = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 99 })).map(([pesos, c]) => `${pesos}.${String(c).padStart(2, '0')}`);
const rate = fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 99 })).map(([i, d]) => `${i}.${String(d).padStart(2, '0')}`);
const cases = fc.record({ values: fc.array(money, { minLength: 1, maxLength: 6 }), igi: rate, tlc: rate });

function run(c: Case) {
  const rows = (rs: Source, row: Row): Map<Source, Row[]> => new Map(sources.map((s) => [s, s === rs ? [row] : []]));
  const tariff: Row = { SYSID: 1, FRACCION: '01012101', NICO: '00', ADVIMPONUM: c.igi, ADVIMPOTXT: `${c.igi}%`, DESCRIPCION: 'x', UMABREVIACION: 'KG' };
  const records = new Map([['01012101', rows(fracciones, tariff)]]);
  records.get('01012101')!.set(tlcs, [{ SYSID: 1, FRACCION: '01012101', PAIS: 'JPN', TASA1NUM: c.tlc }]);
  const request: ContribucionesRequest = {
    fecha: '2024-06-03',
    paisOrigen: 'JPN',
    regimen: 'definitivo',
    tipoCambio: null,
    partidas: c.values.map((v) => ({
      fraccion: '01012101',
      nico: '00',
      valorAduana: new Dec(v),
      cantidadUmt: null,
      certificadoOrigen: true,
      sectorProsec: undefined,
      exportador: undefined,
    })),
  };
  return computeContribuciones(request, sources, records, tables);
}

test('totals are the sums of their lines; IVA is 16 % of its base; importes are CFF-rounded; nothing a centavo off', () => {
  fc.assert(
    fc.property(cases, (c) => {
      const answer = run(c);
      const minimum = 425n * 100n;
      const dtaExact = c.values.map((v) => divHalfUp(cents(v) * 8n, 1000n));
      const underMinimum = c.values.reduce((a, v) => a + cents(v) * 8n, 0n) < minimum * 1000n;
      let general = 0n;
      let best = 0n;
      answer.partidas.forEach((partida, i) => {
        const v = cents(c.values[i]!);
        const totals = partida.opciones.map((o) => {
          for (const line of o.contribuciones) assert.equal(BigInt(line.importe), cff(cents(line.importe_exacto)), `${line.clave} rounding`);
          const [igi, dta, iva] = o.contribuciones;
          const rateBp = cents(o.tratamiento === 'general' ? c.igi : c.tlc);
          assert.equal(cents(igi!.importe_exacto), divHalfUp(v * rateBp, 10000n), 'IGI to the centavo');
          if (!underMinimum) assert.equal(cents(dta!.importe_exacto), dtaExact[i], 'DTA 8 al millar to the centavo');
          const ivaBase = v + 100n * (BigInt(igi!.importe) + BigInt(dta!.importe));
          assert.equal(cents(iva!.base), ivaBase, 'IVA base');
          assert.equal(cents(iva!.importe_exacto), divHalfUp(ivaBase * 16n, 100n), 'IVA 16 % of its base');
          const total = o.contribuciones.reduce((a, l) => a + BigInt(l.importe), 0n);
          assert.equal(BigInt(o.total), total, 'total = sum of importes');
          return total;
        });
        general += totals[0]!;
        best += totals.reduce((a, t) => (t < a ? t : a));
      });
      assert.deepEqual(answer.totales, { general: String(general), mejor: String(best) });
      if (underMinimum) {
        const dta = answer.partidas.map((p) => p.opciones[0]!.contribuciones[1]!);
        assert.equal(
          dta.reduce((a, l) => a + cents(l.importe_exacto), 0n),
          minimum,
          'DTA shares add up to the minimum to the centavo',
        );
        assert.equal(
          dta.reduce((a, l) => a + BigInt(l.importe), 0n),
          425n,
          'and in whole pesos',
        );
      }
    }),
    { numRuns: 400 },
  );
});

test('CFF art. 20 at the edges: 50 centavos go down, 51 up', () => {
  const at = (value: string) => run({ values: [value], igi: '100.00', tlc: '0.00' }).partidas[0]!.opciones[0]!.contribuciones[0]!;
  assert.deepEqual([at('1000000.50').importe, at('1000000.51').importe, at('999999999999.50').importe], ['1000000', '1000001', '999999999999']);
});

test("the DTA minimum's shares pay what their centavos round to, and add up to the minimum in both", () => {
  // Rounded one by one, these shares (172.76, 28.51, 223.73) would pay 173 + 29 + 224 = 426 pesos.
  const dta = run({ values: ['2.00', '0.33', '2.59'], igi: '0.00', tlc: '0.00' }).partidas.map((p) => p.opciones[0]!.contribuciones[1]!);
  for (const line of dta) assert.equal(BigInt(line.importe), cff(cents(line.importe_exacto)), `${line.importe_exacto} paid as ${line.importe}`);
  assert.equal(
    dta.reduce((a, l) => a + cents(l.importe_exacto), 0n),
    42500n,
  );
  assert.equal(
    dta.reduce((a, l) => a + BigInt(l.importe), 0n),
    425n,
  );
  assert.deepEqual(
    dta.map((l) => l.tipo),
    ['cuota minima', 'cuota minima', 'cuota minima'],
  );
});
