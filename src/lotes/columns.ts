/**
 * A batch's columns and the values of one line (../shared/spec/lotes.md, "Columns"): header names are
 * matched whatever their case, accents and surrounding spaces; a value that cannot be read is said in a
 * Spanish sentence in the line's `error` and left out of what the line is checked for, never refusing the batch.
 */
import { DECIMAL_PATTERNS } from '../contribuciones/decimals.js';
import { readFraction as readTypedFraction } from '../fraccion.js';
import type { Dec } from '../contribuciones/money.js';
import { Dec as Decimal } from '../contribuciones/money.js';

export const COLUMNS = ['referencia', 'descripcion', 'fraccion', 'nico', 'pais_origen', 'valor_aduana', 'cantidad_umt', 'certificado_origen'] as const;
export type Column = (typeof COLUMNS)[number];

export const MAX_REFERENCE = 100;
export const MAX_DESCRIPTION = 1000;

/** A header as the service reads it: lower case, no accents, no surrounding spaces, inner spaces and hyphens as `_`. */
export function columnKey(header: string): string {
  return header
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** Which known column each header is (undefined: an extra column, kept as sent). */
export function knownColumn(header: string): Column | undefined {
  const key = columnKey(header);
  return (COLUMNS as readonly string[]).includes(key) ? (key as Column) : undefined;
}

/** A line as read from the file: the known columns' texts and the others', before any is checked. */
export interface RawLine {
  /** The line's number in the file. */
  readonly linea: number;
  readonly values: Partial<Record<Column, string>>;
  /** The other columns as sent: texts from CSV and XLSX, JSON values (their types kept) from NDJSON. */
  readonly extra: Record<string, unknown>;
}

/** A line's values as its checks use them; null where absent or unreadable. */
export interface ReadLine {
  readonly linea: number;
  readonly referencia: string | null;
  readonly descripcion: string | null;
  readonly extra: Record<string, unknown>;
  /** The 8 digits of the fraction given, or null. */
  readonly fraccion: string | null;
  /** Whether a fraction was given at all, readable or not. */
  readonly fraccionDada: boolean;
  readonly nico: string | null;
  readonly paisOrigen: string | null;
  readonly valorAduana: Dec | null;
  readonly cantidadUmt: Dec | null;
  readonly certificadoOrigen: boolean;
  /** What could not be read, one Spanish sentence each. */
  readonly errores: string[];
}

const TRUE = ['si', 'true', '1', 'verdadero', 'yes', 'x'];
const FALSE = ['no', 'false', '0', 'falso', ''];

const shown = (value: string): string => JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);

/** Checks one line's values; `paisDefecto` is the batch's `pais_origen`, for lines that give none. */
export function readLine(raw: RawLine, paisDefecto: string | null): ReadLine {
  const errores: string[] = [];
  const text = (c: Column): string | null => {
    const v = raw.values[c]?.trim();
    return v === undefined || v === '' ? null : v;
  };
  // The client's own texts come back as sent, spaces, tabs and carriage returns included (a CSV download
  // neutralises them, ../shared/spec/lotes.md); blank is none. The values checked are read trimmed.
  const asSent = (c: Column): string | null => (text(c) === null ? null : raw.values[c]!);
  let referencia = asSent('referencia');
  if (referencia !== null && referencia.length > MAX_REFERENCE) {
    errores.push(`referencia tiene ${referencia.length} caracteres; el máximo es ${MAX_REFERENCE}`);
    referencia = referencia.slice(0, MAX_REFERENCE);
  }
  let descripcion = asSent('descripcion');
  if (descripcion !== null && descripcion.length > MAX_DESCRIPTION) {
    errores.push(`descripcion tiene ${descripcion.length} caracteres; el máximo es ${MAX_DESCRIPTION}`);
    descripcion = descripcion.slice(0, MAX_DESCRIPTION);
  }
  const { fraccion, nico } = readFraction(text('fraccion'), text('nico'), errores);
  const pais = text('pais_origen');
  let paisOrigen = paisDefecto;
  if (pais !== null) {
    if (/^[A-Za-z]{3}$/.test(pais)) paisOrigen = pais.toUpperCase();
    else errores.push(`pais_origen ${shown(pais)} no es una clave de país de 3 letras (Anexo 22)`);
  }
  const valorAduana = readDecimal(text('valor_aduana'), DECIMAL_PATTERNS.money, 'valor_aduana', 'un importe (pesos, hasta 2 decimales, con punto)', errores);
  const cantidadUmt = readDecimal(text('cantidad_umt'), DECIMAL_PATTERNS.quantity, 'cantidad_umt', 'una cantidad (hasta 3 decimales, con punto)', errores);
  const certificado = text('certificado_origen');
  const folded = (certificado ?? '').normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  if (!TRUE.includes(folded) && !FALSE.includes(folded)) errores.push(`certificado_origen ${shown(certificado ?? '')} no es si/no, true/false ni 1/0`);
  if (descripcion === null && text('fraccion') === null) errores.push('la línea no tiene descripcion ni fraccion');
  return {
    linea: raw.linea,
    referencia,
    descripcion,
    extra: raw.extra,
    fraccion,
    fraccionDada: text('fraccion') !== null,
    nico,
    paisOrigen,
    valorAduana,
    cantidadUmt,
    certificadoOrigen: TRUE.includes(folded),
    errores,
  };
}

function readFraction(given: string | null, givenNico: string | null, errores: string[]): { fraccion: string | null; nico: string | null } {
  let fraccion: string | null = null;
  let nico: string | null = null;
  if (given !== null) {
    const read = readTypedFraction(given);
    if (read !== null) {
      fraccion = read.fraccion;
      nico = read.nico;
    } else {
      errores.push(`fraccion ${shown(given)} no es una fracción arancelaria (8 dígitos, o 10 con el NICO)`);
    }
  }
  if (givenNico !== null) {
    if (!/^\d{2}$/.test(givenNico)) errores.push(`nico ${shown(givenNico)} no son 2 dígitos`);
    else if (nico !== null && nico !== givenNico) errores.push(`nico ${shown(givenNico)} no coincide con el de la fracción (${nico})`);
    else nico = givenNico;
  }
  return { fraccion, nico };
}

function readDecimal(value: string | null, pattern: string, column: string, what: string, errores: string[]): Dec | null {
  if (value === null) return null;
  if (new RegExp(pattern).test(value)) return new Decimal(value);
  errores.push(`${column} ${shown(value)} no es ${what}`);
  return null;
}
