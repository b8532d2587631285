/**
 * What an import did (src/data/import.ts): the report's shape, as `--json` prints it, and the same
 * for a person, a line per file and per refusal.
 */
import type { CommittedDataset } from '../store/store.js';

/** Refused rows the report lists one by one; the rest are counted. */
export const REFUSALS_LISTED = 1000;

export interface Refusal {
  readonly file: string;
  readonly line: number;
  readonly field: string | null;
  readonly reason: string;
}

export interface FileReport {
  readonly file: string;
  readonly recordSet: string;
  /** Data rows read (the header and empty lines not counted). */
  rows: number;
  imported: number;
  refused: number;
  /** Columns (or JSON keys) that are not fields of the record set: their values are ignored. */
  unknownColumns: string[];
  /** Fields with no column in a CSV header: stored empty. */
  absentColumns: string[];
}

export interface ImportReport {
  readonly directory: string;
  readonly database: string;
  readonly source: string;
  /** Whether the main store's data was replaced. */
  imported: boolean;
  /** Why nothing was imported, naming file and line where there is one. */
  failure: string | null;
  dataset: CommittedDataset | null;
  files: FileReport[];
  /** Record sets with no file, copied as they were from the database being replaced. */
  kept: string[];
  /** Record sets with no file that are now empty (--empty-missing, or no database to keep them from). */
  emptied: string[];
  ignored: { file: string; reason: string }[];
  /** The rules of origin the version holds: per agreement, its file and how many rule sets. */
  reglasOrigen: { acuerdo: string; archivo: string; conjuntos: number }[];
  refusedRows: number;
  /** The first REFUSALS_LISTED refused rows. */
  refusals: Refusal[];
  seconds: number;
  rowsPerSecond: number;
}

const count = (n: number): string => n.toLocaleString('en-US');

export function formatReport(report: ImportReport): string[] {
  const lines: string[] = [];
  const width = Math.max(0, ...report.files.map((f) => f.file.length));
  for (const f of report.files) {
    lines.push(`${f.file.padEnd(width)}  ${count(f.rows)} rows: ${count(f.imported)} imported, ${count(f.refused)} refused`);
    if (f.unknownColumns.length > 0) lines.push(`  unknown columns, ignored: ${f.unknownColumns.map((c) => c || '(empty name)').join(', ')}`);
    if (f.absentColumns.length > 0) lines.push(`  no column for ${f.absentColumns.join(', ')}: stored empty`);
  }
  for (const i of report.ignored) lines.push(`ignored ${i.file}: ${i.reason}`);
  if (report.dataset && report.reglasOrigen.length > 0)
    lines.push(`rules of origin: ${report.reglasOrigen.map((r) => `${r.acuerdo} (${r.archivo}, ${count(r.conjuntos)} rule sets)`).join(', ')}`);
  if (report.kept.length > 0) lines.push(`kept as they were (no file): ${report.kept.join(', ')}`);
  if (report.emptied.length > 0) lines.push(`empty (no file): ${report.emptied.join(', ')}`);
  if (report.refusedRows > 0) {
    lines.push(`refused rows (${count(report.refusedRows)}):`);
    for (const r of report.refusals) lines.push(`  ${r.file}:${r.line}: ${r.reason}`);
    const unlisted = report.refusedRows - report.refusals.length;
    if (unlisted > 0) lines.push(`  … and ${count(unlisted)} more (only the first ${count(REFUSALS_LISTED)} are listed)`);
  }
  const rows = report.files.reduce((sum, f) => sum + f.rows, 0);
  const speed = `${count(rows)} rows read in ${report.seconds.toFixed(2)} s (${count(report.rowsPerSecond)} rows/s)`;
  if (report.dataset) {
    const total = Object.values(report.dataset.counts).reduce((a, b) => a + b, 0);
    const { version } = report.dataset;
    lines.push(`${speed}; ${report.database} now holds version ${version.version}, in force from ${version.vigenteDesde}: ${count(total)} records from "${report.source}", hash ${report.dataset.hash.slice(0, 16)}`);
  } else {
    lines.push(`${speed}; nothing imported: ${report.database} is unchanged`);
  }
  return lines;
}
