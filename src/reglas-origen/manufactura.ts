/**
 * The working or processing rules of the UK list (the EU–Mexico list carried over) and their DOF
 * Spanish ("Manufacture in which all the materials used are classified within a heading other than
 * that of the product", "Manufactura en la cual el valor de todos los materiales utilizados no exceda
 * del 50 por ciento …"). Pure. A process the structure cannot state ("printing", "refining",
 * "manufacture from yarn") is not read here: the entry stays `otro`.
 */
import { CAMBIO_OF_LENGTH, PCT, headings, leerCodigos, levelOf, percent } from './codigos.js';
import type { Contexto, Requisito } from './requisitos.js';
import { ownHeading } from './requisitos.js';

const EXWORKS = String.raw`(?:the )?(?:value of the )?ex-works (?:price )?of the product`;
const FRANCO = String.raw`(?:el )?precio franco f[aá]brica del producto`;

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

export function leerProceso(text: string, ctx: Contexto): Requisito[] | undefined {
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
