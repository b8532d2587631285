/**
 * How a product-specific rule's text is read into requirements a program can check
 * (../shared/spec/reglas-origen.md, "Structure of a rule"): the agreements' English (TIPAT's Annex
 * 3-D, the UK list) and the Spanish the DOF publishes. Pure: text in, structure out. A clause is read
 * only when its whole wording is one the parser knows; anything else is `otro` with its text, never a
 * guess (a clause that loosens a requirement it cannot read makes the whole entry `otro`, so that a
 * read requirement is never stricter or looser than the text).
 */

/** A code of 2, 4, 6 or 8 digits, or a range of codes of one length written as such in the text. */
export type Codigo = string | { desde: string; hasta: string };

export const CAMBIOS = ['cambio_capitulo', 'cambio_partida', 'cambio_subpartida', 'cambio_fraccion'] as const;
export type TipoCambio = (typeof CAMBIOS)[number];
export const METODOS = ['aumento', 'reduccion', 'valor_enfocado', 'costo_neto', 'valor_transaccion'] as const;
export type Metodo = (typeof METODOS)[number];
export const BASES = ['precio_franco_fabrica', 'valor_mercancia'] as const;
export type Base = (typeof BASES)[number];

/** The parser's structures are mutable arrays, as the schemas' types are; nothing changes them once read. */
export type Requisito =
  | { tipo: TipoCambio; excepto: Codigo[]; desde: Codigo[] | null }
  | { tipo: 'contenido_regional'; metodo: Metodo; minimo: string; materiales: Codigo[] | null }
  | { tipo: 'valor_max_no_originarios'; maximo: string; base: Base; materiales: Codigo[] | null }
  | { tipo: 'sin_cambio' }
  | { tipo: 'totalmente_obtenido'; materiales: Codigo[] | null }
  | { tipo: 'otro'; texto: string };

export interface Alternativa {
  requisitos: Requisito[];
}

/** The number of digits of each level of the nomenclature, by the words both languages use for it. */
const LEVELS: readonly [RegExp, number][] = [
  [/^(chapters?|cap[ií]tulos?)$/i, 2],
  [/^(headings?|partidas?)$/i, 4],
  [/^(subheadings?|subpartidas?)$/i, 6],
  [/^(tariff items?|fracci[oó]n(es)? arancelarias?|fracci[oó]n(es)?)$/i, 8],
];

const CAMBIO_OF_LENGTH: Readonly<Record<number, TipoCambio>> = { 2: 'cambio_capitulo', 4: 'cambio_partida', 6: 'cambio_subpartida', 8: 'cambio_fraccion' };

function levelOf(word: string): number | undefined {
  return LEVELS.find(([re]) => re.test(word.trim()))?.[1];
}

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
// Codes and lists of codes

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

// ---------------------------------------------------------------------------------------------
// Clauses

const PCT = String.raw`(\d{1,3}(?:[.,]\d+)?)\s*(?:%|por ciento)`;
const percent = (written: string): string => written.replace(',', '.');

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
function leerContenido(text: string): Requisito | undefined {
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

/** What the set tells the parser about the goods: the heading of all its goods when they share one (for "the same heading as the product"). */
export interface Contexto {
  readonly partida: string | null;
}

const otro = (texto: string): Requisito => ({ tipo: 'otro', texto });
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
function leerCambio(text: string): { mercancias: string | null; alternativas: Requisito[][]; abierta: boolean } | undefined {
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
function leerSinCambio(text: string): { mercancias: string | null; alternativas: Requisito[][]; abierta: boolean } | undefined {
  const clean = text.trim().replace(/\.$/, '');
  const m = NO_CHANGE_EN.exec(clean) ?? NO_CHANGE_ES.exec(clean);
  if (!m) return undefined;
  const goods = goodsOf(m[1]!);
  const condicion = leerCondicion(m[2]!);
  if (!condicion) return undefined;
  return { mercancias: goods.mercancias, alternativas: condicion.alternativas.map((a) => [...a]), abierta: condicion.abierta };
}

// The working or processing rules ("Manufacture in which …", "Manufactura en la cual …").

const EXWORKS = String.raw`(?:the )?(?:value of the )?ex-works (?:price )?of the product`;
const FRANCO = String.raw`(?:el )?precio franco f[aá]brica del producto`;

/**
 * Where a rule names "the same heading as the product" and the set's goods span several headings,
 * the materials are those of the good's own heading: this stands for it until a fraction is asked
 * for (src/reglas-origen/indice.ts puts the heading of the fraction in its place).
 */
export const PARTIDA_DEL_PRODUCTO = 'partida_del_producto';

const ownHeading = (ctx: Contexto): string => ctx.partida ?? PARTIDA_DEL_PRODUCTO;

/** A list of headings ("heading 2207 or heading 2208") read only when every item is a heading. */
function headings(text: string): string[] | undefined {
  const codes = leerCodigos(text);
  if (!codes || codes.some((c) => typeof c !== 'string' || c.length !== 4)) return undefined;
  return codes as string[];
}

/** One requirement of a working or processing rule, or undefined. */
function leerManufactura(clause: string, ctx: Contexto): Requisito | undefined {
  const text = clause
    .trim()
    .replace(/[.,;]$/, '')
    .replace(/,? and$/i, '')
    .trim();
  let m = /^all the materials used are classified (?:with)?in an? (chapter|heading|subheading) other than that of the product$/i.exec(text);
  m ??=
    /^todos los materiales utilizados se clasifi(?:quen|can) en un(?:a)? (cap[ií]tulo|partida|subpartida) diferente (?:a|al|de) (?:la|el) del producto$/i.exec(
      text,
    );
  if (m) return { tipo: CAMBIO_OF_LENGTH[levelOf(m[1]!)!]!, excepto: [], desde: null };
  if (/^from materials of any heading,? except that of the product$/i.test(text)) return { tipo: 'cambio_partida', excepto: [], desde: null };
  // "… a heading other than that of the product, except for materials of heading 8501": those may not come from outside.
  m = /^all the materials used are classified (?:with)?in a heading other than that of the product,? except for (?:materials (?:of|from) )?(.+)$/i.exec(text);
  if (m) {
    const codes = leerCodigos(m[1]!);
    return codes ? { tipo: 'cambio_partida', excepto: codes, desde: null } : undefined;
  }
  // "classified within a heading other than heading 2207 or heading 2208", for goods of one of them: a change of heading, the others excepted.
  m = /^(?:all the materials used are classified (?:with)?in a heading other than|from materials not classified (?:with)?in) (.+)$/i.exec(text);
  if (m) {
    const list = headings(m[1]!);
    if (!list || ctx.partida === null || !list.includes(ctx.partida)) return undefined;
    return { tipo: 'cambio_partida', excepto: list.filter((h) => h !== ctx.partida), desde: null };
  }
  // "Manufacture from materials of heading 1701", for goods of another heading: every non-originating material from there.
  m = /^from materials of ((?:heading|headings) .+)$/i.exec(text);
  if (m) {
    const list = headings(m[1]!);
    if (!list || ctx.partida === null || list.includes(ctx.partida)) return undefined;
    return { tipo: 'cambio_partida', excepto: [], desde: list };
  }
  m = new RegExp(String.raw`^the value of all (?:the )?materials used does not exceed ${PCT} of ${EXWORKS}$`, 'i').exec(text);
  m ??= new RegExp(String.raw`^el valor de todos los materiales utilizados no exced?a (?:de|del) ${PCT} (?:de|del) ${FRANCO}$`, 'i').exec(text);
  if (m) return { tipo: 'valor_max_no_originarios', maximo: percent(m[1]!), base: 'precio_franco_fabrica', materiales: null };
  m = new RegExp(
    String.raw`^(?:the value of (?:any|all the|all) materials classified (?:with)?in the same heading as the product(?: used)? does not exceed|where, within the above limit, the materials classified within the same heading as the product are only used up to a value of) ${PCT} of ${EXWORKS}$`,
    'i',
  ).exec(text);
  if (m) return { tipo: 'valor_max_no_originarios', maximo: percent(m[1]!), base: 'precio_franco_fabrica', materiales: [ownHeading(ctx)] };
  m = new RegExp(
    String.raw`^the value of (?:any|all the|all) materials (?:of|classified within) (.+?) used (?:does not|may not) exceed ${PCT} of ${EXWORKS}$`,
    'i',
  ).exec(text);
  m ??= new RegExp(
    String.raw`^where, within the above limit, the materials classified within (.+?)(?:, taken together,)? are only used up to a value of ${PCT} of ${EXWORKS}$`,
    'i',
  ).exec(text);
  m ??= new RegExp(
    String.raw`^el valor de (?:cualquier material|los materiales|todos los materiales) (?:de|del) (.+?) utilizados? no exced?a (?:de|del) ${PCT} (?:de|del) ${FRANCO}$`,
    'i',
  ).exec(text);
  if (m) {
    const codes = leerCodigos(m[1]!);
    return codes ? { tipo: 'valor_max_no_originarios', maximo: percent(m[2]!), base: 'precio_franco_fabrica', materiales: codes } : undefined;
  }
  // Nothing non-originating may be used: at most 0 % of the price in non-originating materials.
  if (/^all the materials used must already be originating$/i.test(text)) {
    return { tipo: 'valor_max_no_originarios', maximo: '0', base: 'precio_franco_fabrica', materiales: null };
  }
  if (/^all the materials used (?:must be|are) wholly obtained$/i.test(text)) return { tipo: 'totalmente_obtenido', materiales: null };
  m = /^all the (?:materials|animals) of (.+?) used (?:must be|are) wholly obtained$/i.exec(text);
  m ??= /^todos los (?:materiales|animales) (?:de|del) (.+?) utilizados (?:deben ser|sean|son) totalmente obtenidos$/i.exec(text);
  if (m) {
    const codes = leerCodigos(m[1]!);
    return codes ? { tipo: 'totalmente_obtenido', materiales: codes } : undefined;
  }
  if (/^(?:from )?materials (?:of|on) any heading(?:,? including other materials of heading \d{4})?$/i.test(text)) return { tipo: 'sin_cambio' };
  if (/^a partir de materiales de cualquier partida$/i.test(text)) return { tipo: 'sin_cambio' };
  return undefined;
}

/** The same-heading tolerance of a change of heading: read as the value limit it amounts to. */
const SAME_HEADING_TOLERANCE = new RegExp(
  String.raw`^However, materials classified within the same heading may be used,? provided their value does not exceed ${PCT} of ${EXWORKS}\.?$`,
  'i',
);

function leerProceso(text: string, ctx: Contexto): Requisito[] | undefined {
  const lead = /^(?:Manufacture|Manufacturing|Other operations|Manufactura|Otras operaciones)(?: in which| en la cual| en la que)?:?\s*(.*)$/i.exec(text);
  if (!lead) {
    const one = /^All the animals of/i.test(text) ? leerManufactura(text.replace(/\.$/, ''), ctx) : undefined;
    return one ? [one] : undefined;
  }
  const body = lead[1]!;
  // "… product. However, materials classified within the same heading may be used provided …": the
  // change of heading fails only on the same heading's materials, which the tolerance then limits by value.
  const sentences = body.split(/(?<=\.)\s+(?=However,)/);
  if (sentences.length === 2) {
    const first = leerManufactura(sentences[0]!, ctx);
    const tolerance = SAME_HEADING_TOLERANCE.exec(sentences[1]!);
    if (first?.tipo === 'cambio_partida' && first.excepto.length === 0 && first.desde === null && tolerance) {
      return [{ tipo: 'valor_max_no_originarios', maximo: percent(tolerance[1]!), base: 'precio_franco_fabrica', materiales: [ownHeading(ctx)] }];
    }
    // A "however" that only adds a limit ("… may not exceed 20 %") or an exclusion ("waste and scrap of heading 7204 may not be used") tightens what was read.
    const limit = new RegExp(String.raw`^However, the value of all the materials of (.+?) used may not exceed ${PCT} of ${EXWORKS}\.?$`, 'i').exec(
      sentences[1]!,
    );
    const limitCodes = limit ? leerCodigos(limit[1]!) : undefined;
    if (first?.tipo === 'sin_cambio' && limit && limitCodes) {
      return [first, { tipo: 'valor_max_no_originarios', maximo: percent(limit[2]!), base: 'precio_franco_fabrica', materiales: limitCodes }];
    }
    const excluded = /^However, waste and scrap of (heading \d{4}) may not be used\.?$/i.exec(sentences[1]!);
    const excludedCodes = excluded ? leerCodigos(excluded[1]!) : undefined;
    if (first?.tipo === 'cambio_partida' && first.desde === null && excludedCodes) return [{ ...first, excepto: [...first.excepto, ...excludedCodes] }];
    return undefined;
  }
  const items = body.startsWith('-') ? body.split(/(?:^|\s)-\s+/).filter((s) => s.trim() !== '') : [body];
  const read = items.map((item) => leerManufactura(item.replace(/^(?:in which|where|en la cual|en la que)\s+/i, ''), ctx));
  if (read.some((r) => r === undefined)) return undefined;
  return read as Requisito[];
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
