/**
 * The rules of origin every version holds (src/reglas-origen/archivos.ts): one row per agreement with
 * its file's name and content (JSON text), written by every load beside the record sets, the same on
 * both stores. The rules are read whole, once per version, and parsed in the process.
 */
import type { ReglasAcuerdo } from '../reglas-origen/archivos.js';
import type { Dialect } from './sql.js';
import { quote } from './sql.js';
import type { Values } from './store.js';

export const REGLAS_ORIGEN_TABLE = 'reglas_origen';

/** `keyText`: how the store names text compared byte by byte (PostgreSQL: COLLATE "C"). */
export const reglasOrigenDdl = (keyText: string): string =>
  `CREATE TABLE ${quote(REGLAS_ORIGEN_TABLE)} ("ORDEN" INTEGER NOT NULL, "ACUERDO" ${keyText} PRIMARY KEY, "ARCHIVO" TEXT NOT NULL, "CONTENIDO" TEXT NOT NULL)`;

export const reglasOrigenInsert = (dialect: Dialect): string =>
  `INSERT INTO ${quote(REGLAS_ORIGEN_TABLE)} ("ORDEN", "ACUERDO", "ARCHIVO", "CONTENIDO") VALUES (${[1, 2, 3, 4].map((n) => dialect.placeholder(n)).join(', ')})`;

/** Every agreement's rules in the order they were written: part of a version's content hash. */
export const REGLAS_ORIGEN_ALL = `SELECT "ORDEN", "ACUERDO", "ARCHIVO", "CONTENIDO" FROM ${quote(REGLAS_ORIGEN_TABLE)} ORDER BY "ORDEN"`;

export const reglasValues = (reglas: readonly ReglasAcuerdo[]): Values[] => reglas.map((r, i) => [i, r.acuerdo, r.archivo, JSON.stringify(r.contenido)]);

export interface ReglasRow {
  readonly ORDEN: number | string;
  readonly ACUERDO: string;
  readonly ARCHIVO: string;
  readonly CONTENIDO: string;
}

/** A stored row as the rules it holds (it was checked when it was written). */
export const toReglas = (rows: readonly ReglasRow[]): ReglasAcuerdo[] =>
  rows.map((r) => ({ acuerdo: r.ACUERDO, archivo: r.ARCHIVO, contenido: JSON.parse(r.CONTENIDO) as ReglasAcuerdo['contenido'] }));
