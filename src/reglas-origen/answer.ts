/**
 * The answers of `GET /api/v1/reglas-origen/{fraccion}` and `POST /api/v1/reglas-origen/evaluar`
 * (../shared/spec/reglas-origen.md) from a version's rules (indice.ts) and the agreements in force
 * (data/contribuciones/acuerdos.csv): which agreements are asked for and in force, the rules that
 * apply to the fraction with the project's Spanish reading, the agreements with no rule loaded, and
 * the evaluation of a bill of materials. Domain errors only (src/errors.ts); the HTTP edge maps them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { Decimal } from 'decimal.js';
import { projectRoot } from '../config-values.js';
import type { AcuerdoRow, Tables } from '../contribuciones/tables.js';
import { slug } from './archivos.js';
import { reglaEnEspanol } from './espanol.js';
import type { AlternativaEvaluada, Hechos, Resultado } from './evaluar.js';
import { evaluarAlternativas } from './evaluar.js';
import type { IndiceReglas, Regla } from './indice.js';
import { reglasDeCodigo } from './indice.js';
import type { Alternativa, Requisito } from './parse.js';
import { PARTIDA_DEL_PRODUCTO } from './parse.js';

export const SIN_REGLAS_CARGADAS = 'Los datos cargados no contienen las reglas de origen de este acuerdo.';
export const SIN_REGLA_PARA_FRACCION = 'Las reglas de origen cargadas de este acuerdo no tienen regla para esta fracción.';

export const ADVERTENCIAS = [
  'Estimación informativa: no sustituye al certificado o declaración de origen ni al texto del acuerdo.',
  'No se aplican las reglas generales del acuerdo: de minimis, acumulación, transporte directo, tolerancias, materiales indirectos ni juegos o surtidos.',
  'La lectura en español (texto_es) es del proyecto, no la publicación oficial; el texto que rige es el del acuerdo.',
];

/** The question: which agreements, for which date. */
export interface Pregunta {
  /** An agreement's name as acuerdos.csv or the loaded rules name it, already resolved; undefined for all. */
  readonly acuerdo?: string | undefined;
  /** An ISO 3166 alpha-3 key (apéndice 4), upper case; undefined for all. */
  readonly pais?: string | undefined;
  readonly fecha: string;
}

let countries: ReadonlySet<string> | undefined;
/** The country keys of Anexo 22 apéndice 4, read once. */
export function paisesConocidos(): ReadonlySet<string> {
  countries ??= new Set(
    parse<Record<string, string>>(readFileSync(join(projectRoot, 'data', 'sources', 'anexo22', 'apendice4_paises.csv'), 'utf8'), {
      columns: true,
      bom: true,
      skip_empty_lines: true,
    }).map((r) => (r['Clave SAAI M3'] ?? '').trim().toUpperCase()),
  );
  return countries;
}

/** Whether `pais` names a country (or a group of countries) apéndice 4 or the tables know (the project's copy of apéndice 4 lacks a few partners, such as GBR). */
export function paisValido(pais: string, tables: Tables): boolean {
  return /^[A-Z]{3}$/.test(pais) && (paisesConocidos().has(pais) || tables.groups.has(pais) || (tables.acuerdos ?? []).some((a) => a.pais === pais));
}

/** The agreement a client names (any case, accents or punctuation), among acuerdos.csv's and those with rules loaded; undefined when none. */
export function resolverAcuerdo(nombre: string, tables: Tables, indice: IndiceReglas): string | undefined {
  const wanted = slug(nombre);
  const names = new Set([...(tables.acuerdos ?? []).filter((a) => a.tratamiento === 'tlc').map((a) => a.acuerdo), ...indice.acuerdos.map((a) => a.acuerdo)]);
  return [...names].find((n) => slug(n) === wanted || (slug(n.replace(/\s*\(.*\)$/, '')) === wanted && wanted !== ''));
}

const inForce = (a: AcuerdoRow, fecha: string): boolean => (a.desde === null || a.desde <= fecha) && (a.hasta === null || fecha <= a.hasta);

/** The countries (and groups) a country belongs to, as acuerdos.csv keys them. */
function keysOf(pais: string, tables: Tables): string[] {
  return [pais, ...[...tables.groups].filter(([, members]) => members.has(pais)).map(([group]) => group)];
}

/** The free-trade agreements in force on `fecha` the question covers, each with its countries in force, in acuerdos.csv's order. */
export function acuerdosEnVigor(pregunta: Pregunta, tables: Tables): { acuerdo: string; paises: string[] }[] {
  const rows = (tables.acuerdos ?? []).filter((a) => a.tratamiento === 'tlc' && inForce(a, pregunta.fecha));
  const keys = pregunta.pais === undefined ? undefined : keysOf(pregunta.pais, tables);
  const names = [...new Set(rows.filter((a) => keys === undefined || keys.includes(a.pais)).map((a) => a.acuerdo))];
  return names
    .filter((n) => pregunta.acuerdo === undefined || n === pregunta.acuerdo)
    .map((acuerdo) => ({ acuerdo, paises: [...new Set(rows.filter((a) => a.acuerdo === acuerdo).map((a) => a.pais))].sort() }));
}

/** The language of a rule's text: the DOF's Spanish or English. */
export function idiomaDe(texto: readonly string[]): 'es' | 'en' {
  return texto.some((t) => /^(Un cambio|No se requiere|Manufactura|Otras operaciones)\b|\b(partida|subpartida|cap[ií]tulo|por ciento)\b/i.test(t))
    ? 'es'
    : 'en';
}

/** The rule's requirements for one good: "the same heading as the product" becomes the good's own heading. */
function paraLaMercancia(alternativas: readonly Alternativa[], codigo: string): { requisitos: Requisito[] }[] {
  const own = (r: Requisito): Requisito =>
    'materiales' in r && r.materiales !== null && r.materiales.includes(PARTIDA_DEL_PRODUCTO)
      ? { ...r, materiales: r.materiales.map((m) => (m === PARTIDA_DEL_PRODUCTO ? codigo.slice(0, 4) : m)) }
      : r;
  return alternativas.map((a) => ({ requisitos: a.requisitos.map(own) }));
}

export interface ReglaRespuesta {
  acuerdo: string;
  paises: string[];
  encabezado: string;
  descripcion: string | null;
  parcial: boolean;
  mercancias: string | null;
  texto: string[];
  idioma: 'es' | 'en';
  alternativas: { requisitos: Requisito[] }[];
  texto_es: string;
  fuente: { archivo: string; conjunto: number; min: string; max: string; entrada: number };
}

export interface SinReglas {
  acuerdo: string;
  motivo: string;
}

function respuestaDe(regla: Regla, paises: string[], codigo: string): ReglaRespuesta {
  const alternativas = paraLaMercancia(regla.alternativas, codigo);
  return {
    acuerdo: regla.acuerdo,
    paises,
    encabezado: regla.encabezado,
    descripcion: regla.descripcion,
    parcial: regla.parcial,
    mercancias: regla.mercancias,
    texto: [...regla.texto],
    idioma: idiomaDe(regla.texto),
    alternativas,
    texto_es: reglaEnEspanol(alternativas, codigo),
    fuente: { archivo: regla.archivo, conjunto: regla.conjunto, min: regla.min, max: regla.max, entrada: regla.entrada },
  };
}

/** The rules of a good's 10-digit code under the agreements the question covers, and those with none. */
export function reglasDeFraccion(
  indice: IndiceReglas,
  tables: Tables,
  codigo: string,
  pregunta: Pregunta,
): { reglas: ReglaRespuesta[]; sin_reglas: SinReglas[] } {
  const reglas: ReglaRespuesta[] = [];
  const sin_reglas: SinReglas[] = [];
  const loaded = new Set(indice.acuerdos.map((a) => a.acuerdo));
  for (const { acuerdo, paises } of acuerdosEnVigor(pregunta, tables)) {
    if (!loaded.has(acuerdo)) {
      sin_reglas.push({ acuerdo, motivo: SIN_REGLAS_CARGADAS });
      continue;
    }
    const found = reglasDeCodigo(indice, codigo, new Set([acuerdo]));
    if (found.length === 0) sin_reglas.push({ acuerdo, motivo: SIN_REGLA_PARA_FRACCION });
    for (const r of found) reglas.push(respuestaDe(r, paises, codigo));
  }
  return { reglas, sin_reglas };
}

// ---------------------------------------------------------------------------------------------
// Evaluation

export interface ReglaEvaluada extends Omit<ReglaRespuesta, 'alternativas' | 'texto_es' | 'paises'> {
  resultado: Resultado;
  alternativas: AlternativaEvaluada[];
}

export interface Evaluacion {
  resultado: Resultado;
  reglas: ReglaEvaluada[];
  faltan: string[];
  advertencias: string[];
}

/** An `entrada` that picks no rule of any set with several rules: the HTTP edge's 422 on that field. */
export class EntradaDesconocida extends Error {
  override readonly name = 'EntradaDesconocida';
}

/**
 * Every applying rule of `acuerdo` evaluated: the whole is `cumple` when one alternative of every
 * applying rule cumple, `no_cumple` when every alternative of some rule fails, otherwise
 * `no_determinable` (also when a set has rules for different goods and no `entrada` says which).
 */
export function evaluar(indice: IndiceReglas, acuerdo: string, hechos: Hechos, entrada: number | undefined): Evaluacion {
  const applying = reglasDeCodigo(indice, hechos.codigo.length === 8 ? `${hechos.codigo}00` : hechos.codigo, new Set([acuerdo]));
  const advertencias = [...ADVERTENCIAS];
  const multi = applying.filter((r) => r.reglasDelConjunto > 1);
  if (entrada !== undefined && multi.length > 0 && !multi.some((r) => r.entrada === entrada)) throw new EntradaDesconocida(String(entrada));
  const chosen = applying.filter((r) => r.reglasDelConjunto === 1 || entrada === undefined || r.entrada === entrada);
  const reglas = chosen.map((regla): ReglaEvaluada => {
    const r = respuestaDe(regla, [], hechos.codigo);
    const evaluated = evaluarAlternativas(r.alternativas, hechos);
    return {
      acuerdo: r.acuerdo,
      encabezado: r.encabezado,
      descripcion: r.descripcion,
      parcial: r.parcial,
      mercancias: r.mercancias,
      texto: r.texto,
      idioma: r.idioma,
      fuente: r.fuente,
      resultado: evaluated.resultado,
      alternativas: evaluated.alternativas,
    };
  });
  // Each set is one unit: a set with rules for different goods and no `entrada` gives one answer only when all its rules agree.
  const units = new Map<string, Resultado[]>();
  for (const r of reglas) {
    const key = `${r.fuente.archivo}#${r.fuente.conjunto}`;
    units.set(key, [...(units.get(key) ?? []), r.resultado]);
  }
  const unitResults = [...units.values()].map((rs) => (rs.every((r) => r === rs[0]) ? rs[0]! : 'no_determinable'));
  if (multi.length > 0 && entrada === undefined) {
    const starts = [...new Set(multi.map((r) => `${r.entrada} (${r.mercancias ?? 'todas las mercancías'})`))];
    advertencias.push(`Un conjunto de reglas tiene reglas para distintas mercancías: indique en entrada cuál es la suya (${starts.join('; ')}).`);
  }
  let resultado: Resultado;
  if (reglas.length === 0) {
    resultado = 'no_determinable';
    const loaded = indice.acuerdos.some((a) => a.acuerdo === acuerdo);
    advertencias.push(
      loaded ? `Las reglas de origen cargadas de ${acuerdo} no tienen regla para esta fracción.` : `${SIN_REGLAS_CARGADAS.replace('este acuerdo', acuerdo)}`,
    );
  } else if (unitResults.includes('no_cumple')) resultado = 'no_cumple';
  else resultado = unitResults.every((r) => r === 'cumple') ? 'cumple' : 'no_determinable';
  const faltan = [...new Set(reglas.flatMap((r) => r.alternativas.flatMap((a) => a.requisitos.flatMap((q) => q.falta))))];
  return { resultado, reglas, faltan, advertencias };
}

/** A decimal string of the request (already checked by its pattern) as an exact number. */
export const decimal = (text: string | null | undefined): Decimal | undefined => (text === null || text === undefined ? undefined : new Decimal(text));
