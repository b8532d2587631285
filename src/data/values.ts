/**
 * Checking and normalising one value against its field type: the single place that decides what a
 * stored value looks like, used by every loader (demo build, import).
 */
import type { Field } from '../record-sets/define.js';

export type StoredValue = string | number | null;
export type Checked = { readonly ok: true; readonly value: StoredValue } | { readonly ok: false; readonly reason: string };

const ok = (value: StoredValue): Checked => ({ ok: true, value });
const fail = (reason: string): Checked => ({ ok: false, reason });

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;
const DATE8 = /^\d{8}$/;

/** Characters as a person counts them (code points), not UTF-16 units. */
export function characterCount(s: string): number {
  return Array.from(s).length;
}

/** PostgreSQL text cannot hold NUL, so neither store takes it: the same data loads into both. */
const NUL = (field: Field): string => `${field.name}: contains a NUL character`;

const show = (raw: unknown): string => (typeof raw === 'string' ? raw : JSON.stringify(raw));

/** A decimal written with exactly `scale` digits after the point, or null when it does not fit. */
export function canonicalDecimal(raw: string, precision: number, scale: number): string | null {
  const m = DECIMAL.exec(raw.trim());
  if (!m) return null;
  const [, sign = '', intDigits = '', fracDigits = ''] = m;
  if (intDigits === '' && fracDigits === '') return null;
  const fraction = fracDigits.replace(/0+$/, '');
  if (fraction.length > scale) return null;
  const integer = intDigits.replace(/^0+(?=\d)/, '') || '0';
  if (integer.length > precision - scale && integer !== '0') return null;
  const body = scale > 0 ? `${integer}.${fraction.padEnd(scale, '0')}` : integer;
  const isZero = /^[0.]+$/.test(body);
  return sign === '-' && !isZero ? `-${body}` : body;
}

export function checkValue(field: Field, raw: unknown): Checked {
  if (raw === null || raw === undefined || raw === '') return ok(null);
  const t = field.type;
  switch (t.kind) {
    case 'int': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && INTEGER.test(raw.trim()) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(n)) return fail(`${field.name}: not an integer: ${show(raw)}`);
      return ok(n);
    }
    case 'dec': {
      const s = typeof raw === 'number' && Number.isFinite(raw) ? numberToPlain(raw) : typeof raw === 'string' ? raw : null;
      const d = s === null ? null : canonicalDecimal(s, t.precision, t.scale);
      if (d === null) return fail(`${field.name}: not a decimal with at most ${t.precision - t.scale} integer and ${t.scale} fraction digits: ${show(raw)}`);
      return ok(d);
    }
    case 'date8': {
      if (typeof raw !== 'string' || !DATE8.test(raw)) return fail(`${field.name}: not a date written YYYYMMDD: ${show(raw)}`);
      return ok(raw);
    }
    case 'str': {
      if (typeof raw !== 'string') return fail(`${field.name}: not text: ${show(raw)}`);
      // A string no longer in UTF-16 units than the limit cannot have more code points: counted only when it might.
      if (raw.length > t.length && characterCount(raw) > t.length) return fail(`${field.name}: longer than ${t.length} characters`);
      return raw.includes('\0') ? fail(NUL(field)) : ok(raw);
    }
    case 'text':
      if (typeof raw !== 'string') return fail(`${field.name}: not text: ${show(raw)}`);
      return raw.includes('\0') ? fail(NUL(field)) : ok(raw);
  }
}

function numberToPlain(n: number): string {
  const s = String(n);
  return /e/i.test(s) && Math.abs(n) < 1e21 ? n.toFixed(20).replace(/\.?0+$/, '') : s;
}
