/**
 * Dataset versions (../shared/spec/versiones.md, docs/adr/0008-dataset-versions.md): every load adds
 * one, kept until removed. The catalog lives beside the users in the main database; the newest
 * import's record sets are where the single dataset always was (the SQLite file at the path, the
 * tables of the current schema), and every older version is moved whole to a file of its own or a
 * schema of its own by the load that supersedes it. Pure rules here; the drivers store them.
 */
import type { Dialect } from './sql.js';

export interface VersionInfo {
  /** `YYYY-MM-DD.N`: the date it is in force from, and its rank among the versions of that date. */
  readonly version: string;
  readonly vigenteDesde: string;
  readonly fuente: string;
  readonly importado: string;
  readonly hash: string;
  readonly conteos: Readonly<Record<string, number>>;
  /** Import order: the highest is the newest import, whose record sets are the main tables. */
  readonly seq: number;
}

export const VERSIONS_DDL = `CREATE TABLE IF NOT EXISTS "dataset_versions" (
  "version" TEXT PRIMARY KEY,
  "vigente_desde" TEXT NOT NULL,
  "fuente" TEXT NOT NULL,
  "importado" TEXT NOT NULL,
  "hash" TEXT NOT NULL,
  "conteos" TEXT NOT NULL,
  "seq" INTEGER NOT NULL
)`;

/** A version as the contract shows it (`/api/v1/versiones`, `tariff-lookup versions list --json`); `actual` for the current one. */
export function versionJson(v: VersionInfo, current: VersionInfo | null | undefined) {
  return {
    version: v.version,
    vigente_desde: v.vigenteDesde,
    fuente: v.fuente,
    importado: v.importado,
    hash: v.hash,
    conteos: v.conteos,
    actual: v.version === current?.version,
  };
}

export const VERSIONS_SELECT = 'SELECT "version", "vigente_desde", "fuente", "importado", "hash", "conteos", "seq" FROM "dataset_versions"';

export function versionInsert(dialect: Dialect): string {
  const p = Array.from({ length: 7 }, (_, i) => dialect.placeholder(i + 1)).join(', ');
  return `INSERT INTO "dataset_versions" ("version", "vigente_desde", "fuente", "importado", "hash", "conteos", "seq") VALUES (${p})`;
}

export const versionValues = (v: VersionInfo): (string | number)[] => [
  v.version,
  v.vigenteDesde,
  v.fuente,
  v.importado,
  v.hash,
  JSON.stringify(v.conteos),
  v.seq,
];

export interface VersionRow {
  readonly version: string;
  readonly vigente_desde: string;
  readonly fuente: string;
  readonly importado: string;
  readonly hash: string;
  readonly conteos: string;
  readonly seq: number | string;
}

export function toVersionInfo(row: VersionRow): VersionInfo {
  return {
    version: row.version,
    vigenteDesde: row.vigente_desde,
    fuente: row.fuente,
    importado: row.importado,
    hash: row.hash,
    conteos: JSON.parse(row.conteos) as Record<string, number>,
    seq: Number(row.seq),
  };
}

/**
 * A dataset loaded before versions existed (or by a build that names no date) is one version in
 * force since always, so that every date finds it and nothing a client saw changes.
 */
export const SINCE_ALWAYS = '1900-01-01';

const MEXICO_CITY = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Mexico_City', year: 'numeric', month: '2-digit', day: '2-digit' });

/** The calendar date in Mexico City at `moment`, `YYYY-MM-DD`: the day a version is in force in. */
export const mexicoCityDate = (moment: Date): string => MEXICO_CITY.format(moment);

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const daysIn = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/**
 * Whether `text` is a real calendar date written `YYYY-MM-DD`, for every year 0001–9999 (the
 * proleptic Gregorian calendar, as Python's `date` reads it). Worked out by hand: `Date.UTC` takes
 * years 0–99 for 1900–1999.
 */
export function isIsoDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

/** Newest `vigente_desde` first; among equal dates the latest import first. */
export const byRecency = (a: VersionInfo, b: VersionInfo): number =>
  a.vigenteDesde === b.vigenteDesde ? b.seq - a.seq : a.vigenteDesde < b.vigenteDesde ? 1 : -1;

/** The version in force on `date`: the latest `vigente_desde` not after it, the latest import among equals. */
export function inForce(catalog: readonly VersionInfo[], date: string): VersionInfo | undefined {
  let best: VersionInfo | undefined;
  for (const v of catalog) {
    if (v.vigenteDesde > date) continue;
    if (!best || byRecency(v, best) < 0) best = v;
  }
  return best;
}

/** The identifier of a new version in force from `vigenteDesde`. */
export function nextVersionId(catalog: readonly VersionInfo[], vigenteDesde: string): string {
  const ranks = catalog.filter((v) => v.vigenteDesde === vigenteDesde).map((v) => Number(v.version.split('.')[1] ?? 0));
  return `${vigenteDesde}.${Math.max(0, ...ranks) + 1}`;
}

/** The newest import: its record sets are the main tables. */
export const newestImport = (catalog: readonly VersionInfo[]): VersionInfo | undefined =>
  catalog.reduce<VersionInfo | undefined>((a, v) => (a === undefined || v.seq > a.seq ? v : a), undefined);

/**
 * The versions that DATASET_VERSIONS_KEEP leaves no room for: the oldest in force first, never the
 * one in force today and never the newest import (whose record sets are the main tables).
 */
export function beyondKeep(catalog: readonly VersionInfo[], keep: number, today: string): VersionInfo[] {
  if (keep <= 0 || catalog.length <= keep) return [];
  const protectedOnes = new Set([inForce(catalog, today)?.version, newestImport(catalog)?.version]);
  const oldestFirst = [...catalog].sort(byRecency).reverse();
  return oldestFirst.filter((v) => !protectedOnes.has(v.version)).slice(0, catalog.length - keep);
}
