/**
 * Exact decimal money (decimal.js), never floating point. Two roundings: `importe_exacto` to the
 * centavo, half up from the exact product; `importe` to whole pesos as the Código Fiscal de la
 * Federación art. 20 rounds payments (1 to 50 centavos down, 51 to 99 up).
 */
import { Decimal } from 'decimal.js';

/** Enough digits for 13-digit amounts times rates, quantities and exchange rates, with room to spare. */
export const Dec = Decimal.clone({ precision: 80, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -100, toExpPos: 100 });
export type Dec = Decimal;

export const ZERO = new Dec(0);
export const HUNDRED = new Dec(100);

/** To the centavo, half up. */
export const centavos = (d: Decimal): Decimal => d.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

/** To whole pesos from an amount already in centavos: .50 goes down, .51 up (CFF art. 20). */
export const pesos = (exact: Decimal): Decimal => centavos(exact).toDecimalPlaces(0, Decimal.ROUND_HALF_DOWN);

export const money = (d: Decimal): string => d.toFixed(2);
export const whole = (d: Decimal): string => d.toFixed(0);

/** A rate as a decimal string with at least two decimals: `10.00`, `0.36`, `0.616600` keeps its digits. */
export function rateText(d: Decimal): string {
  return d.toFixed(Math.max(2, d.decimalPlaces()));
}

/** A stored decimal (string or number column) or null when empty or not a number. */
export function stored(value: string | number | null | undefined): Decimal | null {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  if (!/^-?\d+(\.\d+)?$/.test(text)) return null;
  return new Dec(text);
}

/** A rate written as text with an optional percent sign (`5.2%`, `Ex.`), or null. */
export function percentText(value: string | number | null | undefined): Decimal | null {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  if (/^ex\.?$/i.test(text)) return ZERO;
  const m = /^(\d+(?:\.\d+)?)\s*%?$/.exec(text);
  return m?.[1] ? new Dec(m[1]) : null;
}

/**
 * Splits `total` over `weights` so that every share is within one unit of its exact proportion, no
 * share is negative, and the shares add up to `total` exactly: each share is the difference of the
 * rounded running totals, so the last one takes what rounding left over. Equal shares when every
 * weight is zero.
 */
export function apportion(total: Decimal, weights: readonly Decimal[], round: (d: Decimal) => Decimal): Decimal[] {
  const sum = weights.reduce((a, w) => a.plus(w), ZERO);
  const n = weights.length;
  const shares: Decimal[] = [];
  let running = ZERO;
  let previous = ZERO;
  weights.forEach((w, i) => {
    running = running.plus(sum.isZero() ? 1 : w);
    const cumulative = i === n - 1 ? total : round(total.times(running).div(sum.isZero() ? n : sum));
    shares.push(cumulative.minus(previous));
    previous = cumulative;
  });
  return shares;
}
