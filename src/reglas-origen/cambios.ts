/**
 * The rules written as a change of classification or as a regional value content, as TIPAT's Annex
 * 3-D writes them and the DOF publishes them in Spanish ("A change to … from any other heading, except
 * from …, provided there is a regional value content of not less than …", "Un cambio a … de cualquier
 * otra partida …", "No change in tariff classification required …"). Pure.
 */
import { CAMBIO_OF_LENGTH, PCT, leerCodigos, levelOf, percent } from './codigos.js';
import type { Codigo, Metodo, Requisito, TipoCambio } from './requisitos.js';
import { otro } from './requisitos.js';

const METHOD_WORDS: readonly [RegExp, Metodo][] = [
  [/^(build-up|aumento)$/i, 'aumento'],
  [/^(build-down|reducci[oó]n)$/i, 'reduccion'],
  [/^(focused value|valor enfocado)$/i, 'valor_enfocado'],
  [/^(net cost|costo neto)$/i, 'costo_neto'],
  [/^(transaction value|valor de transacci[oó]n)$/i, 'valor_transaccion'],
];

const RVC_ITEM_EN = new RegExp(
  String.raw`^${PCT} under the (build-up|build-down|focused value|net cost|transaction value) method(?: taking into account only the non-originating materials of (.+?))?$`,
  'i',
);
const RVC_ITEM_ES = new RegExp(
  String.raw`^${PCT},? (?:cuando se utilice|bajo|conforme a|utilizando) el método de (aumento|reducci[oó]n|valor enfocado|costo neto|valor de transacci[oó]n)(?:,? (?:tomando en cuenta|considerando) (?:s[oó]lo|[uú]nicamente) los materiales no originarios (?:de|del) (.+?))?$`,
  'i',
);

/** One threshold of regional value content: "45% under the build-down method", "35 por ciento cuando se utilice el método de aumento". */
export function leerContenido(text: string): Requisito | undefined {
  const clean = text.trim().replace(/[.;]$/, '').trim();
  const m = RVC_ITEM_EN.exec(clean) ?? RVC_ITEM_ES.exec(clean);
  if (!m) return undefined;
  const metodo = METHOD_WORDS.find(([re]) => re.test(m[2]!))?.[1];
  if (metodo === undefined) return undefined;
  let materiales: Codigo[] | null = null;
  if (m[3] !== undefined) {
    if (metodo !== 'valor_enfocado') return undefined;
    const codes = leerCodigos(m[3]);
    if (!codes) return undefined;
    materiales = codes;
  }
  if (metodo === 'valor_enfocado' && materiales === null) return undefined;
  return { tipo: 'contenido_regional', metodo, minimo: percent(m[1]!), materiales };
}

const RVC_LEAD =
  /^(?:there is a regional value content of not less than|exista un contenido regional (?:de valor )?no menor (?:a|al|de)(?: un)?)\s*(:?)\s*(.*)$/i;

/** Letters of a list: "- a) …", "(a) …", "a) …". */
const LETTER = /(?:^|\s)(?:-\s*)?\(?([a-h])\)\s+/g;

/** The items of a lettered list, in order, when the text is one ("- a) 35% … - b) 45% …"); undefined otherwise. */
function lettered(text: string): string[] | undefined {
  const marks = [...text.matchAll(LETTER)];
  if (marks.length === 0 || marks[0]!.index !== 0 || marks[0]![1] !== 'a') return undefined;
  return marks.map((m, i) => {
    const end = i + 1 < marks.length ? marks[i + 1]!.index : text.length;
    return text
      .slice(m.index + m[0].length, end)
      .trim()
      .replace(/[;,]?\s*(?:or|o)$/i, '')
      .trim();
  });
}

/** What a condition of a change ("provided …", "siempre que …") reads as: alternatives (several for a lettered list), and whether it ends in an open list. */
interface Condicion {
  readonly alternativas: readonly (readonly Requisito[])[];
  /** The list after "not less than:" continues in the entries after (TIPAT writes each letter as an entry of its own). */
  readonly abierta: boolean;
}

function leerCondicion(text: string): Condicion | undefined {
  const clean = text.trim().replace(/\.$/, '').trim();
  const rvc = RVC_LEAD.exec(clean);
  if (rvc) {
    const rest = rvc[2]!.trim();
    if (rvc[1] === ':' || /^(-\s*)?\(?a\)/.test(rest)) {
      const items = lettered(rest);
      if (!items) return undefined;
      const read = items.map(leerContenido);
      if (read.some((r) => r === undefined)) return undefined;
      return { alternativas: read.map((r) => [r!]), abierta: items.length === 1 };
    }
    const one = leerContenido(rest);
    return one ? { alternativas: [[one]], abierta: false } : undefined;
  }
  const vmn =
    /^(?:that )?the value of (?:the )?non-originating materials of (.+?) does not exceed ${PCT} of the value of the good$/i.exec(clean) ??
    new RegExp(String.raw`^(?:that )?the value of (?:the )?non-originating materials of (.+?) does not exceed ${PCT} of the value of the good$`, 'i').exec(
      clean,
    ) ??
    new RegExp(String.raw`^el valor de los materiales no originarios (?:de|del) (.+?) no exceda (?:de|del) ${PCT} del valor de la mercanc[ií]a$`, 'i').exec(
      clean,
    );
  if (vmn) {
    const codes = leerCodigos(vmn[1]!);
    if (!codes) return undefined;
    return { alternativas: [[{ tipo: 'valor_max_no_originarios', maximo: percent(vmn[2]!), base: 'valor_mercancia', materiales: codes }]], abierta: false };
  }
  return undefined;
}

const GOODS_CODE =
  /^(.*?)\s*\b(?:of|de(?: la| las| el| los)?|a(?: la| las| el| los)?)\s+((?:chapters?|headings?|subheadings?|tariff items?|cap[ií]tulos?|partidas?|subpartidas?|fracci[oó]n(?:es)?(?: arancelarias?)?)\s+[\d.]+(?:\s+(?:to|through|a|al|a la)\s+(?:(?:heading|subheading|chapter|partida|subpartida|cap[ií]tulo)\s+)?[\d.]+)?)$/i;

/** The goods an entry names ("Engraulis spp. (Anchovies) of subheading 030449"): null for "a good of …" (all the set's goods). */
function goodsOf(phrase: string): { mercancias: string | null; level: number | undefined } {
  const text = phrase.trim();
  const own = leerCodigos(text);
  if (own?.[0] !== undefined) return { mercancias: null, level: (typeof own[0] === 'string' ? own[0] : own[0].desde).length };
  const m = GOODS_CODE.exec(text);
  if (!m) return { mercancias: text === '' ? null : text, level: undefined };
  const codes = leerCodigos(m[2]!);
  const first = codes?.[0];
  const level = first === undefined ? undefined : (typeof first === 'string' ? first : first.desde).length;
  const named = m[1]!.trim();
  const all = named === '' || /^(a good|goods|la mercanc[ií]a|las mercanc[ií]as|una mercanc[ií]a)$/i.test(named);
  return { mercancias: all ? null : named, level };
}

const TAIL_EN = String.raw`(?:,? except from:? (.+?))?(?:,? (provided(?: that)? .+))?$`;
const TAIL_ES = String.raw`(?:,? excepto (?:de |desde )?(.+?))?(?:,? (siempre (?:y cuando|que) .+))?$`;
/** "from any other heading" is tried before "from heading 1801 through 1805", since the goods' own words may hold a "from". */
const CHANGES = [
  new RegExp(String.raw`^A change to (.+?) from (any other (chapter|heading|subheading|tariff item))${TAIL_EN}`, 'i'),
  new RegExp(
    String.raw`^Un cambio (?:a|de) (.+?) (?:de|desde) (cualquier otr[oa] (cap[ií]tulo|partida|subpartida|fracci[oó]n(?: arancelaria)?))${TAIL_ES}`,
    'i',
  ),
  new RegExp(String.raw`^A change to (.+?) from ((?:chapters?|headings?|subheadings?|tariff items?) .+?)()${TAIL_EN}`, 'i'),
  new RegExp(
    String.raw`^Un cambio (?:a|de) (.+?) (?:de|desde) ((?:(?:la|las|el|los) )?(?:cap[ií]tulos?|partidas?|subpartidas?|fracci[oó]n(?:es)?(?: arancelarias?)?) .+?)()${TAIL_ES}`,
    'i',
  ),
];
/** The words a condition starts with, dropped before it is read. */
const PROVIDED = /^(?:provided(?: that)?|siempre (?:y cuando|que))\s+/i;
const NO_CHANGE_EN = /^No change in tariff classification (?:is )?required for (.+?),? provided (?:that )?(.+)$/i;
const NO_CHANGE_ES = /^No se requiere (?:un )?cambio de clasificaci[oó]n arancelaria (?:a|para) (.+?),? siempre (?:y cuando|que) (.+)$/i;

/** A change of classification ("A change to … from any other heading, except from …, provided …"). */
export function leerCambio(text: string): { mercancias: string | null; alternativas: Requisito[][]; abierta: boolean } | undefined {
  const clean = text.trim().replace(/\.$/, '');
  let m: RegExpExecArray | null = null;
  for (const re of CHANGES) {
    m = re.exec(clean);
    if (m) break;
  }
  if (!m) return undefined;
  const goods = goodsOf(m[1]!);
  let tipo: TipoCambio | undefined;
  let desde: Codigo[] | null = null;
  if (m[3] !== undefined && m[3] !== '') {
    const level = levelOf(m[3]);
    tipo = level === undefined ? undefined : CAMBIO_OF_LENGTH[level];
  } else {
    const codes = leerCodigos(m[2]!);
    if (!codes || goods.level === undefined) return undefined;
    desde = codes;
    tipo = CAMBIO_OF_LENGTH[goods.level];
  }
  if (tipo === undefined) return undefined;
  let excepto: Codigo[] = [];
  if (m[4] !== undefined) {
    const codes = leerCodigos(m[4]);
    if (!codes) return undefined;
    excepto = codes;
  }
  const cambio: Requisito = { tipo, excepto, desde };
  if (m[5] === undefined) return { mercancias: goods.mercancias, alternativas: [[cambio]], abierta: false };
  const condicion = leerCondicion(m[5].replace(PROVIDED, ''));
  // A condition the parser cannot read is one more thing the goods must meet ("provided the good is cut … and sewn …"): the user's to check.
  if (!condicion) return { mercancias: goods.mercancias, alternativas: [[cambio, otro(m[5])]], abierta: false };
  return { mercancias: goods.mercancias, alternativas: condicion.alternativas.map((a) => [cambio, ...a]), abierta: condicion.abierta };
}

/** No change required, provided a condition ("No change in tariff classification required for …, provided …"). */
export function leerSinCambio(text: string): { mercancias: string | null; alternativas: Requisito[][]; abierta: boolean } | undefined {
  const clean = text.trim().replace(/\.$/, '');
  const m = NO_CHANGE_EN.exec(clean) ?? NO_CHANGE_ES.exec(clean);
  if (!m) return undefined;
  const goods = goodsOf(m[1]!);
  const condicion = leerCondicion(m[2]!);
  if (!condicion) return undefined;
  return { mercancias: goods.mercancias, alternativas: condicion.alternativas.map((a) => [...a]), abierta: condicion.abierta };
}

// The working or processing rules ("Manufacture in which …", "Manufactura en la cual …").
