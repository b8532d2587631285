/**
 * The working or processing rules of the UK list (the EU–Mexico list carried over) and their DOF
 * Spanish ("Manufacture in which all the materials used are classified within a heading other than
 * that of the product", "Manufactura en la cual el valor de todos los materiales utilizados no exceda
 * del 50 por ciento …"). Pure. A process the structure cannot state ("printing", "refining",
 * "manufacture from yarn") is not read here: the entry stays `otro`.
 */
import { CAMBIO_OF_LENGTH, PCT, headings, headingsOrRanges, incluye, leerCodigos, levelOf, percent } from './codigos.js';
import type { Codigo, Contexto, Requisito } from './requisitos.js';
import { otro, ownHeading } from './requisitos.js';

const EXWORKS = String.raw`(?:the )?(?:value of the )?ex-works (?:price )?of the product`;
const FRANCO = String.raw`(?:el )?precio franco f[aá]brica del producto`;

/**
 * No non-originating material of these codes may be used: at most 0 % of the price in them (a
 * material of no value counts for nothing either way). The text allows every other material.
 */
const ninguno = (codes: Codigo[]): Requisito => ({ tipo: 'valor_max_no_originarios', maximo: '0', base: 'precio_franco_fabrica', materiales: codes });

/**
 * Materials of every heading but those listed: for goods of one of them, the change of heading it
 * amounts to (the others excepted); otherwise (or when the set's goods span several headings) none of
 * them non-originating, as the text says, the good's own heading allowed when it is not listed.
 */
function sinMaterialesDe(list: Codigo[] | undefined, ctx: Contexto): Requisito | undefined {
  if (!list) return undefined;
  if (ctx.partida !== null && incluye(list, ctx.partida)) return { tipo: 'cambio_partida', excepto: list.filter((h) => h !== ctx.partida), desde: null };
  return ninguno(list);
}

/** One requirement of a working or processing rule, or undefined. */
function leerManufactura(clause: string, ctx: Contexto): Requisito | undefined {
  const text = clause
    .trim()
    .replace(/[.,;]$/, '')
    .replace(/,? and$/i, '')
    .trim();
  // "that of that of the product" (5810) is the same words written twice.
  let m = /^all the materials used are classified (?:with)?in an? (chapter|heading|subheading) other than that of (?:that of )?the product$/i.exec(text);
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
  m ??= /^a partir de materiales no clasificados en (.+)$/i.exec(text);
  if (m) return sinMaterialesDe(headingsOrRanges(m[1]!), ctx);
  // "Manufacture from materials of any heading, except those of heading 1108": any material but those, which must be originating.
  m = /^from materials of any heading,? except (?:those )?(?:of|from) (.+)$/i.exec(text);
  m ??= /^a partir de materiales de cualquier partida,? excepto (?:los|las|el|la) (.+)$/i.exec(text);
  if (m) {
    const codes = leerCodigos(m[1]!);
    const list = codes && headingsOrRanges(m[1]!);
    return list ? sinMaterialesDe(list, ctx) : codes ? ninguno(codes) : undefined;
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
    String.raw`^where, within the above limit, (?:the value of )?the materials classified within (.+?)(?:, taken together,)? are only used up to a value of ${PCT} of ${EXWORKS}$`,
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
  String.raw`^However, materials classified within the same heading may be used,? provided their value does not exceed ${PCT} of ${EXWORKS}$`,
  'i',
);
/** "However, materials from heading 3702 may be used provided their value does not exceed 30 % …" (", taken together," for several). */
const HEADINGS_TOLERANCE = new RegExp(
  String.raw`^However, materials (?:of|from) (.+?) may be used,? provided their value(,? taken together)?,? does not exceed ${PCT} of ${EXWORKS}$`,
  'i',
);
const OTHER_THAN = /^all the materials used are classified (?:with)?in a heading other than (.+)$/i;

const limite = (maximo: string, materiales: Codigo[]): Requisito => ({ tipo: 'valor_max_no_originarios', maximo, base: 'precio_franco_fabrica', materiales });

/**
 * A change of heading with a tolerance for some of the headings it excludes ("… a heading other than
 * heading 3701 or heading 3702. However, materials from heading 3702 may be used provided their value
 * does not exceed 30 % …"): the tolerated headings limited by value, the others still excluded. Read
 * only when every tolerated heading is one the change excludes and the good's own heading is known;
 * several tolerated headings only when their value is "taken together" (each or all is not said otherwise).
 */
function leerTolerancia(first: string, however: string, ctx: Contexto): Requisito[] | undefined {
  const base = OTHER_THAN.exec(first);
  const tolerance = HEADINGS_TOLERANCE.exec(however);
  if (!base || !tolerance || ctx.partida === null) return undefined;
  const own = ctx.partida;
  const excluded = /^that of (?:that of )?the product$/i.test(base[1]!) ? [own] : headings(base[1]!);
  const tolerated = headings(tolerance[1]!);
  if (!excluded || !tolerated || !excluded.includes(own) || tolerated.some((h) => !excluded.includes(h))) return undefined;
  if (tolerated.length > 1 && tolerance[2] === undefined) return undefined;
  const maximo = percent(tolerance[3]!);
  if (tolerated.length === excluded.length) return [limite(maximo, tolerated)];
  if (tolerated.includes(own)) return undefined;
  return [{ tipo: 'cambio_partida', excepto: excluded.filter((h) => h !== own && !tolerated.includes(h)), desde: null }, limite(maximo, tolerated)];
}

/** A clause followed by a "However, …" sentence that loosens or tightens it, or undefined. */
function leerSalvedad(firstText: string, however: string, ctx: Contexto): Requisito[] | undefined {
  const first = leerManufactura(firstText, ctx);
  // "… product. However, materials classified within the same heading may be used provided …": the
  // change of heading fails only on the same heading's materials, which the tolerance then limits by value.
  const tolerance = SAME_HEADING_TOLERANCE.exec(however);
  if (first?.tipo === 'cambio_partida' && first.excepto.length === 0 && first.desde === null && tolerance) {
    return [limite(percent(tolerance[1]!), [ownHeading(ctx)])];
  }
  const tolerated = leerTolerancia(firstText.trim().replace(/[.,;]$/, ''), however, ctx);
  if (tolerated) return tolerated;
  // A "however" that only adds a limit ("… may not exceed 20 %") or an exclusion ("waste and scrap of heading 7204 may not be used") tightens what was read.
  const limit = new RegExp(String.raw`^However, the value of all the materials of (.+?) used may not exceed ${PCT} of ${EXWORKS}$`, 'i').exec(however);
  const limitCodes = limit ? leerCodigos(limit[1]!) : undefined;
  if (first?.tipo === 'sin_cambio' && limit && limitCodes) return [first, limite(percent(limit[2]!), limitCodes)];
  const excluded = /^However, waste and scrap of (heading \d{4}) may not be used$/i.exec(however);
  const excludedCodes = excluded ? leerCodigos(excluded[1]!) : undefined;
  if (first?.tipo === 'cambio_partida' && first.desde === null && excludedCodes) return [{ ...first, excepto: [...first.excepto, ...excludedCodes] }];
  return undefined;
}

/** One clause, with its "However, …" sentence if it has one (after a full stop or, as some entries write it, none). */
function leerFrase(text: string, ctx: Contexto): Requisito[] | undefined {
  const sentences = text.split(/\s+(?=However,)/);
  if (sentences.length === 1) {
    const one = leerManufactura(text, ctx);
    return one ? [one] : undefined;
  }
  if (sentences.length !== 2) return undefined;
  return leerSalvedad(
    sentences[0]!,
    sentences[1]!
      .trim()
      .replace(/[.,;]$/, '')
      .trim(),
    ctx,
  );
}

/**
 * Words by which an item of a list can loosen what another item requires ("However, … may be used",
 * "this restriction only applies to …"): an item with them that the parser cannot read makes the
 * whole entry `otro`; any other item it cannot read is one more thing the goods must meet.
 */
const LOOSENS = /\b(?:however|may|only appl|shall appl|or if|and \/ or|provided|except|expect|in the case)/i;

export function leerProceso(text: string, ctx: Contexto): Requisito[] | undefined {
  const lead = /^(?:Manufacture|Manufacturing|Other operations|Manufactura|Otras operaciones)(?: in which| en la cual| en la que)?:?\s*(.*)$/i.exec(text);
  if (!lead) {
    const one = /^All the animals of/i.test(text) ? leerManufactura(text.replace(/\.$/, ''), ctx) : undefined;
    return one ? [one] : undefined;
  }
  const body = lead[1]!;
  if (!body.startsWith('-')) return leerFrase(body, ctx);
  // "Manufacture in which: - …, - …": every item is required.
  const items = body
    .split(/(?:^|\s)-\s+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const read = items.map((item) => leerFrase(item.replace(/^(?:in which|where|en la cual|en la que)\s+/i, ''), ctx));
  if (read.every((r) => r === undefined)) return undefined;
  if (read.some((r, i) => r === undefined && LOOSENS.test(items[i]!))) return undefined;
  return read.flatMap((r, i) => r ?? [otro(items[i]!.replace(/(?:[,;]|,? and)$/i, '').trim())]);
}
