/**
 * The body of `POST /api/v1/contribuciones`, checked field by field with Pydantic's error shapes
 * (../shared/spec/contribuciones.md, "Request" and "Errors"): every failing field is reported in one
 * 422, `loc` like `["body", "partidas", 0, "valor_aduana"]`. Amounts stay decimal strings until they
 * become exact decimals here; a JSON number is refused, so no client loses cents to floating point.
 */
import type { ValidationDetail } from '../errors.js';
import { RequestValidationError } from '../errors.js';
import type { Dec } from './money.js';
import { Dec as Decimal } from './money.js';
import { isIsoDate } from '../store/versions.js';

export const MAX_LINES = 500;
export const REGIMES = ['definitivo'] as const;

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
  readonly regimen: (typeof REGIMES)[number];
  readonly tipoCambio: Dec | null;
  readonly partidas: readonly Partida[];
}

/** Decimal strings: 1 to 13 ASCII digits, then at most `scale` decimals; no sign, exponent or grouping. */
export const DECIMAL_PATTERNS = {
  money: '^\\d{1,13}(\\.\\d{1,2})?$',
  quantity: '^\\d{1,13}(\\.\\d{1,3})?$',
  exchangeRate: '^\\d{1,13}(\\.\\d{1,4})?$',
} as const;
const FRACTION_PATTERN = '^[0-9]{8}([0-9]{2})?$';
const NICO_PATTERN = '^[0-9]{2}$';
const COUNTRY_PATTERN = '^[A-Za-z]{3}$';
const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';
const MAX_EXPORTER = 300;
const ROMAN = [
  'I',
  'II',
  'III',
  'IV',
  'V',
  'VI',
  'VII',
  'VIII',
  'IX',
  'X',
  'XI',
  'XII',
  'XIII',
  'XIV',
  'XV',
  'XVI',
  'XVII',
  'XVIII',
  'XIX',
  'XX',
  'XXI',
  'XXII',
  'XXIII',
  'XXIV',
];
const SECTOR_PATTERN = `^(${ROMAN.join('|')})$`;

type Loc = (string | number)[];
type Obj = Record<string, unknown>;

const patterns = new Map<string, RegExp>();
const compiled = (pattern: string): RegExp => {
  let re = patterns.get(pattern);
  if (!re) patterns.set(pattern, (re = new RegExp(pattern)));
  return re;
};

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Longest input written back in an error, as JSON. */
const MAX_ECHO = 2000;

/**
 * The input as an error repeats it (Pydantic does), unless it is too large or too deeply nested to
 * write back: a 1 MiB body or ten thousand nested arrays are named, not repeated.
 */
function echo(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  try {
    if (JSON.stringify(value).length <= MAX_ECHO) return value;
  } catch {
    // Nested too deeply to be written: described below.
  }
  return Array.isArray(value) ? `a list of ${value.length} items` : 'an object too large to repeat';
}

class Checker {
  readonly errors: ValidationDetail[] = [];

  fail(type: string, loc: Loc, msg: string, input: unknown, ctx?: Record<string, unknown>): undefined {
    this.errors.push(ctx ? { type, loc, msg, input: echo(input), ctx } : { type, loc, msg, input: echo(input) });
    return undefined;
  }

  /** A field's value, or undefined (and an error when required) when absent or null. */
  present(parent: Obj, name: string, loc: Loc, required: boolean): unknown {
    const value = Object.hasOwn(parent, name) ? parent[name] : undefined;
    if (value === undefined || (value === null && required)) {
      return required ? this.fail('missing', [...loc, name], 'Field required', parent) : undefined;
    }
    return value === null ? undefined : value;
  }

  string(value: unknown, loc: Loc): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string') return this.fail('string_type', loc, 'Input should be a valid string', value);
    return value;
  }

  pattern(value: unknown, loc: Loc, pattern: string, test: (s: string) => boolean = (s) => compiled(pattern).test(s)): string | undefined {
    const s = this.string(value, loc);
    if (s === undefined) return undefined;
    if (!test(s)) return this.fail('string_pattern_mismatch', loc, `String should match pattern '${pattern}'`, s, { pattern });
    return s;
  }

  decimal(value: unknown, loc: Loc, pattern: string): Dec | null {
    const s = this.pattern(value, loc, pattern);
    return s === undefined ? null : new Decimal(s);
  }

  boolean(value: unknown, loc: Loc): boolean {
    if (value === undefined) return false;
    if (typeof value !== 'boolean') return this.fail('bool_type', loc, 'Input should be a valid boolean', value) ?? false;
    return value;
  }
}

function parsePartida(c: Checker, item: unknown, loc: Loc): Partida | undefined {
  if (!isObject(item)) return c.fail('model_type', loc, 'Input should be a valid dictionary or object to extract fields from', item);
  const rawFraction = c.string(c.present(item, 'fraccion', loc, true), [...loc, 'fraccion']);
  let fraccion: string | undefined;
  let nico: string | undefined;
  if (rawFraction !== undefined) {
    const digits = rawFraction.replace(/[.\s]/g, '');
    if (/^\d{8}(\d{2})?$/.test(digits)) {
      fraccion = digits.slice(0, 8);
      nico = digits.length === 10 ? digits.slice(8) : undefined;
    } else {
      c.fail(
        'string_pattern_mismatch',
        [...loc, 'fraccion'],
        'A line is one fraction: 8 digits, or 10 for fraction + NICO; dots and spaces are ignored',
        rawFraction,
        {
          pattern: FRACTION_PATTERN,
        },
      );
    }
  }
  const givenNico = c.pattern(c.present(item, 'nico', loc, false), [...loc, 'nico'], NICO_PATTERN);
  if (givenNico !== undefined && nico !== undefined && givenNico !== nico) {
    c.fail('value_error', [...loc, 'nico'], `Value error, the NICO disagrees with the one in fraccion (${nico})`, givenNico);
  }
  const valorAduana = c.decimal(c.present(item, 'valor_aduana', loc, true), [...loc, 'valor_aduana'], DECIMAL_PATTERNS.money);
  const cantidadUmt = c.decimal(c.present(item, 'cantidad_umt', loc, false), [...loc, 'cantidad_umt'], DECIMAL_PATTERNS.quantity);
  const certificadoOrigen = c.boolean(c.present(item, 'certificado_origen', loc, false), [...loc, 'certificado_origen']);
  const sector = c.pattern(c.present(item, 'sector_prosec', loc, false), [...loc, 'sector_prosec'], SECTOR_PATTERN, (s) =>
    ROMAN.includes(s.trim().toUpperCase()),
  );
  const exportador = c.string(c.present(item, 'exportador', loc, false), [...loc, 'exportador']);
  if (exportador !== undefined && exportador.length > MAX_EXPORTER) {
    c.fail('string_too_long', [...loc, 'exportador'], `String should have at most ${MAX_EXPORTER} characters`, exportador, { max_length: MAX_EXPORTER });
  }
  if (fraccion === undefined || valorAduana === null) return undefined;
  return {
    fraccion,
    nico: nico ?? givenNico,
    valorAduana,
    cantidadUmt,
    certificadoOrigen,
    sectorProsec: sector?.trim().toUpperCase(),
    exportador: exportador?.trim() || undefined,
  };
}

function parseLines(c: Checker, value: unknown): Partida[] {
  const loc: Loc = ['body', 'partidas'];
  if (value === undefined) return [];
  if (!Array.isArray(value)) return c.fail('list_type', loc, 'Input should be a valid list', value) ?? [];
  if (value.length === 0) {
    return (
      c.fail('too_short', loc, 'List should have at least 1 item after validation, not 0', value, { field_type: 'List', min_length: 1, actual_length: 0 }) ?? []
    );
  }
  if (value.length > MAX_LINES) {
    const msg = `List should have at most ${MAX_LINES} items after validation, not ${value.length}`;
    return c.fail('too_long', loc, msg, value, { field_type: 'List', max_length: MAX_LINES, actual_length: value.length }) ?? [];
  }
  return value.flatMap((item, i) => parsePartida(c, item, [...loc, i]) ?? []);
}

/** The checked request, or a RequestValidationError naming every field that is wrong. */
export function parseRequest(body: unknown, today: string): ContribucionesRequest {
  const c = new Checker();
  if (!isObject(body)) {
    c.fail('model_attributes_type', ['body'], 'Input should be a valid dictionary or object to extract fields from', body ?? null);
    throw new RequestValidationError(c.errors);
  }
  const fecha = c.pattern(c.present(body, 'fecha', ['body'], false), ['body', 'fecha'], DATE_PATTERN);
  if (fecha !== undefined && !isIsoDate(fecha)) c.fail('date_parsing', ['body', 'fecha'], 'Input should be a valid date in the format YYYY-MM-DD', fecha);
  const pais = c.pattern(c.present(body, 'pais_origen', ['body'], true), ['body', 'pais_origen'], COUNTRY_PATTERN);
  const regimen = c.string(c.present(body, 'regimen', ['body'], false), ['body', 'regimen']) ?? 'definitivo';
  if (!(REGIMES as readonly string[]).includes(regimen)) {
    const expected = REGIMES.map((r) => `'${r}'`).join(' or ');
    c.fail('literal_error', ['body', 'regimen'], `Input should be ${expected}`, regimen, { expected });
  }
  const tipoCambio = c.decimal(c.present(body, 'tipo_cambio', ['body'], false), ['body', 'tipo_cambio'], DECIMAL_PATTERNS.exchangeRate);
  if (tipoCambio?.isZero()) c.fail('greater_than', ['body', 'tipo_cambio'], 'Input should be greater than 0', body['tipo_cambio'], { gt: 0 });
  const partidas = parseLines(c, c.present(body, 'partidas', ['body'], true));
  if (c.errors.length > 0) throw new RequestValidationError(c.errors);
  return {
    fecha: fecha ?? today,
    paisOrigen: pais!.toUpperCase(),
    regimen: 'definitivo',
    tipoCambio,
    partidas,
  };
}
