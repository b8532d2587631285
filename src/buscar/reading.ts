/**
 * Reading a description as a phrase (issue 44): its head names the goods, the rest qualifies them.
 * A Spanish invoice line names the goods first and qualifies them after a connecting word ("FILTRO
 * DE ACEITE P/MOTOR DE GASOLINA": a filter, of oil, for an engine); an English one names them last
 * before its connecting word or its figures ("STAINLESS STEEL HEX BOLT M10X40 FOR MACHINERY": a bolt).
 * Numbers, sizes, units, model codes, materials, genders and colours never head a phrase.
 */
import { fold, isStopWord } from './analysis.js';
import { isAttribute, isQuantityWord } from './attributes.js';
import { materialsOf, MATERIAL_BITS, STATE_BITS } from './materials.js';

/** Words after which a Spanish phrase qualifies its head (p/ c/ s/ are para, con, sin as brokers abbreviate them). */
const SPANISH_CONNECTORS = new Set(['de', 'del', 'para', 'con', 'sin', 'tipo', 'en', 'p', 'c', 's', 'marca', 'modelo', 'mod', 'por', 'a']);

/** Words after which an English phrase qualifies its head. */
const ENGLISH_CONNECTORS = new Set(['for', 'of', 'with', 'without', 'in', 'to', 'from', 'on', 'by', 'brand', 'model']);

/** Words that open a phrase without naming the goods: they say the goods come as a set or a count. */
const SET_WORDS = new Set(['juego', 'set', 'kit', 'paquete', 'pack', 'par', 'pares', 'pair', 'pairs', 'lote', 'surtido', 'assorted']);

/**
 * Nouns of a form, a unit or a packaging that open a phrase before what they hold ("ROLLO DE PELICULA
 * STRETCH", "CAJA DE GALLETAS", "BOX OF CHOCOLATES"): followed by `de`/`of` and the contents, they name
 * no goods and the head passes to the noun after them; followed by a material ("CAJA DE CARTON",
 * "BOLSA DE PLASTICO") they are the goods themselves.
 */
const FORM_WORDS = new Set(
  (
    'rollo rollos juego juegos kit kits set sets par pares paquete paquetes lote lotes pieza piezas ' +
    'caja cajas bolsa bolsas botella botellas saco sacos garrafa garrafas frasco frascos bote botes tambor tambores ' +
    'roll rolls pair pairs box boxes pack packs packet packets bag bags bottle bottles jar jars drum drums piece pieces'
  ).split(' '),
);
const FORM_LINKS = new Set(['de', 'del', 'of']);

/**
 * The form, unit or packaging noun opening a phrase before its contents ("ROLLO DE PELICULA …" → rollo),
 * or undefined: such a word names no goods (it is read as an attribute, and the head is the noun after it).
 * Not when the contents are a material ("CAJA DE CARTON") or when `named` says the two words name goods
 * together ("BOLSA DE MANO", "BOLSA DE AIRE": a search reference names the pair in a heading).
 */
export function leadingForm(text: string, named: (form: string, contents: string) => boolean = () => false): string | undefined {
  const list = tokens(text).filter((t) => !(/\d/.test(t.word) || isQuantityWord(t.word)));
  const [form, link, contents] = list;
  if (!form || !link || !contents || !FORM_WORDS.has(form.word) || !FORM_LINKS.has(link.word)) return undefined;
  if ((materialsOf(contents.word) & MATERIAL_BITS) !== 0 || named(form.word, contents.word)) return undefined;
  return form.word;
}

/**
 * Whether a word of a Spanish description qualifies the goods once they are named, whatever it is
 * (issue 44): a state says how they are traded ("ATUN EN LATA", "CAMARON CONGELADO"), not what they are;
 * materials.ts reads it against the texts, as it reads materials (which are attributes too).
 */
export const isState = (word: string): boolean => (materialsOf(word) & STATE_BITS) !== 0;

/**
 * Words that show a phrase's language even when its goods words are unknown or shared by both: the
 * connecting words, and the units and genders invoices write ("LED TV 55 INCH", "TV LED 55 PULG").
 */
const ENGLISH_MARKERS = new Set('for of with without the and mens womens ladies kids boys girls inch inches pcs lbs oz feet ft'.split(' '));
const SPANISH_MARKERS = new Set('de del para con sin y la el los las pulg pulgadas pzas pza caballero dama nino nina'.split(' '));

export type Language = 'es' | 'en';

interface Token {
  /** The folded word. */
  readonly word: string;
  /** Whether a comma, semicolon or parenthesis comes right before it. */
  readonly afterBreak: boolean;
}

/** Folded words with the breaks between them; "p/", "c/" and "s/" are one word each. */
export function tokens(text: string): Token[] {
  const out: Token[] = [];
  let afterBreak = false;
  for (const m of fold(text).matchAll(/([\p{L}\p{N}]+(?:[./'’-][\p{L}\p{N}]+)*)|([,;()[\]:])/gu)) {
    if (m[2] !== undefined) {
      afterBreak = true;
      continue;
    }
    // "men's" is one word ("mens"); "t-shirt" and "m10x40" stay as typed, split at hyphens later.
    for (const part of m[1]!.replace(/['’]/g, '').split(/[-/]/)) {
      if (part === '') continue;
      out.push({ word: part, afterBreak });
      afterBreak = false;
    }
  }
  return out;
}

const namesNothing = (word: string): boolean => word.length < 2 || isQuantityWord(word) || /\d/.test(word) || isStopWord(word);

/**
 * The language a phrase is written in: English when it has an English connecting word and no
 * Spanish one, or when more of its words are English than Spanish (`english`: a word the English
 * texts hold; `spanish`: one the Spanish texts hold; a word both hold counts for neither).
 */
export function languageOf(text: string, english: (word: string) => boolean, spanish: (word: string) => boolean): Language {
  const all = tokens(text).map((t) => t.word);
  const en = all.filter((w) => ENGLISH_MARKERS.has(w)).length;
  const es = all.filter((w) => SPANISH_MARKERS.has(w)).length;
  if (en > 0 && es === 0) return 'en';
  if (es > 0 && en === 0) return 'es';
  const content = all.filter((w) => !namesNothing(w));
  const englishWords = content.filter((w) => english(w) && !spanish(w)).length;
  const spanishWords = content.filter((w) => spanish(w) && !english(w)).length;
  return englishWords > spanishWords ? 'en' : 'es';
}

/**
 * The words that may head the phrase, best first: the goods it names. Spanish: the first word that
 * names something, skipping leading numbers, codes, units and set words ("JUEGO DE SABANAS" →
 * sabanas), then the words after it up to the first connecting word, then the rest. English: the last
 * such word before the first connecting word, break or figure ("LED LIGHT BULB 9W" → bulb), then the
 * words before it, then the rest. Attributes (materials, genders, colours, packaging) come last. `form`:
 * the form or packaging noun opening the phrase (leadingForm), skipped like a set word.
 */
export function headCandidates(text: string, language: Language, form?: string): string[] {
  const { run, rest } = phraseParts(text, language, form);
  const ordered = language === 'en' ? [...run].reverse() : run;
  const qualifies = (w: string): boolean => isAttribute(w, 1) || (language === 'en' && isEnglishAdjective(w));
  // A Spanish line's first word names the goods even when it could qualify others ("BOLSA DE …", "CAJA DE CARTON").
  const goods = ordered.filter((w, i) => (language === 'es' && i === 0) || !qualifies(w));
  const attributes = ordered.filter((w, i) => !(language === 'es' && i === 0) && qualifies(w));
  return [...new Set([...goods, ...rest.filter((w) => !isAttribute(w, 1) && !SET_WORDS.has(w) && w !== form), ...attributes])];
}

/**
 * Whether an English word is an adjective by its form, which invoice English often writes after the
 * goods ("CHICKEN BREAST BONELESS SKINLESS", "SUNGLASSES POLARIZED"): a word in -less, or a participle
 * in -ed (not -eed, and not the nouns in -bed, -shed, -sled). Such a word never heads the phrase while
 * another word of the run can.
 */
export const isEnglishAdjective = (word: string): boolean =>
  word.length >= 6 && (word.endsWith('less') || (/[^e]ed$/.test(word) && !/(bed|shed|sled)$/.test(word)));

/**
 * The first run of words naming something (ending at a connecting word, a break or a figure), in the
 * order typed, and the words after it. In English the head is in the run: what follows a figure or a
 * connecting word ("CORDLESS DRILL 20V LITHIUM", "BOLT FOR MACHINERY") qualifies it.
 */
export function phraseParts(text: string, language: Language, form?: string): { run: string[]; rest: string[] } {
  const list = tokens(text);
  const connectors = language === 'en' ? ENGLISH_CONNECTORS : SPANISH_CONNECTORS;
  const run: string[] = [];
  const rest: string[] = [];
  let state: 'before' | 'in' | 'after' = 'before';
  for (const [i, t] of list.entries()) {
    const figure = /\d/.test(t.word) || isQuantityWord(t.word);
    if (state === 'in' && (connectors.has(t.word) || t.afterBreak || figure)) state = 'after';
    if (namesNothing(t.word) || connectors.has(t.word)) continue;
    if (state === 'before' && (SET_WORDS.has(t.word) || t.word === form || isAttribute(t.word, language === 'en' ? 1 : i))) {
      // An English phrase often opens with its attributes ("MEN'S COTTON T-SHIRT"): they qualify the head after them.
      rest.push(t.word);
      continue;
    }
    if (state === 'after') rest.push(t.word);
    else {
      run.push(t.word);
      state = 'in';
    }
  }
  return { run, rest };
}
