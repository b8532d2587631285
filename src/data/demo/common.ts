/** The smallest pieces every demo module reads its sources with: a CSV's rows and a column's text. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';

export type Row = Readonly<Record<string, string | undefined>>;
export type Rec = Record<string, unknown>;

export function readCsv(dir: string, file: string, columns: readonly string[]): Row[] {
  const text = readFileSync(join(dir, file), 'utf8');
  const rows = parse<Record<string, string>>(text, { columns: true, bom: true, skip_empty_lines: true });
  const first = rows[0];
  if (!first) throw new Error(`demo source ${file} is empty`);
  // A renamed column would otherwise turn a whole field silently into nulls.
  for (const c of columns) if (!(c in first)) throw new Error(`demo source ${file} has no column ${c}`);
  return rows;
}

export const col = (row: Row, name: string): string => (row[name] ?? '').trim();

export const charCount = (s: string): number => [...s].length;

/** The TIGIE 2012 import and export duties of a fraction, as written. */
export interface Igi {
  readonly igi: string;
  readonly ige: string;
}
