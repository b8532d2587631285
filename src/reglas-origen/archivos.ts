/**
 * The files of product-specific rules of origin (reglas de origen específicas): the two the project
 * ships (data/reglas-origen/, TIPAT's Annex 3-D and the Mexico–United Kingdom list, MIT, from the UK
 * Trade Tariff's backend) and an operator's `reglas-origen/<clave>.json` in an import folder for any
 * agreement of `acuerdos.csv`. Every load writes them into its version (a table beside the record
 * sets), so a version answers with the rules it was loaded with. A file is checked whole before
 * anything is written: one that is not the shape is refused naming the file, the entry and the reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../config-values.js';
import { loadTables } from '../contribuciones/tables.js';

/** The folder of an import (and of the project's data) that holds the rules' files. */
export const REGLAS_ORIGEN_DIR = 'reglas-origen';

/** One entry of a rule set: one rule text, alternative (`or`) to the entries before it or not. */
export interface EntradaArchivo {
  readonly rule: string;
  readonly operator: 'or' | null;
  readonly class?: readonly string[];
  readonly footnotes?: readonly unknown[];
  readonly import?: boolean;
  readonly export?: boolean;
}

/** A rule set: the goods between `min` and `max` (10-digit codes) and their rules. */
export interface ConjuntoArchivo {
  readonly heading: string;
  readonly subdivision?: string | null;
  readonly min: string;
  readonly max: string;
  readonly rules: readonly EntradaArchivo[];
  readonly valid?: boolean;
}

export interface ArchivoReglas {
  readonly rule_sets: readonly ConjuntoArchivo[];
}

/** An agreement's rules as a version stores them: the agreement (as `acuerdos.csv` names it), the file's name and its content. */
export interface ReglasAcuerdo {
  readonly acuerdo: string;
  readonly archivo: string;
  readonly contenido: ArchivoReglas;
}

/** A file that is not the shape: its name, the entry at fault (a JSON path) and why. */
export class ArchivoReglasInvalido extends Error {
  override readonly name = 'ArchivoReglasInvalido';
  constructor(
    readonly archivo: string,
    readonly entrada: string,
    readonly motivo: string,
  ) {
    super(`${archivo}: ${entrada === '' ? '' : `${entrada}: `}${motivo}`);
  }
}

const CODE = /^\d{10}$/;
/** More rule sets than any annex has by far: a file past it is not a list of rules. */
const MAX_SETS = 20000;
const MAX_ENTRIES = 100;
const MAX_RULE_CHARS = 20000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a parsed file against the shape the contract gives, entry by entry; throws at the first fault. */
export function checkArchivo(archivo: string, value: unknown): ArchivoReglas {
  const bad = (entrada: string, motivo: string): never => {
    throw new ArchivoReglasInvalido(archivo, entrada, motivo);
  };
  if (!isObject(value)) return bad('', 'not a JSON object with rule_sets');
  const sets = value['rule_sets'];
  if (!Array.isArray(sets)) return bad('rule_sets', 'missing, or not a list of rule sets');
  if (sets.length === 0) return bad('rule_sets', 'empty: a file holds at least one rule set');
  if (sets.length > MAX_SETS) return bad('rule_sets', `${sets.length} rule sets, more than ${MAX_SETS}`);
  sets.forEach((set: unknown, i) => {
    const at = `rule_sets[${i}]`;
    if (!isObject(set)) return bad(at, 'not an object');
    if (typeof set['heading'] !== 'string' || set['heading'].trim() === '') bad(`${at}.heading`, 'missing, or not a text');
    const sub = set['subdivision'];
    if (sub !== undefined && sub !== null && typeof sub !== 'string') bad(`${at}.subdivision`, 'not a text');
    for (const bound of ['min', 'max'] as const) {
      const code = set[bound];
      if (typeof code !== 'string' || !CODE.test(code)) bad(`${at}.${bound}`, `${JSON.stringify(code ?? null)} is not a code of 10 digits`);
    }
    if ((set['min'] as string) > (set['max'] as string)) bad(`${at}.min`, `${String(set['min'])} is after max ${String(set['max'])}`);
    if (set['valid'] !== undefined && typeof set['valid'] !== 'boolean') bad(`${at}.valid`, 'not true or false');
    const rules = set['rules'];
    if (!Array.isArray(rules) || rules.length === 0) return bad(`${at}.rules`, 'missing, or not a list of at least one rule');
    if (rules.length > MAX_ENTRIES) bad(`${at}.rules`, `${rules.length} entries, more than ${MAX_ENTRIES}`);
    rules.forEach((rule: unknown, j) => {
      const r = `${at}.rules[${j}]`;
      if (!isObject(rule)) return bad(r, 'not an object');
      const text = rule['rule'];
      if (typeof text !== 'string' || text.trim() === '') bad(`${r}.rule`, 'missing, or not a text');
      if ((text as string).length > MAX_RULE_CHARS) bad(`${r}.rule`, `longer than ${MAX_RULE_CHARS} characters`);
      const operator = rule['operator'] ?? null;
      if (operator !== null && operator !== 'or') bad(`${r}.operator`, `${JSON.stringify(operator)} is neither "or" nor null`);
      if (j === 0 && operator === 'or') bad(`${r}.operator`, 'the first entry of a set cannot be an alternative ("or") to entries before it');
      for (const list of ['class', 'footnotes'] as const) if (rule[list] !== undefined && !Array.isArray(rule[list])) bad(`${r}.${list}`, 'not a list');
      for (const flag of ['import', 'export'] as const)
        if (rule[flag] !== undefined && typeof rule[flag] !== 'boolean') bad(`${r}.${flag}`, 'not true or false');
      return undefined;
    });
    return undefined;
  });
  return value as unknown as ArchivoReglas;
}

/** Reads and checks a file's text; a file that is not JSON is refused as one that is not the shape. */
export function parseArchivo(archivo: string, text: string): ArchivoReglas {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ArchivoReglasInvalido(archivo, '', `not JSON: ${(error as Error).message}`);
  }
  return checkArchivo(archivo, value);
}

/** The files the project ships and the agreement each holds (data/reglas-origen/README.md). */
export const SHIPPED: readonly { readonly archivo: string; readonly acuerdo: string }[] = [
  { archivo: 'tipat.json', acuerdo: 'TIPAT' },
  { archivo: 'reino-unido.json', acuerdo: 'Acuerdo de Continuidad Comercial México–Reino Unido' },
];

export const shippedDir = join(projectRoot, 'data', REGLAS_ORIGEN_DIR);

let shipped: ReglasAcuerdo[] | undefined;
/** The shipped rules, read once: every load without files of its own writes them. */
export function shippedReglas(): ReglasAcuerdo[] {
  shipped ??= SHIPPED.map(({ archivo, acuerdo }) => ({ acuerdo, archivo, contenido: parseArchivo(archivo, readFileSync(join(shippedDir, archivo), 'utf8')) }));
  return shipped;
}

/** A name folded for comparison: lower case, no accents, anything but letters and digits a single hyphen. */
export function slug(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Every free-trade agreement `acuerdos.csv` lists, by name, once. */
export function acuerdosTlc(): string[] {
  return [...new Set((loadTables().acuerdos ?? []).filter((a) => a.tratamiento === 'tlc').map((a) => a.acuerdo))];
}

/**
 * The agreement an operator's file names by its `<clave>`: an agreement of `acuerdos.csv` by its
 * name (any case, accents or punctuation: `t-mec`, `TLC AELC`, `tlc-aelc`), or a shipped file's own
 * name (`tipat`, `reino-unido`) for the agreement it holds; undefined when it names none.
 */
export function acuerdoDeClave(clave: string): string | undefined {
  const wanted = slug(clave);
  if (wanted === '') return undefined;
  const own = SHIPPED.find((s) => slug(s.archivo.replace(/\.json$/, '')) === wanted);
  if (own) return own.acuerdo;
  return acuerdosTlc().find((a) => slug(a) === wanted);
}

/**
 * The rules a load writes: the shipped files, each replaced by the folder's file for its agreement,
 * and the folder's files for other agreements, in the shipped order then by agreement.
 */
export function reglasDeCarga(propias: readonly ReglasAcuerdo[]): ReglasAcuerdo[] {
  const byAgreement = new Map(shippedReglas().map((r) => [r.acuerdo, r]));
  for (const r of propias) byAgreement.set(r.acuerdo, r);
  const order = (a: string): number => {
    const i = SHIPPED.findIndex((s) => s.acuerdo === a);
    return i === -1 ? SHIPPED.length : i;
  };
  return [...byAgreement.values()].sort((a, b) => order(a.acuerdo) - order(b.acuerdo) || (a.acuerdo < b.acuerdo ? -1 : 1));
}
