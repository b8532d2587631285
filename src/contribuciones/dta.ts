/**
 * The customs processing fee (DTA, Ley Federal de Derechos art. 49) is a fee of the whole pedimento,
 * shown as each line's share: 8 al millar of the line's customs value; when the sum over all lines is
 * below the fixed minimum in force for the year, the minimum is shared among the lines in proportion
 * to their customs value (equally when all are 0), the last line taking the rounding remainder, so that
 * the shares add up to the minimum both to the centavo and in whole pesos, every share's whole pesos
 * being its centavos rounded as CFF art. 20 rounds them (minimumShares).
 */
import type { Computed } from './lines.js';
import { contribucion, make, sum } from './lines.js';
import type { Dec } from './money.js';
import { Dec as Decimal, apportion, centavos, pesos, rateText } from './money.js';
import type { Tables } from './tables.js';
import { DTA_TABLE, dtaMinimum, dtaRate } from './tables.js';

export interface DtaShare {
  readonly base: Dec;
  readonly computed: Computed;
}

const THOUSAND = new Decimal(1000);
/** One centavo: past half a peso by this much, CFF art. 20 rounds up. */
const CFF_STEP = new Decimal('0.01');
const HALF = new Decimal('0.5');

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
      computed: contribucion({ clave: 'DTA', base, rate: permille.div(10), fundamento: rate.fundamento, fuente }),
    }));
  }
  const { exactShares, paidShares } = minimumShares(floor, values);
  const minFuente = { tabla: DTA_TABLE, fila: minimum.row.fila };
  return values.map((base, i) => {
    const computed = make('DTA', base, 'cuota minima', exactShares[i]!, minimum.row.fundamento, minFuente, {
      cuota: rateText(floor),
      unidad: 'pesos por pedimento, prorrateados entre las partidas',
    });
    return { base, computed: { line: { ...computed.line, importe: paidShares[i]!.toFixed(0) }, importe: paidShares[i]! } };
  });
}

/**
 * The minimum's shares: to the centavo in proportion to the values, the last line taking the rounding
 * remainder; in whole pesos, each share's centavos rounded as CFF art. 20 rounds a payment. Rounded
 * one by one, the whole pesos can add up to a peso or more off the minimum (three lines of 172.76,
 * 28.51 and 223.73 pay 173 + 29 + 224 = 426): then the shares closest to a rounding boundary are moved
 * across it, the fewest centavos needed, and the centavos they moved are taken back from (or given to)
 * the other shares without moving any of them across theirs. Every share stays within a peso of its
 * proportion, and both sums are the minimum exactly.
 */
function minimumShares(floor: Dec, values: readonly Dec[]): { exactShares: Dec[]; paidShares: Dec[] } {
  const exact = apportion(floor, values, centavos);
  const paid = exact.map(pesos);
  // The centavos each share may hold while its whole pesos stay as they are (CFF: .01 to .50 down).
  const lowest = (i: number): Dec => (paid[i]!.isZero() ? new Decimal(0) : paid[i]!.minus(HALF).plus(CFF_STEP));
  const highest = (i: number): Dec => paid[i]!.plus(HALF);
  let off = pesos(floor).minus(sum(paid)).toNumber();
  const step = off > 0 ? 1 : -1;
  let moved = new Decimal(0);
  const fixed = new Set<number>();
  while (off !== 0) {
    // The share that reaches the next whole peso up (or down) for the fewest centavos.
    let best = -1;
    let cost = new Decimal(Infinity);
    exact.forEach((e, i) => {
      if (fixed.has(i) || (step < 0 && paid[i]!.isZero())) return;
      const needed = step > 0 ? highest(i).plus(CFF_STEP).minus(e) : e.minus(lowest(i).minus(CFF_STEP));
      if (needed.lessThan(cost)) [best, cost] = [i, needed];
    });
    if (best < 0) break;
    paid[best] = paid[best]!.plus(step);
    const target = step > 0 ? lowest(best) : highest(best);
    moved = moved.plus(target.minus(exact[best]!));
    exact[best] = target;
    fixed.add(best);
    off -= step;
  }
  // Give back what the moved shares took (or took less), within every other share's room.
  for (let i = 0; i < exact.length && !moved.isZero(); i++) {
    if (fixed.has(i)) continue;
    const room = moved.greaterThan(0) ? Decimal.min(moved, exact[i]!.minus(lowest(i))) : Decimal.max(moved, exact[i]!.minus(highest(i)));
    exact[i] = exact[i]!.minus(room);
    moved = moved.minus(room);
  }
  return { exactShares: exact, paidShares: paid };
}
