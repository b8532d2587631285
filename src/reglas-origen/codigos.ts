/**
 * Codes and lists of codes as the rules write them, in English and in the DOF's Spanish ("heading
 * 5106 to heading 5113", "las partidas 51.06 a 51.13"), and the percentages beside them. Pure.
 */
import type { Codigo, TipoCambio } from './requisitos.js';

/** The number of digits of each level of the nomenclature, by the words both languages use for it. */
const LEVELS: readonly [RegExp, number][] = [
  [/^(chapters?|cap[ií]tulos?)$/i, 2],
  [/^(headings?|partidas?)$/i, 4],
  [/^(subheadings?|subpartidas?)$/i, 6],
  [/^(tariff items?|fracci[oó]n(es)? arancelarias?|fracci[oó]n(es)?)$/i, 8],
];

export const CAMBIO_OF_LENGTH: Readonly<Record<number, TipoCambio>> = {
  2: 'cambio_capitulo',
  4: 'cambio_partida',
  6: 'cambio_subpartida',
  8: 'cambio_fraccion',
};

export function levelOf(word: string): number | undefined {
  return LEVELS.find(([re]) => re.test(word.trim()))?.[1];
}

/** A code as written ("8708.10", "96.02", "3", "030449") as digits of the level's length; undefined when it is not one. */
function codeOf(written: string, length: number): string | undefined {
  const text = written.trim();
  if (!/^\d+(\.\d+)*$/.test(text)) return undefined;
  let digits = text.replace(/\./g, '');
  if (length === 2 && digits.length === 1) digits = `0${digits}`;
  return digits.length === length ? digits : undefined;
}

const ARTICLE = /^(?:(?:de|del|desde)\s+)?(?:(?:la|las|el|los)\s+)?/i;
const RANGE = /^(.+?)\s+(?:to|through|a|al|a la|a las)\s+(.+)$/i;
const KIND =
  /^(chapters?|headings?|subheadings?|tariff items?|cap[ií]tulos?|partidas?|subpartidas?|fracci[oó]n(?:es)? arancelarias?|fracci[oó]n(?:es)?)\s+(.+)$/i;

/** One item of a list: a code or a range, its level named or that of the item before. */
function itemOf(written: string, level: number | undefined): { codigo: Codigo; level: number } | undefined {
  let text = written.trim().replace(ARTICLE, '');
  let own = level;
  const kind = KIND.exec(text);
  if (kind) {
    own = levelOf(kind[1]!);
    text = kind[2]!;
  }
  if (own === undefined) return undefined;
  const range = RANGE.exec(text);
  if (range) {
    let end = range[2]!.trim().replace(ARTICLE, '');
    const endKind = KIND.exec(end);
    if (endKind) {
      if (levelOf(endKind[1]!) !== own) return undefined;
      end = endKind[2]!;
    }
    const desde = codeOf(range[1]!, own);
    const hasta = codeOf(end, own);
    if (desde === undefined || hasta === undefined || desde > hasta) return undefined;
    return { codigo: { desde, hasta }, level: own };
  }
  const code = codeOf(text, own);
  return code === undefined ? undefined : { codigo: code, level: own };
}

/**
 * A list of codes as the rules write them ("heading 5106 to heading 5113, heading 5204 to heading 5212
 * or 5307 to 5308, subheading 5402.11 through 5402.20", "las partidas 51.06 a 51.13 o 52.04"); undefined
 * when any item is not a code or a range (goods described in words are not codes: the clause is `otro`).
 */
export function leerCodigos(text: string): Codigo[] | undefined {
  const items = text
    .trim()
    .replace(/\.$/, '')
    .split(/\s*,\s*(?:(?:or|and|o|y|u|e)\s+)?|\s+(?:or|and|o|y|u|e)\s+/i)
    .filter((s) => s !== '');
  if (items.length === 0) return undefined;
  const codes: Codigo[] = [];
  let level: number | undefined;
  for (const item of items) {
    const read = itemOf(item, level);
    if (!read) return undefined;
    codes.push(read.codigo);
    level = read.level;
  }
  return codes;
}

/** A percentage as written ("45%", "35 por ciento", "12,5 %"): its number in group 1. */
export const PCT = String.raw`(\d{1,3}(?:[.,]\d+)?)\s*(?:%|por ciento)`;
export const percent = (written: string): string => written.replace(',', '.');

/** A list of headings ("heading 2207 or heading 2208") read only when every item is a heading. */
export function headings(text: string): string[] | undefined {
  const codes = headingsOrRanges(text);
  if (!codes || codes.some((c) => typeof c !== 'string')) return undefined;
  return codes as string[];
}

/** A list of headings and ranges of headings ("heading 3701 to heading 3704"), read only when every item is one. */
export function headingsOrRanges(text: string): Codigo[] | undefined {
  const codes = leerCodigos(text);
  if (!codes || codes.some((c) => (typeof c === 'string' ? c : c.desde).length !== 4)) return undefined;
  return codes;
}

/** Whether a heading lies under one of the codes (a heading, or a range of headings). */
export function incluye(codes: readonly Codigo[], heading: string): boolean {
  return codes.some((c) => (typeof c === 'string' ? c === heading : c.desde <= heading && heading <= c.hasta));
}
