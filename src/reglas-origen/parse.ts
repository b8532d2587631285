/**
 * How a product-specific rule's text is read into requirements a program can check
 * (../shared/spec/reglas-origen.md, "Structure of a rule"): the agreements' English (TIPAT's Annex
 * 3-D, the UK list) and the Spanish the DOF publishes. Pure: text in, structure out. A clause is read
 * only when its whole wording is one the parser knows; anything else is `otro` with its text, never a
 * guess (a clause that loosens a requirement it cannot read makes the whole entry `otro`, so that a
 * read requirement is never stricter or looser than the text).
 */

import { leerCambio, leerContenido, leerSinCambio } from './cambios.js';
import { leerProceso } from './manufactura.js';
import type { Alternativa, Contexto, Requisito } from './requisitos.js';
import { otro } from './requisitos.js';

export type { Alternativa, Base, Codigo, Contexto, Metodo, Requisito, TipoCambio } from './requisitos.js';
export { BASES, CAMBIOS, METODOS, PARTIDA_DEL_PRODUCTO } from './requisitos.js';
export { leerCodigos } from './codigos.js';

/**
 * `texto` as the contract gives it: Markdown links reduced to their text, `**`, `*` and `&nbsp;`
 * removed (the non-breaking space read as the space it is), whitespace collapsed, trimmed.
 */
export function normalizarTexto(markdown: string): string {
  return markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*\*|\*/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

// ---------------------------------------------------------------------------------------------
// Entries

/** What an entry reads as. */
export interface EntradaLeida {
  /** The goods the rule is for as its text names them; null when for all the set's goods (or the entry names none). */
  readonly mercancias: string | null;
  readonly alternativas: readonly Alternativa[];
  /** Requirements a later lettered entry ("- b) …") joins to its threshold: set when the entry ends in an open list. */
  readonly prefijo: readonly Requisito[] | null;
  /** A lettered entry continuing the list of an entry before it. */
  readonly continuacion: boolean;
}

const alone = (texto: string): EntradaLeida => ({ mercancias: null, alternativas: [{ requisitos: [otro(texto)] }], prefijo: null, continuacion: false });

/** Notes that add a condition the service does not check without changing what the rest of the entry says. */
const NOTE =
  /\s+((?:Note: Where more than one product-specific rule is applicable|See also Appendix|See introductory note|For special conditions relating to|Véase (?:también )?(?:el )?Apéndice|Nota:).*)$/i;

/** Splits off a trailing note, kept as `otro`. */
function splitNote(text: string): { body: string; note: string | null } {
  const m = NOTE.exec(text);
  if (!m) return { body: text, note: null };
  return { body: text.slice(0, m.index).trim(), note: m[1]!.trim() };
}

/** A lettered entry continuing a list ("- b) 45% under the build-down method."). */
const CONTINUATION = /^-?\s*\(?([b-h])\)\s+(.+)$/i;

/** Splits an entry at its top-level alternatives (", or No change …", "; o No se requiere …"). */
function parts(text: string): string[] {
  return text.split(/[,;]?\s+(?:or|o)\s+(?=(?:No change in tariff|A change to|No se requiere|Un cambio)\b)/);
}

/** One entry's text (normalised) read into alternatives of requirements. */
export function leerEntrada(texto: string, ctx: Contexto = { partida: null }): EntradaLeida {
  const { body, note } = splitNote(texto);
  const withNote = (reqs: readonly Requisito[]): Requisito[] => (note === null ? [...reqs] : [...reqs, otro(note)]);
  const cont = CONTINUATION.exec(body);
  if (cont) {
    const item = leerContenido(cont[2]!);
    return {
      mercancias: null,
      alternativas: [{ requisitos: withNote([item ?? otro(texto)]) }],
      prefijo: null,
      continuacion: true,
    };
  }
  const alternativas: Alternativa[] = [];
  let mercancias: string | null | undefined;
  let prefijo: Requisito[] | null = null;
  for (const part of parts(body)) {
    const clean = part.trim();
    const change = leerCambio(clean) ?? leerSinCambio(clean);
    if (change) {
      if (mercancias === undefined) mercancias = change.mercancias;
      for (const a of change.alternativas) alternativas.push({ requisitos: withNote(a) });
      // The later letters join what the entry requires besides its first threshold.
      prefijo = change.abierta ? change.alternativas[0]!.slice(0, -1) : null;
      continue;
    }
    const proceso = leerProceso(clean, ctx);
    if (proceso) {
      alternativas.push({ requisitos: withNote(proceso) });
      prefijo = null;
      continue;
    }
    return alone(texto);
  }
  return { mercancias: mercancias ?? null, alternativas, prefijo, continuacion: false };
}

// ---------------------------------------------------------------------------------------------
// Rule sets

/** One rule of a set: the entries from one with `operator: null` to the next. */
export interface ReglaLeida {
  /** The index of its first entry in the set. */
  readonly entrada: number;
  readonly mercancias: string | null;
  /** Its entries' texts, normalised, in order. */
  readonly texto: readonly string[];
  readonly alternativas: readonly Alternativa[];
  /** Per entry of the rule: whether it was read without `otro` (the parser's coverage). */
  readonly leidas: readonly boolean[];
}

export interface EntradaConjunto {
  readonly rule: string;
  readonly operator: 'or' | null;
}

/** The heading all of a set's goods share, if they share one. */
export function partidaDe(min: string, max: string): string | null {
  return min.slice(0, 4) === max.slice(0, 4) ? min.slice(0, 4) : null;
}

/** A set's entries read into its rules (several when an entry with `operator: null` follows the first). */
export function leerConjunto(rules: readonly EntradaConjunto[], ctx: Contexto): ReglaLeida[] {
  const reglas: { entrada: number; mercancias: string | null; texto: string[]; alternativas: Alternativa[]; leidas: boolean[] }[] = [];
  let prefijo: readonly Requisito[] | null = null;
  rules.forEach((entry, i) => {
    const texto = normalizarTexto(entry.rule);
    const read = leerEntrada(texto, ctx);
    let current = reglas.at(-1);
    if (current === undefined || entry.operator === null) {
      current = { entrada: i, mercancias: read.mercancias, texto: [], alternativas: [], leidas: [] };
      reglas.push(current);
      prefijo = null;
    }
    current.texto.push(texto);
    if (read.continuacion) {
      // A letter continues the list the entry before opened: its threshold with what that entry required besides.
      const item = read.alternativas[0]!.requisitos;
      const joined = { requisitos: prefijo === null ? [otro(texto)] : [...prefijo, ...item] };
      current.alternativas.push(joined);
      current.leidas.push(sinOtro([joined]));
      return;
    }
    current.alternativas.push(...read.alternativas);
    current.leidas.push(sinOtro(read.alternativas));
    prefijo = read.prefijo;
  });
  return reglas;
}

/** Whether alternatives were read without any `otro`: the parser's coverage, entry by entry. */
export const sinOtro = (alternativas: readonly Alternativa[]): boolean => alternativas.every((a) => a.requisitos.every((r) => r.tipo !== 'otro'));
