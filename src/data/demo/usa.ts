/** fracciones-usa: every line of the US HTS 2024. */
import type { fraccionesUsa as fraccionesUsaSet } from '../../record-sets/fracciones-usa.js';
import type { RowOf } from '../../record-sets/define.js';

import { charCount, col, readCsv } from './sources.js';

/** The HTS CSV writes the unit as a JSON array (`["doz.","kg"]`); shown here as `doz., kg`. */
export function htsUnit(raw: string): string | null {
  if (raw === '') return null;
  let units: unknown;
  try {
    units = JSON.parse(raw);
  } catch {
    return raw;
  }
  if (!Array.isArray(units)) return raw;
  const parts = units.map((u) => (typeof u === 'string' ? u.trim() : '')).filter((u) => u !== '');
  return parts.length > 0 ? parts.join(', ') : null;
}

export const HTS_RATE_MAX = 250;

export function cutAt(text: string, max: number): string {
  return [...text].slice(0, max - 1).join('') + '…';
}

export function fraccionesUsa(dir: string): RowOf<typeof fraccionesUsaSet>[] {
  const rows = readCsv(dir, 'us-hts-2024/hts_2024_basic_edition_csv.csv', [
    'HTS Number',
    'Indent',
    'Description',
    'Unit of Quantity',
    'General Rate of Duty',
    'Special Rate of Duty',
    'Column 2 Rate of Duty',
    'Additional Duties',
  ]);
  return rows.map((r, i) => {
    const number = col(r, 'HTS Number');
    const digits = number.replace(/\D/g, '');
    // The printed schedule shows the statistical suffix apart from the 8-digit subheading.
    const shown = digits.length === 10 ? `${number.slice(0, 10)} ${number.slice(11)}` : number;
    const notes: string[] = [];
    const additional = col(r, 'Additional Duties');
    if (additional) notes.push(`Additional duties: ${additional}`);
    const rate = (name: string, label: string): string | null => {
      const value = col(r, name);
      if (value === '') return null;
      if (charCount(value) <= HTS_RATE_MAX) return value;
      notes.push(`${label} (full text): ${value}`);
      return cutAt(value, HTS_RATE_MAX);
    };
    const general = rate('General Rate of Duty', 'General rate of duty');
    const column2 = rate('Column 2 Rate of Duty', 'Column 2 rate of duty');
    return {
      CONSECUTIVO: i + 1,
      FRACCION_SIN_PUNTO: digits || null,
      FRACCION_CON_PUNTO: number || null,
      FRACCION_MOSTRAR: shown || null,
      NIVEL: Number(col(r, 'Indent')),
      DESCRIPCION: col(r, 'Description') || null,
      UNIDADCANTIDAD: htsUnit(col(r, 'Unit of Quantity')),
      TARIFA1: general,
      TLC: col(r, 'Special Rate of Duty') || null,
      TARIFA2: column2,
      NOTAS: notes.length > 0 ? notes.join('\n') : null,
    };
  });
}
