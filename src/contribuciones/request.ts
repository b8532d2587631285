/**
 * The normalised parameters of `POST /api/v1/contribuciones` from its body once the schema (schema.ts) has accepted
 * it: the rules a schema cannot say, each failure in Pydantic's shapes (../shared/spec/contribuciones.md,
 * "Errors") and all of them in one 422, then the body's values as the computation takes them. Amounts
 * stay decimal strings until they become exact decimals here; the schema refuses a JSON number, so no
 * client loses cents to floating point.
 */
import type { ValidationDetail } from '../errors.js';
import { RequestValidationError, valueError } from '../errors.js';
import { readFraction } from '../fraccion.js';
import type { Dec } from './money.js';
import { Dec as Decimal } from './money.js';
import type { ContribucionesBody, PartidaBody } from './schema.js';

export interface Partida {
  /** The 8 digits of the fraction. */
  readonly fraccion: string;
  /** The NICO given in `fraccion` or `nico`, if any. */
  readonly nico: string | undefined;
  readonly valorAduana: Dec;
  readonly cantidadUmt: Dec | null;
  readonly certificadoOrigen: boolean;
  readonly sectorProsec: string | undefined;
  readonly exportador: string | undefined;
}

export interface ContribucionesRequest {
  readonly fecha: string;
  readonly paisOrigen: string;
  readonly regimen: NonNullable<ContribucionesBody['regimen']>;
  readonly tipoCambio: Dec | null;
  readonly partidas: readonly Partida[];
}

const FRACTION_PATTERN = '^[0-9]{8}([0-9]{2})?$';
const ROMAN = 'I II III IV V VI VII VIII IX X XI XII XIII XIV XV XVI XVII XVIII XIX XX XXI XXII XXIII XXIV'.split(' ');
const SECTOR_PATTERN = `^(${ROMAN.join('|')})$`;

function partida(item: PartidaBody, loc: (string | number)[], errors: ValidationDetail[]): Partida | undefined {
  const typed = readFraction(item.fraccion);
  if (typed === null) {
    errors.push({
      type: 'string_pattern_mismatch',
      loc: [...loc, 'fraccion'],
      msg: 'A line is one fraction: 8 digits, or 10 for fraction + NICO; dots and spaces are ignored',
      input: item.fraccion,
      ctx: { pattern: FRACTION_PATTERN },
    });
  }
  const nico = item.nico ?? undefined;
  if (nico !== undefined && typed !== null && typed.nico !== null && nico !== typed.nico) {
    errors.push(valueError('NICO_MISMATCH', [...loc, 'nico'], nico, { nico: typed.nico }));
  }
  const sector = item.sector_prosec?.trim().toUpperCase();
  if (sector !== undefined && !ROMAN.includes(sector)) {
    errors.push({
      type: 'string_pattern_mismatch',
      loc: [...loc, 'sector_prosec'],
      msg: `String should match pattern '${SECTOR_PATTERN}'`,
      input: item.sector_prosec,
      ctx: { pattern: SECTOR_PATTERN },
    });
  }
  if (typed === null) return undefined;
  return {
    fraccion: typed.fraccion,
    nico: typed.nico ?? nico,
    valorAduana: new Decimal(item.valor_aduana),
    cantidadUmt: item.cantidad_umt == null ? null : new Decimal(item.cantidad_umt),
    certificadoOrigen: item.certificado_origen ?? false,
    sectorProsec: sector,
    exportador: item.exportador?.trim() || undefined,
  };
}

/** The parameters a checked body gives (`today` when it names no date), or a RequestValidationError naming every rule it breaks. */
export function contribucionesParameters(body: ContribucionesBody, today: string): ContribucionesRequest {
  const errors: ValidationDetail[] = [];
  const tipoCambio = body.tipo_cambio == null ? null : new Decimal(body.tipo_cambio);
  if (tipoCambio?.isZero())
    errors.push({ type: 'greater_than', loc: ['body', 'tipo_cambio'], msg: 'Input should be greater than 0', input: body.tipo_cambio, ctx: { gt: 0 } });
  const partidas = body.partidas.map((item, i) => partida(item, ['body', 'partidas', i], errors));
  if (errors.length > 0) throw new RequestValidationError(errors);
  return {
    fecha: body.fecha ?? today,
    paisOrigen: body.pais_origen.toUpperCase(),
    regimen: body.regimen ?? 'definitivo',
    tipoCambio,
    partidas: partidas.filter((p): p is Partida => p !== undefined),
  };
}
