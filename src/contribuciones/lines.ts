/**
 * One contribution line of an option (IGI, DTA, CC, IEPS, IVA) and the rates read from records.
 * `importe_exacto` is the exact amount to the centavo (half up); `importe` is what is paid, in whole
 * pesos (CFF art. 20); its shape is the answer's schema (schema.ts). Rules and their legal basis:
 * docs/contribuciones.md.
 */
import type { Dec } from './money.js';
import { HUNDRED, ZERO, centavos, money, pesos, rateText, whole } from './money.js';
import type { Contribucion } from './schema.js';
import type { SourceRef } from './sources.js';

export type { Contribucion } from './schema.js';
export type Clave = Contribucion['clave'];
export type Tipo = Contribucion['tipo'];
export type Fuente = SourceRef | { readonly tabla: string; readonly fila?: number };

/** A line with its amounts as decimals, kept beside the written one for the bases of later lines. */
export interface Computed {
  readonly line: Contribucion;
  readonly importe: Dec;
}

export interface Specific {
  /** Amount per unit, in `currency`. */
  readonly amount: Dec;
  readonly unit: string;
  /** Pesos per unit of currency; 1 for pesos. */
  readonly exchange: Dec;
  readonly quantity: Dec;
}

export interface LineFacts {
  readonly clave: Clave;
  readonly base: Dec;
  readonly rate?: Dec | undefined;
  readonly specific?: Specific | undefined;
  readonly fundamento: string;
  readonly fuente: Fuente;
}

/** A line (a `Contribucion`) from its base and rate and/or specific amount: ad valorem, specific, mixed or exempt. */
export function contribucion(f: LineFacts): Computed {
  const adValorem = f.rate ? f.base.times(f.rate).div(HUNDRED) : ZERO;
  const specific = f.specific ? f.specific.amount.times(f.specific.exchange).times(f.specific.quantity) : ZERO;
  const exact = centavos(adValorem.plus(specific));
  const tipo: Tipo = f.rate && f.specific ? 'mixto' : f.specific ? 'especifico' : f.rate?.isZero() ? 'exento' : 'ad valorem';
  return make(f.clave, f.specific && !f.rate ? f.specific.quantity : f.base, tipo, exact, f.fundamento, f.fuente, {
    ...(f.rate && { tasa: rateText(f.rate) }),
    ...(f.specific && { cuota: rateText(f.specific.amount), unidad: f.specific.unit }),
  });
}

export function make(
  clave: Clave,
  base: Dec,
  tipo: Tipo,
  exact: Dec,
  fundamento: string,
  fuente: Fuente,
  rate: { tasa?: string; cuota?: string; unidad?: string },
): Computed {
  const importe = pesos(exact);
  const line: Contribucion = {
    clave,
    base: base.decimalPlaces() > 2 ? rateText(base) : money(base),
    ...rate,
    tipo,
    importe: whole(importe),
    importe_exacto: money(exact),
    fundamento,
    fuente,
  };
  return { line, importe };
}

export const sum = (values: readonly Dec[]): Dec => values.reduce((a, v) => a.plus(v), ZERO);
