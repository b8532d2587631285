/**
 * The customs processing fee (DTA, Ley Federal de Derechos art. 49) is a fee of the whole pedimento,
 * shown as each line's share: 8 al millar of the line's customs value; when the sum over all lines is
 * below the fixed minimum in force for the year, the minimum is shared among the lines in proportion
 * to their customs value (equally when all are 0), the last line taking the rounding remainder, so that
 * the shares add up to the minimum both to the centavo and in whole pesos.
 */
import type { Computed } from './lines.js';
import { contribution, make, sum } from './lines.js';
import type { Dec } from './money.js';
import { Dec as Decimal, apportion, centavos, rateText } from './money.js';
import type { Tables } from './tables.js';
import { DTA_TABLE, dtaMinimum, dtaRate } from './tables.js';

export interface DtaShare {
  readonly base: Dec;
  readonly computed: Computed;
}

const THOUSAND = new Decimal(1000);
const wholePesos = (d: Dec): Dec => d.toDecimalPlaces(0, Decimal.ROUND_HALF_UP);

/** Each line's share of the pedimento's DTA under the general treatment; empty when the table has no rate. */
export function dtaPart(tables: Tables, fecha: string, values: readonly Dec[], warnings: string[]): DtaShare[] {
  const rate = dtaRate(tables, fecha);
  if (!rate?.valor) {
    warnings.push(`La tabla del DTA no tiene tasa para ${fecha}: no se calcula el DTA.`);
    return [];
  }
  const permille = rate.valor;
  const fuente = { tabla: DTA_TABLE, fila: rate.fila };
  const exact = values.map((v) => v.times(permille).div(THOUSAND));
  const minimum = dtaMinimum(tables, fecha);
  if (minimum && !minimum.exact) {
    warnings.push(
      `La tabla del DTA no tiene la cuota mínima de ${fecha.slice(0, 4)}; se usa la de ${(minimum.row.desde ?? '').slice(0, 4)} ($${minimum.row.valor?.toFixed(0) ?? '?'}).`,
    );
  }
  const floor = minimum?.row.valor;
  if (!floor || !sum(exact).lessThan(floor)) {
    return values.map((base) => ({
      base,
      computed: contribution({ clave: 'DTA', base, rate: permille.div(10), fundamento: rate.fundamento, fuente }),
    }));
  }
  const exactShares = apportion(floor, values, centavos);
  const paidShares = apportion(wholePesos(floor), values, wholePesos);
  const minFuente = { tabla: DTA_TABLE, fila: minimum.row.fila };
  return values.map((base, i) => {
    const computed = make('DTA', base, 'cuota minima', exactShares[i]!, minimum.row.fundamento, minFuente, {
      cuota: rateText(floor),
      unidad: 'pesos por pedimento, prorrateados entre las partidas',
    });
    return { base, computed: { line: { ...computed.line, importe: paidShares[i]!.toFixed(0) }, importe: paidShares[i]! } };
  });
}
